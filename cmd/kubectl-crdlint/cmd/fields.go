package cmd

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apifields "k8s.io/apimachinery/pkg/fields"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fields"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// FieldsOptions lists selectable fields and filters objects by them.
type FieldsOptions struct {
	FieldSelector string
	Output        string
	OpenAPI       bool
	NoColor       bool
	Cluster       clusterOptions
	sourceOptions

	paths    []string
	flags    *pflag.FlagSet
	selector apifields.Selector
	builtins []fields.Listing
	genericiooptions.IOStreams
}

// NewCmdFields builds "fields".
func NewCmdFields(s genericiooptions.IOStreams) *cobra.Command {
	o := &FieldsOptions{Cluster: newClusterOptions(), IOStreams: s}
	c := &cobra.Command{
		Use:   "fields [--crd PATH]... [PATH|-|KIND]... | fields --live RESOURCE[/NAME]...",
		Short: "List selectable fields, their values per object, and filter with --field-selector offline",
		Long: `List the fields the API server lets clients select on with --field-selector:
metadata.name, metadata.namespace for namespaced kinds, and a CRD version's
selectableFields. Given custom resources, show the value the server would
compute for each field of each object (as stored on create: pruned and
defaulted), and with --field-selector keep only the objects that match, with
the server's grammar, semantics and errors. Given a built-in kind (pods, nodes,
jobs.batch, ...), list the field selectors the server accepts for it.

With --live the arguments are kubectl resource references read from the
cluster: CRDs (crds, crd/NAME) list their selectable fields, custom resources
(widgets.example.com, widgets.example.com/NAME; -n or -A) show their values,
judged under the cluster's CRD of their kind unless --crd gives one, and
--field-selector filters them offline with the server's semantics.`,
		Example: `  # Which fields of these CRDs are selectable?
  kubectl crdlint fields config/crd/

  # The values per object, and an offline --field-selector
  kubectl crdlint fields --crd config/crd/ samples/ --field-selector spec.color=red,metadata.namespace!=dev

  # Built-in kinds
  kubectl crdlint fields pods

  # Live CRDs and objects
  kubectl crdlint fields --live crd/widgets.example.com
  kubectl crdlint fields --live widgets.example.com -A --field-selector spec.color=red`,
		RunE: runOptions(o),
	}
	f := c.Flags()
	o.sourceOptions.addFlags(f, "A file, directory or https:// URL of CRDs, in addition to the CRDs among the inputs and the configuration's crds: (repeatable)")
	o.sourceOptions.Minor.addFlags(f)
	f.StringVar(&o.FieldSelector, "field-selector", "", "Keep only objects that match, as the server would (e.g. spec.color=red,metadata.name!=x)")
	f.StringVarP(&o.Output, "output", "o", "", "Output format: table (default), json, yaml or name (name, yaml and json print the matching objects)")
	f.BoolVar(&o.OpenAPI, "openapi", false, "Print the x-kubernetes-selectable-fields extension of each CRD version as the server publishes it in OpenAPI")
	f.BoolVar(&o.NoColor, "no-color", false, "Never colour the output (accepted by every command; fields prints no colour)")
	o.Cluster.addFlags(f, "Read the arguments from the cluster: resource references such as crds, crd/NAME, widgets.example.com or widgets.example.com/NAME (with -n or -A)", true)
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"table", "json", "yaml", "name"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// Complete splits the arguments into paths and built-in kinds.
func (o *FieldsOptions) Complete(c *cobra.Command, args []string) error {
	o.flags = c.Flags()
	if err := o.sourceOptions.complete(o.flags); err != nil {
		return err
	}
	if err := o.configErrors(); err != nil {
		return err
	}
	if o.Cluster.Live {
		o.paths = args
		return nil
	}
	for _, a := range args {
		if a == "-" {
			o.paths = append(o.paths, a)
			continue
		}
		if _, err := os.Stat(a); err == nil {
			o.paths = append(o.paths, a)
			continue
		}
		if k, ok := fields.LookupBuiltin(a); ok {
			o.builtins = append(o.builtins, k)
			continue
		}
		return usageErrorf("%s: no such file or directory, and not a built-in kind the server can select fields of", a)
	}
	return nil
}

// Validate rejects bad combinations, without I/O.
func (o *FieldsOptions) Validate() error {
	if err := o.Cluster.validate(o.flags); err != nil {
		return err
	}
	if o.Cluster.Live && len(o.paths) == 0 {
		return usageErrorf("--live needs resource references: e.g. crds, crd/NAME or widgets.example.com\nSee 'kubectl crdlint fields --help' for usage.")
	}
	if len(o.paths) == 0 && len(o.builtins) == 0 && len(o.CRDs) == 0 {
		return usageErrorf("no input: give CRDs or custom resources (files, directories, -), or a built-in kind\nSee 'kubectl crdlint fields --help' for usage.")
	}
	switch o.Output {
	case "", "table", "json", "yaml", "name":
	default:
		return usageErrorf("invalid output format %q: must be table, json, yaml or name", o.Output)
	}
	if len(o.builtins) > 0 && (len(o.paths) > 0 || len(o.CRDs) > 0) {
		return usageErrorf("give either built-in kinds or files, not both")
	}
	if len(o.builtins) > 0 && (o.FieldSelector != "" || o.OpenAPI) {
		return usageErrorf("built-in kinds are listed only: --field-selector and --openapi need CRDs")
	}
	if o.FieldSelector != "" {
		sel, err := fields.Parse(o.FieldSelector)
		if err != nil {
			return &UsageError{err}
		}
		o.selector = sel
	}
	return nil
}

// Run lists or filters.
func (o *FieldsOptions) Run(ctx context.Context) error {
	if len(o.builtins) > 0 {
		return fields.PrintBuiltins(o.Out, o.builtins, o.Output)
	}
	o.resolved(validateOptions{}, report.Error, nil)
	run, err := o.Cluster.open(ctx, o.Cluster.local(o.paths), &o.sourceOptions, o.IOStreams, false)
	if err != nil {
		return err
	}
	cat := run.Catalog
	col := fields.NewCollection(o.selector, func(notes []crd.Note) int { return o.reportMissing(o.ErrOut, notes) })
	files := make([]*fields.Objects, len(run.Inputs.Files))
	errs := make([]error, len(run.Inputs.Files))
	skipped := make([]string, len(run.Inputs.Files))
	err = run.Visit(ctx, input.Visitor{
		File: func(i int, _ []byte, f *source.File) error {
			files[i], errs[i] = fields.Collect(cat, f, o.selector)
			return nil
		},
		Skipped: func(i int, reason string) { skipped[i] = reason },
	})
	if err != nil {
		return inputError(err)
	}
	for _, why := range skipped {
		if why != "" {
			col.Skip(why)
		}
	}
	if err := col.Files(files, errs); err != nil {
		// A selector the server refuses fails the whole list request,
		// a usage error.
		return usageErrorAs[*fields.ErrSelector](err)
	}
	// What is no custom resource, in check's words, whatever is printed.
	defer func() {
		if s := col.Skips.SkippedText(); s != "" {
			fmt.Fprintln(o.ErrOut, s)
		}
	}()
	if o.Cluster.Live {
		c, err := o.Cluster.connect()
		if err != nil {
			return err
		}
		n, err := c.VisitFiles(ctx, o.paths, cat, col.Page(cat))
		if err != nil {
			return usageErrorAs[*fields.ErrSelector](clusterError(err))
		}
		if n == 0 {
			noResources(o.ErrOut, c, o.Cluster.Flags.AllNamespaces)
			return nil
		}
	}
	if col.Empty() {
		if o.FieldSelector != "" {
			return usageErrorf("--field-selector needs custom resources to filter")
		}
		if o.Cluster.Live {
			cat = col.CRDs
		}
		if cat.Len() == 0 {
			return usageErrorf("no CustomResourceDefinitions in the inputs")
		}
		return fields.PrintList(o.Out, fields.List(cat), o.Output, o.OpenAPI)
	}
	objs := col.Matched
	switch {
	case o.Output == "json" || o.Output == "yaml":
		// An empty List when nothing matches, as kubectl prints: a
		// script piping to jq reads a List either way.
		err = fields.PrintObjects(o.Out, objs, o.Output)
	case len(objs) == 0:
		fmt.Fprintln(o.ErrOut, "No resources found")
	case o.Output == "name":
		err = fields.PrintObjects(o.Out, objs, o.Output)
	default:
		err = fields.PrintValues(o.Out, objs)
	}
	if err == nil && col.Unserved > 0 {
		return errFindings
	}
	return err
}
