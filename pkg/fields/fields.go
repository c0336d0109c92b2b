// Package fields answers which fields of a kind the API server lets
// clients select on (--field-selector), with their values per object,
// using the server's own code through pkg/engine: the CRD's
// selectableFields as the server accepts them (Selectable), values from
// the custom resource strategy's GetAttrs on the object the server would
// store (Collect), labels checked by the CR converter's ConvertFieldLabel
// (ForVersion), and selectors parsed and matched by apimachinery's
// fields package (Parse). Built-in kinds come from a table (builtin.go).
//
// It is the fields command's work too: Collection gathers a run's files
// (or a cluster's pages) with their notes and skips, and print.go writes
// what the command prints to the writer it is given: the listings as a
// table, JSON or YAML (PrintList, PrintBuiltins), the matching objects'
// values (PrintValues), or the objects themselves (PrintObjects).
//
//	for _, f := range fields.Selectable(v) { fmt.Println(f.Path, f.Type, f.Source) }
package fields

import (
	"strings"

	"k8s.io/apimachinery/pkg/fields"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
)

// Sources of a selectable field.
const (
	// Implicit: metadata.name, and metadata.namespace for namespaced
	// kinds, which the server accepts for every kind.
	Implicit = "implicit"
	// SelectableFields: a CRD version's spec.versions[].selectableFields.
	SelectableFields = "selectableFields"
	// Builtin: the field-label conversion the server registers for a
	// built-in kind.
	Builtin = "builtin"
)

// Field is one selectable field of a kind, in one shape for CRDs and
// built-in kinds: what -o json|yaml print, with kubectl's camelCase keys.
type Field struct {
	// Path is the label --field-selector takes: "spec.color".
	Path string `json:"path"`
	// Field is the object field the server reads for Path, when it is
	// not Path itself (Job's status.successful reads status.succeeded).
	Field string `json:"field,omitempty"`
	// Type is the schema's: string, integer, boolean or number.
	Type string `json:"type"`
	// Format is the schema's format ("date-time", "int64"), if any.
	Format string `json:"format,omitempty"`
	// Enum lists the values the schema allows, when it lists them.
	Enum []any `json:"enum,omitempty"`
	// Source says why the server accepts the label: Implicit,
	// SelectableFields or Builtin.
	Source string `json:"source"`
	// Note says what a built-in kind's label does that its name does not
	// tell (defaults, legacy spellings, where the design doc disagrees).
	Note string `json:"note,omitempty"`
}

// Describe is the type as a table shows it: "string (enum)",
// "integer (int64)".
func (f Field) Describe() string {
	switch {
	case len(f.Enum) > 0:
		return f.Type + " (enum)"
	case f.Format != "":
		return f.Type + " (" + f.Format + ")"
	}
	return f.Type
}

// Reads is the object field the server reads for the label.
func (f Field) Reads() string {
	if f.Field != "" {
		return f.Field
	}
	return f.Path
}

// Selectable lists a CRD version's selectable fields as the server
// accepts them: metadata.name, metadata.namespace for namespaced kinds,
// then spec.versions[].selectableFields in order, each with the type its
// schema gives it.
func Selectable(v *engine.Version) []Field {
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
func ForVersion(sel fields.Selector, v *engine.Version) (fields.Selector, error) {
	return sel.Transform(v.ConvertFieldLabel)
}
