package cmd

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/review"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/read"
)

// UpgradeOptions judges the upgrade of CRDs from one revision to another.
type UpgradeOptions struct {
	Output         report.Format
	FailOn         severityFlag
	NoColor        bool
	Disable        []string
	StoredVersions []string
	validateOptions
	Cluster clusterOptions
	// sourceOptions gives the configuration file (rule severities, rules
	// off per path) and --exclude for object directories.
	sourceOptions

	oldArg, newArg string
	objects        []string
	flags          *pflag.FlagSet
	genericiooptions.IOStreams
}

// NewCmdUpgrade builds "upgrade".
func NewCmdUpgrade(s genericiooptions.IOStreams) *cobra.Command {
	o := &UpgradeOptions{Output: report.Text, FailOn: severityFlag(report.Error), Cluster: newClusterOptions(), IOStreams: s}
	c := &cobra.Command{
		Use:   "upgrade [flags] OLD NEW [OBJECTS...] | upgrade --live NEW [OBJECTS...]",
		Short: "Tell whether upgrading CRDs from OLD to NEW would break anything",
		Long: `Judge the upgrade of CustomResourceDefinitions from revision OLD to revision
NEW, as the API server would:

  - the server's verdict on the CRD update (stored versions, scope, names,
    structural schema, CEL, ...), positioned in NEW;
  - a breaking-change report: what differs between OLD and NEW that clients
    or stored objects notice (fields removed, types, enums, bounds, required
    fields, CEL rules, versions, printer columns, ...), positioned in NEW, or
    in OLD for what was removed;
  - a replay of existing objects: each as OLD stores it, then under NEW a
    create of the same manifest, its next update that changes only labels
    (with the server's ratcheting), the stored fields NEW prunes (data lost),
    and whether its stored version stays. Tightenings (bounds, enums, list
    types, CEL rules, ...) are judged on the objects: a tightening none of
    them breaks is a warning; without objects it is an error.

OLD and NEW are CRD files or directories (several CRDs are paired by name),
or REV:PATH to read a file, or every CRD under a directory, at a git
revision of the current repository (git show REV:PATH). OBJECTS are files
or directories of custom resources that exist today. Offline, status.storedVersions is OLD's own, else its
storage version, unless --stored-versions says otherwise.

With --live, OLD is each CRD of NEW as the cluster has it (with its real
status.storedVersions), and the objects are every stored object of it (all
namespaces, or -n's), read a page at a time, unless OBJECTS are given.

Exit code 0: nothing at or above --fail-on; 1: findings at or above --fail-on;
2: usage or input error.`,
		Example: `  # The next release against the objects of a samples directory
  kubectl crdlint upgrade old/widget.yaml new/widget.yaml samples/

  # Against a release tag of the repository (git show REV:PATH)
  kubectl crdlint upgrade v1.0.0:config/crd/widget.yaml config/crd/widget.yaml

  # Every CRD of a directory, at a tag and now, with the samples replayed
  kubectl crdlint upgrade v1.0.0:config/crd/bases config/crd/bases config/samples

  # OLD's status.storedVersions when the file cannot say
  kubectl crdlint upgrade --stored-versions v1beta1,v1 old/widget.yaml new/widget.yaml

  # Against the cluster: its CRD, its stored versions and all its objects
  kubectl crdlint upgrade --live config/crd/widget.yaml`,
		RunE: runOptions(o),
	}
	f := c.Flags()
	f.VarP(&o.Output, "output", "o", "Output format: "+strings.Join(report.FormatNames(), ", "))
	f.Var(&o.FailOn, "fail-on", "Exit 1 when a finding is at or above this severity: error, warning or none")
	f.BoolVar(&o.NoColor, "no-color", false, "Never colour the output (NO_COLOR is honoured too)")
	f.StringArrayVar(&o.Disable, "disable", nil, "Silence a rule by ID (repeatable)")
	f.StringVar(&o.ConfigFile, "config", "", "The configuration file (default: .crdlint.yaml in the working directory or the nearest parent, up to the repository's root)")
	f.BoolVar(&o.NoConfig, "no-config", false, "Ignore any configuration file")
	f.StringArrayVar(&o.Exclude, "exclude", nil, "Leave out object files matching this gitignore-style pattern (repeatable)")
	o.validateOptions.addFlags(f)
	f.StringSliceVar(&o.StoredVersions, "stored-versions", nil, "OLD's status.storedVersions, comma-separated, for every CRD of OLD (default: the file's own status, else the storage version)")
	o.Cluster.addFlags(f, "Read OLD and its objects from the cluster: give NEW (and OBJECTS to replay those instead of the cluster's)", false)
	o.sourceOptions.Minor.addFlags(f)
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(report.FormatNames(), cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"error", "warning", "none"}, cobra.ShellCompDirectiveNoFileComp))
	completeValidate(c)
	return c
}

// Complete takes OLD, NEW and the objects.
func (o *UpgradeOptions) Complete(c *cobra.Command, args []string) error {
	o.flags = c.Flags()
	if o.Cluster.Live && !o.flags.Changed("namespace") {
		// Every stored object of the CRD, unless -n narrows it.
		o.Cluster.Flags.AllNamespaces = true
	}
	switch {
	case o.Cluster.Live && len(args) >= 1:
		o.newArg, o.objects = args[0], args[1:]
	case !o.Cluster.Live && len(args) >= 2:
		o.oldArg, o.newArg, o.objects = args[0], args[1], args[2:]
	case o.Cluster.Live:
		return usageErrorf("accepts at least 1 arg(s) with --live, received 0: give NEW; OLD is read from the cluster")
	default:
		return usageErrorf("accepts at least 2 arg(s), received %d: give OLD and NEW, then the objects that exist", len(args))
	}
	return o.sourceOptions.complete(o.flags)
}

// Validate rejects bad combinations, without I/O.
func (o *UpgradeOptions) Validate() error {
	if o.Cluster.Live && len(o.StoredVersions) > 0 {
		return usageErrorf("--stored-versions is for OLD read from a file; with --live the cluster's status.storedVersions is used")
	}
	for _, v := range o.StoredVersions {
		if strings.TrimSpace(v) == "" {
			return usageErrorf("--stored-versions: empty version name")
		}
	}
	if err := o.validateCluster(); err != nil {
		return err
	}
	if err := stdinOnce(append([]string{o.oldArg, o.newArg}, o.objects...)); err != nil {
		return err
	}
	_, err := parseRules(o.Disable, allRules)
	return err
}

// validateCluster is clusterOptions.validate without -A needing objects
// named on the command line: --live reads every namespace by default.
func (o *UpgradeOptions) validateCluster() error {
	if !o.Cluster.Live && o.flags != nil {
		for _, name := range []string{"all-namespaces", "chunk-size", "namespace"} {
			if o.flags.Changed(name) {
				return usageErrorf("--%s applies to objects read with --live", name)
			}
		}
	}
	if o.Cluster.Flags != nil && o.Cluster.Flags.ChunkSize < 0 {
		return usageErrorf("--chunk-size must not be negative")
	}
	return nil
}

// Run reads both revisions, judges each pair and the objects, and reports.
func (o *UpgradeOptions) Run(ctx context.Context) error {
	set := o.resolved(o.validateOptions, report.Severity(o.FailOn), o.Disable)
	l := lint.New(lint.Options{Validate: set.Validate})
	rv := review.New(review.Options{Settings: set, Rules: allRules})
	res := report.Result{Rules: allRules, Findings: o.configFindings}
	// comments are the CRD files', for the findings positioned in them
	// later (object files are reviewed as they are replayed).
	comments := map[string]*review.Comments{}
	keep := func(files []read.File) {
		for _, f := range files {
			comments[f.Path] = rv.Read(f.Path, f.Data, 1)
		}
	}
	newCRDs, newFiles, err := read.CRDs(ctx, o.newArg, false, o.In, l, rv, &res)
	if err != nil {
		return inputError(err)
	}
	keep(newFiles)
	var oldCRDs []upgrade.CRD
	opts := upgrade.JudgeOptions{StoredVersions: o.StoredVersions, Validate: set.Validate, Objects: o.Output == report.JUnit, ConfigKinds: o.configKinds()}
	if o.Cluster.Live {
		opts.OldName = "the cluster"
		c, err := o.Cluster.connect()
		if err != nil {
			return err
		}
		if oldCRDs, err = read.LiveCRDs(ctx, c, l, newCRDs); err != nil {
			return clusterError(err)
		}
	} else {
		// What is tested is the upgrade of each CRD of NEW (JUnit's case
		// per object): OLD's CRDs are read and counted, not listed, so
		// that a finding positioned in OLD (a field removed) joins its
		// CRD's case in NEW.
		n := len(res.Summary.Checked)
		var oldFiles []read.File
		if oldCRDs, oldFiles, err = read.CRDs(ctx, o.oldArg, true, o.In, l, rv, &res); err != nil {
			return inputError(err)
		}
		keep(oldFiles)
		res.Summary.Checked = res.Summary.Checked[:n]
	}
	pairs, crdFindings := upgrade.Judge(l, oldCRDs, newCRDs, opts)
	if len(o.objects) > 0 {
		in, err := input.Open(o.objects, o.In, o.exclude())
		if err != nil {
			return inputError(err)
		}
		if err := read.Objects(ctx, in, pairs, rv, &res); err != nil {
			return inputError(err)
		}
	} else if o.Cluster.Live {
		c, err := o.Cluster.connect()
		if err != nil {
			return err
		}
		if err := read.LiveObjects(ctx, c, pairs, rv, &res); err != nil {
			return clusterError(err)
		}
	}
	changes, summaries := pairs.Report()
	crdFindings = append(crdFindings, changes...)
	res.Upgrades = summaries
	// The configuration and suppressions, file by file.
	byFile := map[string][]report.Finding{}
	var files []string
	for _, f := range crdFindings {
		if _, ok := byFile[f.File]; !ok {
			files = append(files, f.File)
		}
		byFile[f.File] = append(byFile[f.File], f)
	}
	for _, file := range files {
		res.Findings = append(res.Findings, rv.File(review.File{Name: file, Comments: comments[file], Findings: byFile[file]})...)
	}
	upgrade.CountBreaking(res.Upgrades, res.Findings)
	if err := rv.Finish(&res, nil); err != nil {
		return err
	}
	return o.sourceOptions.render(o.IOStreams, res, o.Output, rv, o.NoColor)
}
