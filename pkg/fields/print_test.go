package fields

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// testdataListings are the listings of testdata/crds.yaml, as fields
// lists a file of CRDs.
func testdataListings(t *testing.T) []Listing {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "crds.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cat := crd.NewCatalog(false)
	cat.AddFound(crd.FindCRDs(source.Parse("crds.yaml", data)), crd.Input)
	return List(cat)
}

// TestListingGolden pins -o json and -o yaml of the selectable fields of
// CRDs (testdata/crds.yaml) and of every built-in kind: one shape for
// both, kubectl's camelCase keys, plain types, format and enum (the
// values) as keys of their own.
func TestListingGolden(t *testing.T) {
	tests := []struct {
		name  string
		print func(*bytes.Buffer, string) error
	}{
		{"crds", func(b *bytes.Buffer, format string) error { return PrintList(b, testdataListings(t), format, false) }},
		{"builtins", func(b *bytes.Buffer, format string) error { return PrintBuiltins(b, Builtins(), format) }},
	}
	for _, tt := range tests {
		for _, format := range []string{"json", "yaml"} {
			t.Run(tt.name+"."+format, func(t *testing.T) {
				var got bytes.Buffer
				if err := tt.print(&got, format); err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", tt.name+"."+format+".golden")
				if *update {
					if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (go test ./pkg/fields -update writes it)", err)
				}
				if !bytes.Equal(got.Bytes(), want) {
					t.Errorf("got:\n%s\nwant (%s):\n%s", got.Bytes(), golden, want)
				}
			})
		}
	}
}

// TestListingShape: CRDs and built-in kinds list the same keys (crd only
// for CRDs), their fields the same keys, types are plain, and enum is
// the list of values, not a flag.
func TestListingShape(t *testing.T) {
	itemKeys := []string{"fields", "group", "kind", "namespaced", "resource", "version"}
	itemOptional := []string{"crd", "shortNames"}
	fieldKeys := []string{"path", "source", "type"}
	fieldOptional := []string{"enum", "field", "format", "note"}
	types := []string{"boolean", "integer", "number", "string"}
	for name, items := range map[string][]Listing{"crds": testdataListings(t), "builtins": Builtins()} {
		t.Run(name, func(t *testing.T) {
			data, err := json.Marshal(items)
			if err != nil {
				t.Fatal(err)
			}
			var got []map[string]any
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			enums := 0
			for _, it := range got {
				checkKeys(t, it, itemKeys, itemOptional)
				if _, ok := it["crd"]; ok != (name == "crds") {
					t.Errorf("%v: got crd present=%v, want it only for CRDs", it["kind"], ok)
				}
				for _, f := range it["fields"].([]any) {
					f := f.(map[string]any)
					checkKeys(t, f, fieldKeys, fieldOptional)
					if typ, _ := f["type"].(string); !slices.Contains(types, typ) {
						t.Errorf("%v %v: got type %v, want one of %v", it["kind"], f["path"], f["type"], types)
					}
					if e, ok := f["enum"]; ok {
						if values, _ := e.([]any); len(values) == 0 {
							t.Errorf("%v %v: got enum %v, want the list of values", it["kind"], f["path"], e)
						}
						enums++
					}
				}
			}
			if enums == 0 {
				t.Errorf("got no field with an enum, want some: the fixture no longer covers them")
			}
		})
	}
}

// checkKeys: m has every key of want and none besides want and optional.
func checkKeys(t *testing.T, m map[string]any, want, optional []string) {
	t.Helper()
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Errorf("%v: got no key %q, want keys %v", m, k, want)
		}
	}
	for k := range m {
		if !slices.Contains(want, k) && !slices.Contains(optional, k) {
			t.Errorf("got key %q, want only %v and %v", k, want, optional)
		}
	}
}
