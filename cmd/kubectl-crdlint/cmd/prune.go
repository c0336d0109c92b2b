package cmd

import (
	"context"
	"errors"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/prune"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// PruneOptions prints custom resources as the server would store them.
type PruneOptions struct {
	Defaults bool
	Output   string
	DryRun   bool
	InPlace  bool
	NoColor  bool
	Cluster  clusterOptions
	sourceOptions

	paths []string
	flags *pflag.FlagSet
	genericiooptions.IOStreams
}

// NewCmdPrune builds "prune".
func NewCmdPrune(s genericiooptions.IOStreams) *cobra.Command {
	o := &PruneOptions{Output: "yaml", Cluster: newClusterOptions(), IOStreams: s}
	c := &cobra.Command{
		Use:   "prune [--crd PATH]... [PATH|-]... | prune --live RESOURCE[/NAME]...",
		Short: "Print custom resources as the API server would store them after pruning",
		Long: `Print each custom resource as the API server would store it: every field its
CRD's structural schema does not specify is pruned, exactly as the server's
pruning library does it (metadata is pruned to ObjectMeta's fields, embedded
resources alike; x-kubernetes-preserve-unknown-fields keeps subtrees). With
--defaults the schema's defaults are applied too, as the server does after
pruning.

YAML output keeps the input's key order, comments and style for everything that
is kept; JSON input gives JSON output. Documents that cannot be pruned (no CRD,
built-in kinds) are reported on stderr and left out.

--dry-run shows a unified diff per file of what would be dropped (and, with
--defaults, added) and exits 1 when anything would change; --in-place
rewrites the files (atomically), leaving unchanged files untouched. Nothing
else ever writes. A custom resource whose CRD is not found, or whose version
the CRD does not serve, is an error (exit 1) unless --missing-crds (or
missingCRDs: in the configuration file) relaxes a missing CRD.

With --live the arguments are kubectl resource references (widgets.example.com,
widgets.example.com/NAME, short names; -n or -A) read from the cluster, a page
at a time: what would a new revision given with --crd prune from the stored
objects? Without --crd, the cluster's CRD of each kind is used.`,
		Example: `  # What would the server keep of these objects?
  kubectl crdlint prune --crd config/crd/ config/samples/

  # Fail CI when any sample carries fields the server would drop
  kubectl crdlint prune --dry-run --crd config/crd/ config/samples/

  # Remove them from the files
  kubectl crdlint prune --in-place --crd config/crd/ config/samples/

  # What would a new CRD revision prune from the objects stored in the cluster?
  kubectl crdlint prune --dry-run --live widgets.example.com -A --crd new-crd.yaml`,
		RunE: runOptions(o),
	}
	f := c.Flags()
	o.sourceOptions.addFlags(f, "A file, directory or https:// URL of CRDs, in addition to the CRDs among the inputs and the configuration's crds: (repeatable)")
	o.sourceOptions.Minor.addFlags(f)
	f.BoolVar(&o.Defaults, "defaults", false, "Apply the schema's defaults too, as the server does after pruning")
	f.StringVarP(&o.Output, "output", "o", o.Output, "Output format: yaml or json (a v1 List)")
	f.BoolVar(&o.DryRun, "dry-run", false, "Print a unified diff of what would be pruned (and defaulted, with --defaults), per file; exit 1 when anything would change")
	f.BoolVar(&o.InPlace, "in-place", false, "Rewrite the files in place (atomically), keeping comments and key order")
	f.BoolVar(&o.NoColor, "no-color", false, "Never colour the diff (NO_COLOR is honoured too)")
	o.Cluster.addFlags(f, "Read the arguments from the cluster: resource references such as widgets.example.com or widgets.example.com/NAME (with -n or -A)", true)
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"yaml", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// Complete takes the positional arguments.
func (o *PruneOptions) Complete(c *cobra.Command, args []string) error {
	o.paths = args
	o.flags = c.Flags()
	if err := o.sourceOptions.complete(o.flags); err != nil {
		return err
	}
	return o.configErrors()
}

// Validate rejects bad combinations, without I/O.
func (o *PruneOptions) Validate() error {
	if err := o.Cluster.validate(o.flags); err != nil {
		return err
	}
	if o.Cluster.Live {
		if len(o.paths) == 0 {
			return usageErrorf("--live needs resource references: e.g. widgets.example.com or widgets.example.com/NAME\nSee 'kubectl crdlint prune --help' for usage.")
		}
		if o.InPlace {
			return usageErrorf("--in-place rewrites files; objects read with --live are never written back (use --dry-run, or -o yaml and kubectl apply)")
		}
	}
	if len(o.paths) == 0 {
		return usageErrorf("no input: give files, directories, or - for stdin\nSee 'kubectl crdlint prune --help' for usage.")
	}
	if o.Output != "yaml" && o.Output != "json" {
		return usageErrorf("invalid output format %q: must be yaml or json", o.Output)
	}
	if o.DryRun && o.InPlace {
		return usageErrorf("--dry-run and --in-place cannot be used together")
	}
	for _, p := range o.paths {
		if p == "-" && o.InPlace {
			return usageErrorf("--in-place cannot rewrite stdin")
		}
	}
	return nil
}

// Run prunes and prints.
func (o *PruneOptions) Run(ctx context.Context) error {
	o.resolved(validateOptions{}, report.Error, nil)
	run, err := o.Cluster.open(ctx, o.Cluster.local(o.paths), &o.sourceOptions, o.IOStreams, false)
	if err != nil {
		return err
	}
	format := prune.YAML
	switch {
	case o.DryRun:
		format = prune.Diff
	case o.Output == "json":
		format = prune.List
	}
	out := &prune.Output{Printer: prune.NewPrinter(o.Out, format, useColor(o.Out, o.NoColor)), InPlace: o.InPlace, ErrOut: o.ErrOut, Notes: o.notes}
	opts := prune.Options{Defaults: o.Defaults}
	if o.Cluster.Live {
		if err := run.Done(); err != nil {
			return inputError(err)
		}
		if err := o.pruneLive(ctx, run.Catalog, opts, out); err != nil {
			return err
		}
		return o.finish(out)
	}
	results := make([]*prune.Result, len(run.Inputs.Files))
	skipped := make([]string, len(run.Inputs.Files))
	err = run.Visit(ctx, input.Visitor{
		File: func(i int, data []byte, f *source.File) error {
			opts := opts
			opts.JSON = prune.IsJSON(f.Path)
			results[i] = prune.File(run.Catalog, f, data, opts)
			return nil
		},
		Skipped: func(i int, reason string) { skipped[i] = reason },
	})
	if err != nil {
		return inputError(err)
	}
	for _, why := range skipped {
		if why != "" {
			out.Skip(why)
		}
	}
	if err := out.Emit(results); err != nil {
		// A file --in-place cannot rewrite is an input error.
		return usageErrorAs[*prune.WriteError](err)
	}
	return o.finish(out)
}

// pruneLive prunes the objects the references name, a page at a time.
func (o *PruneOptions) pruneLive(ctx context.Context, cat *crd.Catalog, opts prune.Options, out *prune.Output) error {
	c, err := o.Cluster.connect()
	if err != nil {
		return err
	}
	n, err := out.Live(ctx, cat, opts, input.Parallel, func(fn func([]*source.File, [][]byte) error) (int, error) {
		return c.VisitFiles(ctx, o.paths, cat, fn)
	})
	if err == nil && n == 0 {
		noResources(o.ErrOut, c, o.Cluster.Flags.AllNamespaces)
	}
	var ie *prune.IncompleteError
	if errors.As(err, &ie) {
		return &UsageError{ie}
	}
	return clusterError(err)
}

// notes says on stderr why documents were left out, counting the errors.
func (o *PruneOptions) notes(notes []crd.Note) int { return o.reportMissing(o.ErrOut, notes) }

// finish ends the output; a dry run that would prune anything exits 1.
func (o *PruneOptions) finish(out *prune.Output) error {
	if err := out.Close(); err != nil {
		return err
	}
	if out.Failed > 0 {
		what := "files"
		if o.Cluster.Live {
			what = "objects"
		}
		return usageErrorf("%d of %d %s could not be pruned", out.Failed, out.Files, what)
	}
	if out.Unserved > 0 || o.DryRun && out.Changed() {
		return errFindings
	}
	return nil
}
