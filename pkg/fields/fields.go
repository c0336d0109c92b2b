// Package fields answers which fields of a kind the API server lets
// clients select on (--field-selector), with their values per object,
// using the server's own code: the CRD's selectableFields validated by
// the CEL field-path parser, values from the custom resource strategy's
// GetAttrs, labels checked by the CR converter's ConvertFieldLabel, and
// selectors parsed and matched by apimachinery's fields package. Built-in
// kinds come from a table (builtin.go).
//
// It prints nothing; the fields command renders tables and lists.
//
//	for _, f := range fields.Selectable(v) { fmt.Println(f.Path, f.Type, f.Source) }
package fields

import (
	"strings"

	"k8s.io/apimachinery/pkg/fields"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
)

// Sources of a selectable field.
const (
	Implicit         = "implicit"
	SelectableFields = "selectableFields"
)

// Field is one selectable field of a CRD version.
type Field struct {
	Path string `json:"path"`
	// Type is the schema's type; Format and Enum qualify strings.
	Type   string `json:"type"`
	Format string `json:"format,omitempty"`
	Enum   bool   `json:"enum,omitempty"`
	Source string `json:"source"`
}

// Describe is the type as a table shows it: "string (enum)",
// "integer (int64)".
func (f Field) Describe() string {
	switch {
	case f.Enum:
		return f.Type + " (enum)"
	case f.Format != "":
		return f.Type + " (" + f.Format + ")"
	}
	return f.Type
}

// Selectable lists a CRD version's selectable fields as the server
// accepts them: metadata.name, metadata.namespace for namespaced kinds,
// then spec.versions[].selectableFields in order, each with the type its
// schema gives it.
func Selectable(v *crd.Version) []Field {
	out := []Field{{Path: "metadata.name", Type: "string", Source: Implicit}}
	if v.Namespaced {
		out = append(out, Field{Path: "metadata.namespace", Type: "string", Source: Implicit})
	}
	for _, sf := range v.Spec.SelectableFields {
		f := Field{Path: strings.TrimPrefix(sf.JSONPath, "."), Source: SelectableFields}
		f.Type, f.Format, f.Enum = v.FieldType(sf.JSONPath)
		out = append(out, f)
	}
	return out
}

// Parse parses a --field-selector with the server's grammar (=, ==, !=,
// comma-separated terms ANDed, backslash escapes).
func Parse(expr string) (fields.Selector, error) {
	return fields.ParseSelector(expr)
}

// ForVersion checks a selector's labels as the server does for a list of
// this version: every label must be selectable ("field label not
// supported: spec.foo" otherwise).
func ForVersion(sel fields.Selector, v *crd.Version) (fields.Selector, error) {
	return sel.Transform(v.ConvertFieldLabel)
}
