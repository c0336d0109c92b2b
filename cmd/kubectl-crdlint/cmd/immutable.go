package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/cluster"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/immutable"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/review"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// ImmutableOptions judges the update from one revision to another.
type ImmutableOptions struct {
	ToCEL   bool
	Output  report.Format
	FailOn  severityFlag
	NoColor bool
	Cluster clusterOptions
	validateOptions
	sourceOptions

	oldPath, newPath string
	toCEL            []string
	flags            *pflag.FlagSet
	// defaultNS is the namespace of NEW's objects that name none: kubectl
	// apply's context namespace with --live, else "default".
	defaultNS string
	genericiooptions.IOStreams
}

// NewCmdImmutable builds "immutable".
func NewCmdImmutable(s genericiooptions.IOStreams) *cobra.Command {
	o := &ImmutableOptions{Output: report.Text, FailOn: severityFlag(report.Error), Cluster: newClusterOptions(), defaultNS: crd.DefaultNamespace, IOStreams: s}
	c := &cobra.Command{
		Use:   "immutable [--crd PATH]... OLD NEW | immutable --live NEW | immutable --to-cel CRD...",
		Short: "Tell whether the update from revision OLD to revision NEW would be refused",
		Long: `Pair the custom resources of OLD and NEW (files or directories) by apiVersion,
kind, namespace and name, and judge each update as the API server would: both
revisions as stored (pruned and defaulted), CEL transition rules (oldSelf) with
the server's library and budget, ratcheting, and every other update check.
Objects only in OLD or only in NEW are reported. Findings point into NEW.

With --live, give only NEW: OLD is each object's live counterpart in the
cluster (same kind, namespace and name; NEW's objects without a namespace are
in -n's or the context's, as kubectl would put them), and the update replaces
it with NEW as written (a PUT, as kubectl replace; fields NEW leaves out are
removed), judged under the cluster's CRD of its kind unless --crd or NEW gives
one. A live object of a version the cluster does not serve yet is read in a
served one and converted as the CRD's None strategy does. Objects not in the
cluster are reported as creates.

With --to-cel, print the given CRDs with every x-kubernetes-mutability and
x-kubernetes-key-mutability marker replaced by equivalent CEL transition rules,
which real API servers enforce; a marker CEL cannot express exactly (or only
over the cost budget, naming the maxItems/maxLength that would fix it) is an
error, never a weaker rule.

Exit code 0: every update would be accepted; 1: findings at or above --fail-on
(or a marker --to-cel cannot translate); 2: usage or input error.`,
		Example: `  # Would applying the new revision be refused?
  kubectl crdlint immutable --crd config/crd/ old/widget.yaml new/widget.yaml

  # Would replacing what the cluster stores with these objects be refused?
  kubectl crdlint immutable --live config/samples/

  # Make a real cluster enforce the markers
  kubectl crdlint immutable --to-cel config/crd/widget.yaml > widget-cel.yaml`,
		RunE: runOptions(o),
	}
	f := c.Flags()
	o.sourceOptions.addFlags(f, "A file, directory or https:// URL of CRDs (repeatable); CRDs among OLD and NEW count too, the one nearest an object judging it")
	o.sourceOptions.Minor.addFlags(f)
	f.BoolVar(&o.ToCEL, "to-cel", false, "Print the CRDs with their markers replaced by CEL transition rules that real servers enforce")
	f.VarP(&o.Output, "output", "o", "Output format: "+strings.Join(report.FormatNames(), ", "))
	f.Var(&o.FailOn, "fail-on", "Exit 1 when a finding is at or above this severity: error, warning or none")
	f.BoolVar(&o.NoColor, "no-color", false, "Never colour the output (NO_COLOR is honoured too)")
	o.validateOptions.addFlags(f)
	o.Cluster.addFlags(f, "Read OLD from the cluster: give only NEW, each object's live counterpart is its old revision", true)
	completeValidate(c)
	return c
}

// Complete takes the positional arguments: OLD and NEW, NEW alone with
// --live, or the CRDs of --to-cel.
func (o *ImmutableOptions) Complete(c *cobra.Command, args []string) error {
	o.flags = c.Flags()
	if err := o.sourceOptions.complete(o.flags); err != nil {
		return err
	}
	switch {
	case o.ToCEL:
		o.toCEL = args
	case o.Cluster.Live && len(args) == 1:
		o.newPath = args[0]
	case !o.Cluster.Live && len(args) == 2:
		o.oldPath, o.newPath = args[0], args[1]
	case o.Cluster.Live:
		return usageErrorf("accepts 1 arg(s) with --live, received %d: give NEW; OLD is read from the cluster", len(args))
	default:
		return usageErrorf("accepts 2 arg(s), received %d: give OLD and NEW", len(args))
	}
	return nil
}

// Validate rejects bad combinations, without I/O.
func (o *ImmutableOptions) Validate() error {
	if o.ToCEL {
		if len(o.toCEL) == 0 {
			return usageErrorf("--to-cel needs CRD files or directories")
		}
		return nil
	}
	return o.Cluster.validate(o.flags)
}

// Run pairs and judges (or translates, with --to-cel).
func (o *ImmutableOptions) Run(ctx context.Context) error {
	if o.ToCEL {
		return o.runToCEL()
	}
	paths := []string{o.oldPath, o.newPath}
	if o.Cluster.Live {
		paths = paths[1:]
	}
	// Both revisions are one run: --crd's CRDs and theirs judge the
	// objects, NEW's objects by the one nearest them (NEW's own, in its
	// file or tree; crd/judge.go).
	set := o.resolved(o.validateOptions, report.Severity(o.FailOn), nil)
	// An update presupposes its object, hence its CRD, exists: the CRD is
	// installed whatever its own unknown fields (the Immutable Fields
	// markers, say) would do to a strict create of it, so it is judged as
	// accepted (Warn); --validate applies to the updates' bodies, NEW.
	run, err := o.Cluster.open(ctx, paths, &o.sourceOptions, o.IOStreams, false)
	if err != nil {
		return err
	}
	files := make([]*source.File, len(run.Inputs.Files))
	skipped := make([]string, len(run.Inputs.Files))
	err = eachInput(ctx, run, func(i int, in *input.Judging) {
		files[i], skipped[i] = in.File, in.Skipped
	})
	if err != nil {
		return inputError(err)
	}
	config := run.Catalog.ConfigKinds()
	oldRev, newRev := lint.NewRevision(config), lint.NewRevision(config)
	for i, f := range files {
		rev := oldRev
		if run.Inputs.Arg[i] == len(paths)-1 {
			rev = newRev
		}
		if skipped[i] != "" {
			rev.Skip(skipped[i])
			continue
		}
		rev.Add(f)
	}
	if o.Cluster.Live {
		oldRev, err = o.liveRevision(ctx, run.Catalog, newRev)
		if err != nil {
			return err
		}
	}
	l := lint.New(lint.Options{Validate: set.Validate, Catalog: run.Catalog, MissingCRDs: o.missing()})
	res := report.Result{Rules: allRules, Summary: lint.UpdateSummary(oldRev, newRev, o.Cluster.Live)}
	rv := review.New(review.Options{Settings: set, Rules: allRules})
	res.Findings = append(o.configFindings, rv.File(review.File{Findings: l.Updates(oldRev, newRev, o.defaultNS)})...)
	if err := rv.Finish(&res, nil); err != nil {
		return err
	}
	return o.sourceOptions.render(o.IOStreams, res, o.Output, rv, o.NoColor)
}

// liveRevision reads the old revision of NEW's objects from the cluster:
// each object's live counterpart, in the namespace kubectl would put it.
func (o *ImmutableOptions) liveRevision(ctx context.Context, cat *crd.Catalog, newRev *lint.Revision) (*lint.Revision, error) {
	c, err := o.Cluster.connect()
	if err != nil {
		return nil, err
	}
	o.defaultNS = c.Namespace()
	fetch := cluster.NewCRDFetcher(c, cat)
	r, err := lint.Counterparts(newRev, func(k lint.PairKey, nd *source.Document) (*source.Document, error) {
		if err := fetch.EnsureDocs(ctx, []*source.Document{nd}); err != nil {
			return nil, err
		}
		return c.Counterpart(ctx, cat, nd, k.Namespace)
	})
	var ce *cluster.ConversionError
	if errors.As(err, &ce) {
		return nil, &UsageError{ce}
	}
	return r, clusterError(err)
}

// runToCEL prints each CRD of the inputs translated; CRDs without markers
// print unchanged in meaning.
func (o *ImmutableOptions) runToCEL() error {
	in, err := input.Open(o.toCEL, o.In, nil)
	if err != nil {
		return inputError(err)
	}
	failed, first := 0, true
	for i, p := range in.Files {
		if in.Skip[i] == source.SkipVendored {
			continue // another project's copy, as check skips it
		}
		f, _, err := in.Read(p)
		if err != nil {
			return inputError(err)
		}
		ts, err := immutable.ToCELFile(f)
		for _, t := range ts {
			if t.Err != nil {
				fmt.Fprintf(o.ErrOut, "%s:%d:%d: error: %v\n", t.Doc.File, t.Doc.Root.Line, t.Doc.Root.Column, t.Err)
				failed++
				continue
			}
			if !first {
				if _, err := fmt.Fprintln(o.Out, "---"); err != nil {
					return err
				}
			}
			first = false
			if _, err := o.Out.Write(t.YAML); err != nil {
				return err // a full disk: the output stops short
			}
		}
		if err != nil {
			return err
		}
	}
	if failed > 0 {
		return errFindings
	}
	return nil
}
