package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/cluster"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/suppress"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade"
)

// UpgradeOptions judges the upgrade of CRDs from one revision to another.
type UpgradeOptions struct {
	Output         report.Format
	FailOn         severityFlag
	NoColor        bool
	Disable        []string
	StoredVersions []string
	Cluster        clusterOptions
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
    and whether its stored version stays. CEL rule changes are judged on the
    objects.

OLD and NEW are CRD files or directories (several CRDs are paired by name),
or REV:PATH to read a file from a git revision of the current repository
(git show REV:PATH). OBJECTS are files or directories of custom resources
that exist today. Offline, status.storedVersions is OLD's own, else its
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

  # OLD's status.storedVersions when the file cannot say
  kubectl crdlint upgrade --stored-versions v1beta1,v1 old/widget.yaml new/widget.yaml

  # Against the cluster: its CRD, its stored versions and all its objects
  kubectl crdlint upgrade --live config/crd/widget.yaml`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Complete(c, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(c.Context())
		},
	}
	f := c.Flags()
	f.VarP(&o.Output, "output", "o", "Output format: "+strings.Join(report.FormatNames(), ", "))
	f.Var(&o.FailOn, "fail-on", "Exit 1 when a finding is at or above this severity: error, warning or none")
	f.BoolVar(&o.NoColor, "no-color", false, "Never colour the output (NO_COLOR is honoured too)")
	f.StringArrayVar(&o.Disable, "disable", nil, "Silence a rule by ID (repeatable)")
	f.StringVar(&o.ConfigFile, "config", "", "The configuration file (default: .crdlint.yaml in the working directory or the nearest parent, up to the repository's root)")
	f.BoolVar(&o.NoConfig, "no-config", false, "Ignore any configuration file")
	f.StringArrayVar(&o.Exclude, "exclude", nil, "Leave out object files matching this gitignore-style pattern (repeatable)")
	f.StringSliceVar(&o.StoredVersions, "stored-versions", nil, "OLD's status.storedVersions, comma-separated, for every CRD of OLD (default: the file's own status, else the storage version)")
	o.Cluster.addFlags(f, "Read OLD and its objects from the cluster: give NEW (and OBJECTS to replay those instead of the cluster's)", false)
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(report.FormatNames(), cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"error", "warning", "none"}, cobra.ShellCompDirectiveNoFileComp))
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
	_, err := parseRulesIn(o.Disable, catalogue)
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

// crdDoc is one CRD of OLD or NEW: its document and its decoding.
type crdDoc struct {
	doc *source.Document
	def *crd.Definition
}

// pair is a CRD of NEW with its OLD, and what the command found.
type pair struct {
	old, new crdDoc
	verdict  *crd.CRDVerdict
	replayer *upgrade.Replayer
	// refusedRules are the comparison rules the server's verdict reports
	// (upgrade.ServerRule): their changes are left out.
	refusedRules map[string]bool
}

// Run reads both revisions, judges each pair and the objects, and reports.
func (o *UpgradeOptions) Run(ctx context.Context) error {
	set := o.resolved(false, report.Severity(o.FailOn), o.Disable)
	l := lint.New(lint.Options{Disabled: set.Off()})
	res := report.Result{Rules: catalogue, Findings: o.configFindings}
	// suppressions are the inline suppressions of the CRD files, for the
	// findings positioned in them (object files apply theirs as they go).
	suppressions := map[string]*suppress.Set{}
	newCRDs, err := o.readCRDs(o.newArg, l, &res, suppressions)
	if err != nil {
		return err
	}
	var oldCRDs []crdDoc
	if o.Cluster.Live {
		oldCRDs, err = o.liveCRDs(ctx, newCRDs)
	} else {
		oldCRDs, err = o.readCRDs(o.oldArg, l, &res, suppressions)
	}
	if err != nil {
		return err
	}
	var crdFindings []report.Finding
	pairs := o.pairs(oldCRDs, newCRDs, &crdFindings)
	for _, p := range pairs {
		crdFindings = append(crdFindings, o.judgeCRD(l, p)...)
	}
	if len(o.objects) > 0 {
		if err := o.replayFiles(ctx, pairs, &res); err != nil {
			return err
		}
	} else if o.Cluster.Live {
		if err := o.replayLive(ctx, pairs, &res); err != nil {
			return err
		}
	}
	for _, p := range pairs {
		for _, c := range p.replayer.Changes() {
			if p.refusedRules[c.Rule] {
				continue
			}
			d := p.new.doc
			if c.InOld {
				d = p.old.doc
			}
			crdFindings = append(crdFindings, lint.At(d, c.Rule, c.Severity, c.Path, c.Message))
		}
		s := p.replayer.Summary()
		s.UpdateRefused = p.verdict.Rejected(false)
		res.Upgrades = append(res.Upgrades, s)
	}
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
		res.Findings = append(res.Findings, o.review(file, suppressions[file], byFile[file])...)
	}
	return render(o.IOStreams, res, o.Output, severityFlag(set.FailOn), o.NoColor)
}

// judgeCRD adds the server's verdict on the update to the findings and
// prepares the replay.
func (o *UpgradeOptions) judgeCRD(l *lint.Linter, p *pair) []report.Finding {
	if len(o.StoredVersions) > 0 {
		p.old.def.V1.Status.StoredVersions = o.StoredVersions
	}
	p.verdict = crd.ValidateUpdate(p.old.def, p.new.def)
	p.refusedRules = map[string]bool{}
	var out []report.Finding
	for _, f := range l.CRDUpdate(p.new.doc, p.new.def, p.verdict) {
		if r := upgrade.ServerRule(f.Field, f.Message); r != "" && f.Severity == report.Error {
			f.Rule = r
			p.refusedRules[r] = true
		}
		out = append(out, f)
	}
	p.replayer = upgrade.NewReplayer(p.old.def.V1, p.new.def.V1, upgrade.Options{StoredVersions: o.StoredVersions})
	return out
}

// pairs pairs OLD's CRDs with NEW's by name, in NEW's order; CRDs on one
// side only are reported.
func (o *UpgradeOptions) pairs(oldCRDs, newCRDs []crdDoc, findings *[]report.Finding) []*pair {
	byName := map[string]crdDoc{}
	for _, c := range oldCRDs {
		byName[c.def.Name()] = c
	}
	var out []*pair
	paired := map[string]bool{}
	for _, n := range newCRDs {
		name := n.def.Name()
		oc, ok := byName[name]
		if !ok {
			where := "OLD has no CRD " + name
			if o.Cluster.Live {
				where = "the cluster has no CRD " + name
			}
			*findings = append(*findings, lint.At(n.doc, upgrade.RuleCRDUnpaired, report.Warning, "metadata.name",
				where+": applying NEW installs it, there is nothing to upgrade"))
			continue
		}
		paired[name] = true
		out = append(out, &pair{old: oc, new: n})
	}
	for _, c := range oldCRDs {
		if !paired[c.def.Name()] {
			*findings = append(*findings, lint.At(c.doc, upgrade.RuleCRDUnpaired, report.Warning, "metadata.name",
				"NEW has no CRD "+c.def.Name()+": applying NEW leaves it as it is (deleting it would delete all its objects)"))
		}
	}
	return out
}

// readCRDs reads the CRDs of a revision argument: files, directories, or
// REV:PATH from git. Documents that are not CRDs are counted as skipped;
// CRDs that do not decode are reported as check reports them. Each file's
// inline suppressions go into suppressions.
func (o *UpgradeOptions) readCRDs(arg string, l *lint.Linter, res *report.Result, suppressions map[string]*suppress.Set) ([]crdDoc, error) {
	type read struct {
		f    *source.File
		data []byte
	}
	var files []read
	if rev, path, ok := gitRevision(arg); ok {
		data, err := gitShow(rev, path)
		if err != nil {
			return nil, err
		}
		files = append(files, read{source.Parse(arg, data), data})
	} else {
		in, err := input.Open([]string{arg}, o.In, nil)
		if err != nil {
			return nil, inputError(err)
		}
		for _, p := range in.Files {
			f, data, err := in.Read(p)
			if err != nil {
				return nil, inputError(err)
			}
			files = append(files, read{f, data})
		}
	}
	var out []crdDoc
	for _, r := range files {
		f := r.f
		suppressions[f.Path] = scan(f.Path, r.data)
		res.Summary.Files++
		res.Summary.Documents += f.Count
		var fs []report.Finding
		fs = append(fs, f.Findings...)
		for i := 0; i < f.Skipped; i++ {
			res.Summary.Skip(lint.SkipNotObject)
		}
		for _, fd := range crd.FindCRDs(f) {
			res.Summary.CRDs++
			if fd.Def == nil || fd.Def.V1 == nil {
				fs = append(fs, l.CRD(fd.Doc, fd.Def)...)
				continue
			}
			out = append(out, crdDoc{fd.Doc, fd.Def})
		}
		for _, d := range f.Documents {
			if !crd.IsCRD(d) {
				res.Summary.Skip("not a CRD")
			}
		}
		res.Findings = append(res.Findings, o.review(f.Path, suppressions[f.Path], fs)...)
	}
	if len(out) == 0 && res.Summary.Errors == 0 && len(res.Findings) == 0 {
		return nil, usageErrorf("%s: no CustomResourceDefinition found", arg)
	}
	return out, nil
}

// gitRevision splits REV:PATH, for an argument that is not a path on disk.
func gitRevision(arg string) (rev, path string, ok bool) {
	if arg == "-" {
		return "", "", false
	}
	if _, err := os.Stat(arg); err == nil {
		return "", "", false
	}
	rev, path, ok = strings.Cut(arg, ":")
	if !ok || rev == "" || path == "" {
		return "", "", false
	}
	return rev, path, true
}

// gitShow reads PATH at revision REV of the repository of the working
// directory, as crdify's git:// source does: git show REV:PATH.
func gitShow(rev, path string) ([]byte, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, usageErrorf("%s:%s: reading a file at a git revision needs git, which is not on PATH", rev, path)
	}
	cmd := exec.Command(git, "show", rev+":"+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		msg = strings.TrimPrefix(msg, "fatal: ")
		if msg == "" {
			msg = err.Error()
		}
		return nil, usageErrorf("cannot read %s at git revision %s: %s", path, rev, msg)
	}
	if bytes.HasPrefix(out, []byte("tree ")) {
		return nil, usageErrorf("cannot read %s at git revision %s: it is a directory; give a file", path, rev)
	}
	return out, nil
}

// liveCRDs reads from the cluster the CRD of each of NEW's, as OLD; a CRD
// the cluster lacks is reported by pairs.
func (o *UpgradeOptions) liveCRDs(ctx context.Context, newCRDs []crdDoc) ([]crdDoc, error) {
	c, err := o.Cluster.connect()
	if err != nil {
		return nil, err
	}
	var out []crdDoc
	for _, n := range newCRDs {
		var u *unstructured.Unstructured
		err := c.Visit(ctx, []string{"customresourcedefinitions.apiextensions.k8s.io/" + n.def.Name()}, func(page []*unstructured.Unstructured) error {
			u = page[0]
			return nil
		})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, clusterError(err)
		}
		f, _, err := c.File(u)
		if err != nil {
			return nil, err
		}
		for _, fd := range crd.FindCRDs(f) {
			if fd.Def != nil && fd.Def.V1 != nil {
				out = append(out, crdDoc{fd.Doc, fd.Def})
			}
		}
	}
	return out, nil
}

// replayFiles replays the custom resources of the object files, each
// with the pair whose OLD defines its kind.
func (o *UpgradeOptions) replayFiles(ctx context.Context, pairs []*pair, res *report.Result) error {
	in, err := input.Open(o.objects, o.In, o.exclude())
	if err != nil {
		return inputError(err)
	}
	byGK := pairsByKind(pairs)
	results := make([]fileResult, len(in.Files))
	err = input.Parallel(ctx, len(in.Files), func(i int) error {
		r := &results[i]
		if in.Skip[i] != "" {
			r.sum.Skip(in.Skip[i])
			return nil
		}
		f, data, err := in.Read(in.Files[i])
		if err != nil {
			return err
		}
		r.sum.Documents = f.Count
		for j := 0; j < f.Skipped; j++ {
			r.sum.Skip(lint.SkipNotObject)
		}
		fs := append([]report.Finding{}, f.Findings...)
		for _, d := range f.Documents {
			more, ok := replayDoc(d, byGK, false, nil)
			if ok {
				r.sum.CustomResources++
			} else {
				r.sum.Skip("not a custom resource")
			}
			fs = append(fs, more...)
		}
		r.findings = o.review(f.Path, scan(f.Path, data), fs)
		return nil
	})
	if err != nil {
		return inputError(err)
	}
	for i := range results {
		results[i].addTo(res, &res.Summary.Files)
	}
	return nil
}

func pairsByKind(pairs []*pair) map[schema.GroupKind]*pair {
	m := map[schema.GroupKind]*pair{}
	for _, p := range pairs {
		c := p.old.def.V1
		m[schema.GroupKind{Group: c.Spec.Group, Kind: c.Spec.Names.Kind}] = p
	}
	return m
}

// replayDoc replays one document; ok is false for a document that is not
// a custom resource (skipped).
func replayDoc(d *source.Document, byGK map[schema.GroupKind]*pair, stored bool, writtenIn []string) ([]report.Finding, bool) {
	if !crd.IsCustomResource(d) {
		return nil, false
	}
	gk := crd.GVK(d).GroupKind()
	p := byGK[gk]
	if p == nil {
		return []report.Finding{lint.At(d, upgrade.RuleObjectNotReplayed, report.Warning, "kind",
			fmt.Sprintf("no CRD of OLD defines kind %s: the object is not replayed", gk))}, true
	}
	obj, ok := d.TakeValue()
	if !ok {
		if err := utiljson.Unmarshal(d.JSON, &obj); err != nil {
			return []report.Finding{lint.At(d, upgrade.RuleObjectNotReplayed, report.Warning, "", "the object does not decode: "+err.Error())}, true
		}
	}
	r := p.replayer.Replay(upgrade.Object{Value: obj, Stored: stored, WrittenIn: writtenIn})
	out := make([]report.Finding, 0, len(r.Outcomes))
	for _, oc := range r.Outcomes {
		out = append(out, lint.At(d, oc.Rule, oc.Severity, oc.Field, oc.Message))
	}
	return out, true
}

// replayLive replays every stored object of each pair's CRD, a page at a
// time: read in OLD's storage version when OLD serves it (what storage
// holds, converted by the server itself), in every namespace unless -n
// says one.
func (o *UpgradeOptions) replayLive(ctx context.Context, pairs []*pair, res *report.Result) error {
	c, err := o.Cluster.connect()
	if err != nil {
		return err
	}
	byGK := pairsByKind(pairs)
	for _, p := range pairs {
		ref := liveRef(p.old.def)
		var mu sync.Mutex
		err := c.Visit(ctx, []string{ref}, func(page []*unstructured.Unstructured) error {
			files, _, err := c.Files(page)
			if err != nil {
				return err
			}
			results := make([]fileResult, len(files))
			input.Parallel(ctx, len(files), func(i int) error {
				var fs []report.Finding
				written := writtenIn(page[i])
				for _, d := range files[i].Documents {
					f, _ := replayDoc(d, byGK, true, written)
					fs = append(fs, f...)
				}
				results[i] = fileResult{findings: o.review(files[i].Path, nil, fs), sum: report.Summary{Documents: files[i].Count, CustomResources: len(files[i].Documents)}}
				return nil
			})
			mu.Lock()
			defer mu.Unlock()
			for i := range results {
				results[i].addTo(res, &res.Summary.Objects)
			}
			return ctx.Err()
		})
		if err != nil {
			var ce *cluster.Error
			if errors.As(err, &ce) {
				return &UsageError{ce}
			}
			return err
		}
	}
	res.Summary.Live = true
	return nil
}

// writtenIn are the versions of its own group an object's managers
// wrote it in (managedFields), sorted: the versions its clients use.
func writtenIn(u *unstructured.Unstructured) []string {
	group := u.GroupVersionKind().Group
	var out []string
	for _, m := range u.GetManagedFields() {
		gv, err := schema.ParseGroupVersion(m.APIVersion)
		if err == nil && gv.Group == group && !slices.Contains(out, gv.Version) {
			out = append(out, gv.Version)
		}
	}
	slices.Sort(out)
	return out
}

// liveRef is the resource reference that lists a CRD's objects in its
// storage version (RESOURCE.VERSION.GROUP), or its preferred served one
// when the storage version is not served.
func liveRef(def *crd.Definition) string {
	c := def.V1
	version := ""
	for _, v := range c.Spec.Versions {
		if v.Storage && v.Served {
			version = v.Name
		}
	}
	if version == "" {
		return c.Spec.Names.Plural + "." + c.Spec.Group
	}
	return c.Spec.Names.Plural + "." + version + "." + c.Spec.Group
}

// parseRulesIn reads --disable's values against a catalogue.
func parseRulesIn(values []string, rules []report.Rule) (map[string]bool, error) {
	known := map[string]bool{}
	for _, r := range rules {
		known[r.ID] = true
	}
	out := map[string]bool{}
	for _, v := range values {
		for _, id := range strings.Split(v, ",") {
			id = strings.TrimSpace(id)
			if !known[id] {
				return nil, usageErrorf("--disable: unknown rule %q", id)
			}
			out[id] = true
		}
	}
	return out, nil
}
