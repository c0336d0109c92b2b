package fields

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
)

// Listing is the selectable fields of a kind at one version, a CRD's or
// a built-in one's, as -o json|yaml list them: one shape for both, with
// kubectl's camelCase keys (group, version, kind, resource, shortNames
// and namespaced as in kubectl api-resources -o json).
type Listing struct {
	// CRD names the CustomResourceDefinition; empty for a built-in kind.
	CRD        string   `json:"crd,omitempty"`
	Group      string   `json:"group"`
	Version    string   `json:"version"`
	Kind       string   `json:"kind"`
	Resource   string   `json:"resource"`
	ShortNames []string `json:"shortNames,omitempty"`
	Namespaced bool     `json:"namespaced"`
	// Fields: metadata.name first, metadata.namespace for namespaced
	// kinds (when the server accepts it), then the kind's own.
	Fields []Field `json:"fields"`
	// openAPI is the version's x-kubernetes-selectable-fields extension
	// as the server publishes it (CRDs only).
	openAPI map[string]any
}

// List lists the selectable fields of every served version of the
// catalogue's CRDs, in name order.
func List(cat *crd.Catalog) []Listing {
	var out []Listing
	for _, e := range cat.Entries() {
		c := e.CRD()
		for i := range c.Spec.Versions {
			// By index: Lookup drops a compiled version's schema from
			// the entry's CRD (crd.Entry.release).
			ver := &c.Spec.Versions[i]
			v, err := cat.Lookup(schema.GroupVersionKind{Group: c.Spec.Group, Version: ver.Name, Kind: c.Spec.Names.Kind})
			if err != nil {
				continue
			}
			ext := []any{}
			for _, sf := range ver.SelectableFields {
				ext = append(ext, map[string]any{"fieldPath": strings.TrimPrefix(sf.JSONPath, ".")})
			}
			item := map[string]any{"crd": c.Name, "version": ver.Name}
			if len(ext) > 0 {
				// As the server's OpenAPI builder: absent when none.
				item["x-kubernetes-selectable-fields"] = ext
			}
			out = append(out, Listing{
				CRD: c.Name, Group: c.Spec.Group, Version: ver.Name, Kind: c.Spec.Names.Kind,
				Resource: c.Spec.Names.Plural, ShortNames: c.Spec.Names.ShortNames, Namespaced: v.Namespaced,
				Fields: Selectable(v), openAPI: item,
			})
		}
	}
	return out
}

// PrintList prints listings as a table, or as json or yaml; openAPI prints
// the OpenAPI extension instead.
func PrintList(w io.Writer, items []Listing, format string, openAPI bool) error {
	if openAPI {
		ext := make([]map[string]any, 0, len(items))
		for _, it := range items {
			ext = append(ext, it.openAPI)
		}
		if format == "json" {
			return Print(w, map[string]any{"items": ext}, "json")
		}
		return Print(w, ext, "yaml")
	}
	if format == "json" || format == "yaml" {
		return Print(w, map[string]any{"items": items}, format)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 3, ' ', 0)
	fmt.Fprintln(tw, "CRD\tVERSION\tFIELD\tTYPE\tSOURCE")
	for _, it := range items {
		for _, f := range it.Fields {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", it.CRD, it.Version, f.Path, f.Describe(), f.Source)
		}
	}
	return tw.Flush()
}

// PrintValues prints a kubectl-get-style table per kind: a column per
// selectable field with the value the server computes.
func PrintValues(w io.Writer, objs []Object) error {
	var order []schema.GroupVersionKind
	byGVK := map[schema.GroupVersionKind][]Object{}
	for _, ob := range objs {
		gvk := ob.Version.GVK
		if _, ok := byGVK[gvk]; !ok {
			order = append(order, gvk)
		}
		byGVK[gvk] = append(byGVK[gvk], ob)
	}
	for i, gvk := range order {
		if i > 0 {
			fmt.Fprintln(w)
		}
		group := byGVK[gvk]
		tw := tabwriter.NewWriter(w, 0, 4, 3, ' ', 0)
		var cols []string
		for _, f := range Selectable(group[0].Version) {
			cols = append(cols, f.Path)
		}
		fmt.Fprintln(tw, strings.ToUpper(strings.Join(append([]string{"KIND"}, cols...), "\t")))
		for _, ob := range group {
			row := []string{strings.ToLower(gvk.GroupKind().String())}
			for _, c := range cols {
				row = append(row, ob.Set[c])
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// PrintObjects prints the stored objects: their kind/name, or a v1 List
// as json or yaml.
func PrintObjects(w io.Writer, objs []Object, format string) error {
	if format == "name" {
		for _, ob := range objs {
			if _, err := fmt.Fprintf(w, "%s/%s\n", strings.ToLower(ob.Version.GVK.GroupKind().String()), ob.Stored.GetName()); err != nil {
				return err
			}
		}
		return nil
	}
	items := make([]any, 0, len(objs))
	for _, ob := range objs {
		items = append(items, ob.Stored.Object)
	}
	return Print(w, map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, format)
}

// PrintBuiltins prints the field selectors of built-in kinds as a table,
// or as json or yaml in PrintList's shape.
func PrintBuiltins(w io.Writer, kinds []Listing, format string) error {
	if format == "json" || format == "yaml" {
		return Print(w, map[string]any{"items": kinds}, format)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 3, ' ', 0)
	fmt.Fprintln(tw, "KIND\tFIELD SELECTOR\tFIELD\tTYPE\tNOTES")
	for _, k := range kinds {
		name := k.Kind
		if k.Group != "" {
			name += "." + k.Group
		}
		for _, f := range k.Fields {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, f.Path, f.Reads(), f.Describe(), f.Note)
		}
	}
	return tw.Flush()
}

// Print writes v as indented JSON, or as YAML.
func Print(w io.Writer, v any, format string) error {
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
