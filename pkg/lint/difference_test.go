package lint

import (
	"encoding/json"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// TestFirstDifference pins where crd-conversion-none says two schemas
// first differ: keys in encoding/json's order, the version that has what
// the other lacks.
func TestFirstDifference(t *testing.T) {
	tests := []struct {
		name, a, b string
		path, only string
	}{
		{"equal", `{"type":"object"}`, `{"type":"object"}`, "", ""},
		{"value", `{"type":"object","maxItems":1}`, `{"type":"object","maxItems":2}`, "maxItems", ""},
		{"only in b", `{"properties":{"a":{}}}`, `{"properties":{"a":{},"b":{}}}`, "properties.b", "v2"},
		{"only in a, sorted first", `{"properties":{"a":{},"c":{}}}`, `{"properties":{"b":{},"c":{}}}`, "properties.a", "v1"},
		{"in a list", `{"required":["a","b"]}`, `{"required":["a","c"]}`, "required[1]", ""},
		{"list longer", `{"required":["a"]}`, `{"required":["a","c"]}`, "required", ""},
		{"key with dots", `{"properties":{"a.b":{"type":"string"}}}`, `{"properties":{"a.b":{"type":"integer"}}}`, `properties["a.b"].type`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a, b any
			if err := json.Unmarshal([]byte(tt.a), &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tt.b), &b); err != nil {
				t.Fatal(err)
			}
			segs, only := firstDifference(a, b, "v1", "v2")
			if got := source.JoinPath(segs); got != tt.path || only != tt.only {
				t.Errorf("got %s (only in %q), want %s (only in %q)", got, only, tt.path, tt.only)
			}
		})
	}
}
