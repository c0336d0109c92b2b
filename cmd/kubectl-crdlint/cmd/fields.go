package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	apifields "k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/cluster"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fields"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// FieldsOptions lists selectable fields and filters objects by them.
type FieldsOptions struct {
	CRDs          []string
	FieldSelector string
	Output        string
	OpenAPI       bool
	Cluster       clusterOptions

	paths    []string
	flags    *pflag.FlagSet
	selector apifields.Selector
	// seen counts custom resources read, matching or not.
	seen     int
	builtins []fields.BuiltinKind
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
	f.StringArrayVar(&o.CRDs, "crd", nil, "A file or directory of CRDs, in addition to the CRDs among the inputs (repeatable)")
	f.StringVar(&o.FieldSelector, "field-selector", "", "Keep only objects that match, as the server would (e.g. spec.color=red,metadata.name!=x)")
	f.StringVarP(&o.Output, "output", "o", "", "Output format: table (default), json, yaml or name (name, yaml and json print the matching objects)")
	f.BoolVar(&o.OpenAPI, "openapi", false, "Print the x-kubernetes-selectable-fields extension of each CRD version as the server publishes it in OpenAPI")
	o.Cluster.addFlags(f, "Read the arguments from the cluster: resource references such as crds, crd/NAME, widgets.example.com or widgets.example.com/NAME (with -n or -A)", true)
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"table", "json", "yaml", "name"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// Complete splits the arguments into paths and built-in kinds.
func (o *FieldsOptions) Complete(c *cobra.Command, args []string) error {
	o.flags = c.Flags()
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

// collect adds what one file gives, printing its notes.
func (o *FieldsOptions) collect(got *fields.Objects, objs *[]fields.Object) {
	for _, n := range got.Notes {
		fmt.Fprintln(o.ErrOut, n)
	}
	o.seen += got.Seen
	*objs = append(*objs, got.Matched...)
}

// Run lists or filters.
func (o *FieldsOptions) Run(ctx context.Context) error {
	if len(o.builtins) > 0 {
		return o.printBuiltins()
	}
	run, err := o.Cluster.open(ctx, o.Cluster.local(o.paths), o.CRDs, o.In, false)
	if err != nil {
		return err
	}
	cat := run.Catalog
	files := make([]*fields.Objects, len(run.Inputs.Files))
	errs := make([]error, len(run.Inputs.Files))
	err = run.Visit(ctx, input.Visitor{File: func(i int, _ []byte, f *source.File) error {
		files[i], errs[i] = fields.Collect(cat, f, o.selector)
		return nil
	}})
	if err != nil {
		return inputError(err)
	}
	var objs []fields.Object
	for i, got := range files {
		if errs[i] != nil {
			return selectorError(errs[i])
		}
		o.collect(got, &objs)
	}
	// CRDs named on the command line are listed as the cluster has them,
	// from a catalogue of their own; custom resources are judged under the
	// local CRD of their kind, else the cluster's.
	liveCRDs := crd.NewCatalog(false)
	liveRead := 0
	if o.Cluster.Live {
		c, err := o.Cluster.connect()
		if err != nil {
			return err
		}
		fetch := cluster.NewCRDFetcher(c, cat)
		err = c.Visit(ctx, o.paths, func(page []*unstructured.Unstructured) error {
			liveRead += len(page)
			files, _, err := c.Files(page)
			if err != nil {
				return err
			}
			for _, f := range files {
				liveCRDs.AddFound(crd.FindCRDs(f), crd.Cluster)
			}
			if err := fetch.Ensure(ctx, files); err != nil {
				return err
			}
			for _, f := range files {
				got, err := fields.Collect(cat, f, o.selector)
				if err != nil {
					return selectorError(err)
				}
				o.collect(got, &objs)
			}
			return nil
		})
		if err != nil {
			return clusterError(err)
		}
		if liveRead == 0 {
			noResources(o.ErrOut, c, o.Cluster.Flags.AllNamespaces)
			return nil
		}
	}
	if len(objs) == 0 && o.seen == 0 {
		if o.FieldSelector != "" {
			return usageErrorf("--field-selector needs custom resources to filter")
		}
		if o.Cluster.Live {
			return o.printCRDs(liveCRDs)
		}
		return o.printCRDs(cat)
	}
	if len(objs) == 0 {
		fmt.Fprintln(o.ErrOut, "No resources found")
		return nil
	}
	switch o.Output {
	case "name":
		for _, ob := range objs {
			gk := ob.Version.GVK.GroupKind()
			fmt.Fprintf(o.Out, "%s/%s\n", strings.ToLower(gk.String()), ob.Stored.GetName())
		}
		return nil
	case "json", "yaml":
		list := map[string]any{"apiVersion": "v1", "kind": "List", "items": itemsOf(objs)}
		return printObject(o.Out, list, o.Output)
	}
	return o.printValues(objs)
}

// selectorError: a selector the server refuses fails the whole list
// request, a usage error.
func selectorError(err error) error {
	var se *fields.ErrSelector
	if errors.As(err, &se) {
		return &UsageError{se.Err}
	}
	return err
}

func itemsOf(objs []fields.Object) []any {
	items := make([]any, 0, len(objs))
	for _, ob := range objs {
		items = append(items, ob.Stored.Object)
	}
	return items
}

func printObject(w io.Writer, v any, format string) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if format == "yaml" {
		if b, err = sigsyaml.JSONToYAML(b); err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// printValues prints a kubectl-get-style table per kind: a column per
// selectable field with the value the server computes.
func (o *FieldsOptions) printValues(objs []fields.Object) error {
	var order []schema.GroupVersionKind
	byGVK := map[schema.GroupVersionKind][]fields.Object{}
	for _, ob := range objs {
		gvk := ob.Version.GVK
		if _, ok := byGVK[gvk]; !ok {
			order = append(order, gvk)
		}
		byGVK[gvk] = append(byGVK[gvk], ob)
	}
	for i, gvk := range order {
		if i > 0 {
			fmt.Fprintln(o.Out)
		}
		group := byGVK[gvk]
		v := group[0].Version
		w := tabwriter.NewWriter(o.Out, 0, 4, 3, ' ', 0)
		var cols []string
		for _, f := range fields.Selectable(v) {
			cols = append(cols, f.Path)
		}
		fmt.Fprintln(w, strings.ToUpper(strings.Join(append([]string{"KIND"}, cols...), "\t")))
		for _, ob := range group {
			row := []string{strings.ToLower(gvk.GroupKind().String())}
			for _, c := range cols {
				row = append(row, ob.Set[c])
			}
			fmt.Fprintln(w, strings.Join(row, "\t"))
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// crdListing is -o json of the CRD listing.
type crdListing struct {
	CRD     string         `json:"crd"`
	Group   string         `json:"group"`
	Kind    string         `json:"kind"`
	Version string         `json:"version"`
	Fields  []fields.Field `json:"fields"`
}

func (o *FieldsOptions) printCRDs(cat *crd.Catalog) error {
	entries := cat.Entries()
	if len(entries) == 0 {
		return usageErrorf("no CustomResourceDefinitions in the inputs")
	}
	var items []crdListing
	var openapi []map[string]any
	for _, e := range entries {
		c := e.CRD()
		for i := range c.Spec.Versions {
			// By index: Lookup drops a compiled version's schema from
			// the entry's CRD (crd.Entry.release).
			ver := &c.Spec.Versions[i]
			v, err := cat.Lookup(schema.GroupVersionKind{Group: c.Spec.Group, Version: ver.Name, Kind: c.Spec.Names.Kind})
			if err != nil {
				continue
			}
			items = append(items, crdListing{CRD: c.Name, Group: c.Spec.Group, Kind: c.Spec.Names.Kind, Version: ver.Name, Fields: fields.Selectable(v)})
			ext := []any{}
			for _, sf := range ver.SelectableFields {
				ext = append(ext, map[string]any{"fieldPath": strings.TrimPrefix(sf.JSONPath, ".")})
			}
			item := map[string]any{"crd": c.Name, "version": ver.Name}
			if len(ext) > 0 {
				// As the server's OpenAPI builder: absent when none.
				item["x-kubernetes-selectable-fields"] = ext
			}
			openapi = append(openapi, item)
		}
	}
	if o.OpenAPI {
		if o.Output == "json" {
			return printObject(o.Out, map[string]any{"items": openapi}, "json")
		}
		return printObject(o.Out, openapi, "yaml")
	}
	if o.Output == "json" {
		return printObject(o.Out, map[string]any{"items": items}, "json")
	}
	if o.Output == "yaml" {
		return printObject(o.Out, map[string]any{"items": items}, "yaml")
	}
	w := tabwriter.NewWriter(o.Out, 0, 4, 3, ' ', 0)
	fmt.Fprintln(w, "CRD\tVERSION\tFIELD\tTYPE\tSOURCE")
	for _, it := range items {
		for _, f := range it.Fields {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", it.CRD, it.Version, f.Path, f.Type, f.Source)
		}
	}
	return w.Flush()
}

func (o *FieldsOptions) printBuiltins() error {
	if o.Output == "json" || o.Output == "yaml" {
		return printObject(o.Out, map[string]any{"items": o.builtins}, o.Output)
	}
	w := tabwriter.NewWriter(o.Out, 0, 4, 3, ' ', 0)
	fmt.Fprintln(w, "KIND\tFIELD SELECTOR\tFIELD\tTYPE\tNOTES")
	for _, k := range o.builtins {
		name := k.Kind
		if k.Group != "" {
			name += "." + k.Group
		}
		for _, f := range k.Fields {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", name, f.Selector, f.Field, f.Type, f.Note)
		}
	}
	return w.Flush()
}
