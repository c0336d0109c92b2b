package cmd

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/gcpace"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/check"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/cluster"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/review"
)

// CheckOptions lints files and directories.
type CheckOptions struct {
	Output report.Format
	FailOn severityFlag
	validateOptions
	Disable   []string
	NoColor   bool
	ListRules bool
	CELCosts  bool
	// NoCache turns the verdict cache off.
	NoCache bool
	// Baseline reports only findings not in this file; WriteBaseline
	// records today's findings in it.
	Baseline, WriteBaseline string
	// Kustomize are kustomization directories rendered in-process, as
	// kubectl apply -k renders them.
	Kustomize []string
	// MaxDocumentSize bounds one document of a file (0: 64 MiB).
	MaxDocumentSize int
	Cluster         clusterOptions
	sourceOptions

	paths []string
	flags *pflag.FlagSet
	genericiooptions.IOStreams
}

// NewCmdCheck builds "check".
func NewCmdCheck(s genericiooptions.IOStreams) *cobra.Command {
	o := &CheckOptions{Output: report.Text, FailOn: severityFlag(report.Error), Cluster: newClusterOptions(), IOStreams: s}
	c := &cobra.Command{
		Use:   "check [PATH|-]... | check --live RESOURCE[/NAME]...",
		Short: "Tell whether the API server would accept each CRD and custom resource, and why not",
		Long: `Check CustomResourceDefinitions and custom resources in files, directories
(recursively: .yaml, .yml, .json; hidden directories skipped, and vendor/ and
node_modules/ skipped and counted, unless named) or stdin (-),
exactly as the API server validates a create, and report every problem at
its file:line:column. Custom resources are validated against the CRDs among
the inputs and those given with --crd.

With --live the arguments are kubectl resource references read from the
cluster (crds, crd/NAME, widgets.example.com, widgets.example.com/NAME, short
and singular names; -n or -A), judged as creates of the objects as stored,
against the cluster's CRD of their kind unless --crd gives a (new) revision.
Lines and columns then refer to the object as 'kubectl get -o yaml' prints it,
named cluster/NAMESPACE/RESOURCE/NAME. With --crd-from-cluster, local custom
resources are validated against the cluster's CRDs too. The kubectl
connection flags (--kubeconfig, --context, ...) and KUBECONFIG apply; nothing
touches the network without --live or --crd-from-cluster.

Documents that are not Kubernetes objects and kinds built into the server are
skipped and counted. Exit code 0: clean; 1: findings at or above --fail-on;
2: usage or input error.`,
		Example: `  # Lint every CRD of a repository
  kubectl crdlint check config/crd/

  # Validate custom resources against CRDs kept elsewhere
  kubectl crdlint check --crd config/crd/ config/samples/

  # Lint rendered manifests, failing on warnings too
  helm template ./chart | kubectl crdlint check --fail-on warning -

  # Annotate a pull request from GitHub Actions
  kubectl crdlint check -o github deploy/

  # Lint the CRDs installed in the current cluster
  kubectl crdlint check --live crds

  # Validate local custom resources against the cluster's CRDs
  kubectl crdlint check --crd-from-cluster config/samples/

  # Which stored widgets would a new revision of their CRD reject?
  kubectl crdlint check --live widgets.example.com -A --crd new-crd.yaml`,
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
	o.validateOptions.addFlags(f)
	f.StringArrayVar(&o.Disable, "disable", nil, "Silence a rule by ID (repeatable); see --list-rules")
	f.BoolVar(&o.NoColor, "no-color", false, "Never colour the output (NO_COLOR is honoured too)")
	o.sourceOptions.addFlags(f, "A file, directory or https:// URL of CRDs to validate custom resources against, in addition to the CRDs among the inputs and the configuration's crds: (repeatable)")
	o.sourceOptions.Minor.addFlags(f)
	f.BoolVar(&o.NoCache, "no-cache", false, "Neither read nor write the verdict cache (findings of unchanged files whose CRDs did not change, kept in --cache-dir's verdicts directory)")
	f.StringVar(&o.Baseline, "baseline", "", "Report only findings not recorded in this baseline file (see --write-baseline)")
	f.StringVar(&o.WriteBaseline, "write-baseline", "", "Record today's findings in this baseline file, to report only new ones later with --baseline")
	f.IntVar(&o.MaxDocumentSize, "max-document-size", 0, "The largest document read, in bytes (default 64 MiB); a larger one is a finding, and a file may hold any number of documents")
	f.StringArrayVarP(&o.Kustomize, "kustomize", "k", nil, "Render this kustomization directory as kubectl apply -k does and check the result; findings point into the files the objects came from (repeatable)")
	f.BoolVar(&o.ListRules, "list-rules", false, "List every rule with its ID, default severity and description, then exit")
	f.BoolVar(&o.CELCosts, "cel-costs", false, "Print the server's estimated cost of every CEL expression and its share of both budgets, then exit")
	o.Cluster.addFlags(f, "Read the arguments from the cluster: resource references such as crds, crd/NAME, widgets.example.com or widgets.example.com/NAME (with -n or -A)", true)
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(report.FormatNames(), cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"error", "warning", "none"}, cobra.ShellCompDirectiveNoFileComp))
	completeValidate(c)
	_ = c.RegisterFlagCompletionFunc("disable", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		ids := make([]string, 0, len(lint.Rules))
		for _, r := range lint.Rules {
			ids = append(ids, r.ID+"\t"+r.Doc)
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	})
	return c
}

// Complete takes the positional arguments and resolves the flags over
// the configuration file.
func (o *CheckOptions) Complete(c *cobra.Command, args []string) error {
	o.paths = args
	o.flags = c.Flags()
	if o.ListRules {
		return nil
	}
	return o.sourceOptions.complete(o.flags)
}

// Validate rejects bad combinations, without I/O.
func (o *CheckOptions) Validate() error {
	if o.ListRules {
		return nil
	}
	if err := o.Cluster.validate(o.flags); err != nil {
		return err
	}
	if o.Cluster.Live {
		if len(o.paths) == 0 {
			return usageErrorf("--live needs resource references: e.g. crds, crd/NAME or widgets.example.com\nSee 'kubectl crdlint check --help' for usage.")
		}
		if o.CELCosts {
			return usageErrorf("--cel-costs reads CRD files; it cannot be combined with --live")
		}
	} else if len(o.paths) == 0 && len(o.Kustomize) == 0 {
		return usageErrorf("no input: give files, directories, - for stdin, or -k DIR\nSee 'kubectl crdlint check --help' for usage.")
	}
	if err := stdinOnce(o.paths); err != nil {
		return err
	}
	if _, err := parseRules(o.Disable, allRules); err != nil {
		return err
	}
	if o.Baseline != "" && o.WriteBaseline != "" {
		return usageErrorf("--baseline and --write-baseline cannot be used together")
	}
	if o.CELCosts && o.Output != report.Text && o.Output != report.JSON {
		return usageErrorf("--cel-costs prints text or json, not %s", o.Output)
	}
	return nil
}

// Run lints and reports.
func (o *CheckOptions) Run(ctx context.Context) error {
	if o.ListRules {
		return o.listRules()
	}
	if o.CELCosts {
		return o.celCosts()
	}
	set := o.resolved(o.validateOptions, report.Severity(o.FailOn), o.Disable)
	run, err := o.Cluster.open(ctx, o.Cluster.local(o.paths), &o.sourceOptions, o.IOStreams, set.Validate.Refuses())
	if err != nil {
		return err
	}
	baseline := set.Baseline
	if baseline == "" {
		baseline = o.Baseline
	}
	rv := review.New(review.Options{
		Settings:      set,
		Rules:         allRules,
		Baseline:      baseline,
		WriteBaseline: o.WriteBaseline,
		Notices:       o.ErrOut,
		ListFixed:     o.Output == report.Text,
	})
	opts := check.Options{
		Validate:        set.Validate,
		Missing:         o.missing(),
		MaxDocumentSize: o.MaxDocumentSize,
		Review:          rv,
		Findings:        o.configFindings,
		CacheDir:        o.CacheDir,
		NoCache:         o.NoCache,
		ClusterCRDs:     o.Cluster.Live || o.Cluster.CRDFromCluster,
		Kustomize:       o.Kustomize,
		Notices:         o.ErrOut,
		Objects:         o.Output == report.JUnit,
	}
	var live *cluster.Client
	if o.Cluster.Live {
		if live, err = o.Cluster.connect(); err != nil {
			return err
		}
	}
	res, err := o.check(ctx, run, opts, live)
	var we *review.WriteError
	if errors.As(err, &we) {
		return &UsageError{we.Err}
	} else if err != nil {
		return clusterError(inputError(err))
	}
	return o.sourceOptions.render(o.IOStreams, res, o.Output, rv, o.NoColor)
}

// check is the run, its stages in order (check.Checker): the CRDs
// linted at the collector's pace for CRDs (internal/gcpace: check
// changes it when it judges its first custom resource), the inputs
// judged with a progress line on a terminal, the live objects, the
// result.
func (o *CheckOptions) check(ctx context.Context, run *input.Run, opts check.Options, live *cluster.Client) (report.Result, error) {
	gcpace.CRDs()
	c, err := check.New(run, opts)
	if err != nil {
		return report.Result{}, err
	}
	defer c.Close()
	prog := newProgress(o.ErrOut, o.Output == report.Text)
	prog.Start(c.Files(), c.Progress)
	err = c.CRDs(ctx)
	if err == nil {
		err = c.Inputs(ctx)
	}
	prog.Stop()
	if err != nil {
		return report.Result{}, err
	}
	if live != nil {
		n, err := c.Live(ctx, live, o.paths)
		if err != nil {
			return report.Result{}, err
		}
		if n == 0 {
			noResources(o.ErrOut, live, o.Cluster.Flags.AllNamespaces)
		}
	}
	return c.Finish()
}

func (o *CheckOptions) listRules() error {
	return report.RenderRules(o.Out, allRules, o.Output)
}
