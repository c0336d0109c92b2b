package testutil

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// schemaFeatures counts the schema keywords, extensions and CRD
// settings a corpus's CRDs use.
func schemaFeatures(t *testing.T, files []string) (map[string]int, map[string][][]byte) {
	t.Helper()
	got := map[string]int{}
	byName := map[string][][]byte{}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f := source.Parse(p, data)
		for _, d := range f.Documents {
			if d.Object.Kind != "CustomResourceDefinition" {
				continue
			}
			got["CRDs"]++
			byName[d.Object.Name] = append(byName[d.Object.Name], d.JSON)
			var crd struct {
				Spec struct {
					Versions []struct {
						Deprecated       bool           `json:"deprecated"`
						Subresources     map[string]any `json:"subresources"`
						SelectableFields []any          `json:"selectableFields"`
						PrinterColumns   []any          `json:"additionalPrinterColumns"`
						Schema           map[string]any `json:"schema"`
					} `json:"versions"`
				} `json:"spec"`
			}
			if err := json.Unmarshal(d.JSON, &crd); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			vs := crd.Spec.Versions
			switch {
			case len(vs) >= 3:
				got["3 or more versions"]++
				fallthrough
			case len(vs) == 2:
				got["2 or more versions"]++
			}
			for _, v := range vs {
				if v.Deprecated {
					got["deprecated version"]++
				}
				for sub := range v.Subresources {
					got["subresource "+sub]++
				}
				got["selectableFields"] += len(v.SelectableFields)
				got["additionalPrinterColumns"] += len(v.PrinterColumns)
				if s, ok := v.Schema["openAPIV3Schema"].(map[string]any); ok {
					walkSchema(s, got)
				}
			}
		}
	}
	return got, byName
}

// walkSchema counts what a schema and its subschemas use.
func walkSchema(s map[string]any, got map[string]int) {
	stack := []map[string]any{s}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for k, v := range s {
			switch k {
			case "type":
				got["type "+v.(string)]++
			case "x-kubernetes-list-type", "x-kubernetes-map-type":
				got[k+" "+v.(string)]++
			case "x-kubernetes-validations":
				for _, r := range v.([]any) {
					got["CEL rule"]++
					rule := r.(map[string]any)
					if strings.Contains(rule["rule"].(string), "oldSelf") {
						got["CEL transition rule"]++
					}
					for _, f := range []string{"reason", "fieldPath", "messageExpression"} {
						if _, ok := rule[f]; ok {
							got["CEL "+f]++
						}
					}
				}
			case "properties":
				for _, p := range v.(map[string]any) {
					stack = append(stack, p.(map[string]any))
				}
				got[k]++
			case "items", "not":
				stack = append(stack, v.(map[string]any))
				got[k]++
			case "additionalProperties":
				if m, ok := v.(map[string]any); ok {
					stack = append(stack, m)
					got["additionalProperties schema"]++
				} else {
					got["additionalProperties bool"]++
				}
			case "oneOf", "anyOf", "allOf":
				for _, x := range v.([]any) {
					stack = append(stack, x.(map[string]any))
				}
				got[k]++
			case "x-kubernetes-preserve-unknown-fields", "x-kubernetes-int-or-string", "x-kubernetes-embedded-resource", "nullable":
				if v == true {
					got[k]++
				}
			default:
				got[k]++
			}
		}
	}
}

// TestInRepoCorpusCoverage keeps testdata/corpus what its README says it
// is, so that the differential tests run meaningfully from a fresh clone:
// every schema feature the shared corpus's CRDs use, CEL rules and CRs
// that break them, list and map types, preserve-unknown-fields,
// int-or-string, defaults, selectable fields, status and scale, several
// versions; CRs that pass and CRs that fail, built-in kinds among them,
// kinds without a CRD, and gateway-api's two channels side by side.
func TestInRepoCorpusCoverage(t *testing.T) {
	dir := filepath.Join(RepoRoot(t), inRepo)
	list := func(sub string) []string {
		m, err := filepath.Glob(filepath.Join(dir, sub, "*"))
		if err != nil || len(m) == 0 {
			t.Fatalf("%s/%s: %v (%d files)", dir, sub, err, len(m))
		}
		return m
	}
	crds, crs := list("crds"), list("crs")
	var size int64
	for _, p := range append(append([]string(nil), crds...), crs...) {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		size += st.Size()
	}
	if size > 4<<20 {
		t.Errorf("the corpus is %d bytes, over the 4 MiB it may weigh in the repository", size)
	}
	got, byName := schemaFeatures(t, crds)
	want := map[string]int{
		"CRDs": 30, "2 or more versions": 10, "3 or more versions": 3, "deprecated version": 5,
		"subresource status": 20, "subresource scale": 1, "selectableFields": 6, "additionalPrinterColumns": 20,
		"type object": 1, "type array": 1, "type string": 1, "type integer": 1, "type boolean": 1,
		"properties": 1, "items": 1, "additionalProperties schema": 1, "required": 1, "description": 1,
		"enum": 1, "pattern": 1, "format": 1, "minimum": 1, "maximum": 1, "minLength": 1, "maxLength": 1,
		"minItems": 1, "maxItems": 1, "minProperties": 1, "maxProperties": 1, "nullable": 1, "default": 50,
		"oneOf": 1, "anyOf": 1, "allOf": 1, "not": 1,
		"CEL rule": 200, "CEL transition rule": 10,
		"x-kubernetes-list-type set": 1, "x-kubernetes-list-type map": 10, "x-kubernetes-list-type atomic": 10,
		"x-kubernetes-list-map-keys": 10, "x-kubernetes-map-type atomic": 1,
		"x-kubernetes-preserve-unknown-fields": 3, "x-kubernetes-int-or-string": 3,
	}
	for k, n := range want {
		if got[k] < n {
			t.Errorf("CRDs: %d uses of %q, want at least %d", got[k], k, n)
		}
	}
	// gateway-api's standard and experimental channels define CRDs of the
	// same name, some with different content.
	differ := 0
	for name, js := range byName {
		if len(js) > 1 && !bytes.Equal(js[0], js[1]) {
			differ++
			t.Logf("CRD %s: %d different definitions", name, len(js))
		}
	}
	if differ == 0 {
		t.Errorf("no two CRDs of the same name with different content: the standard/experimental pair is missing")
	}

	// What no CRD of the shared corpus small enough to copy has, the
	// lint package's base CRD has.
	base, _ := schemaFeatures(t, []string{filepath.Join(RepoRoot(t), "pkg/lint/testdata/base-crd.yaml")})
	for _, k := range []string{"x-kubernetes-embedded-resource", "type number"} {
		if base[k] == 0 {
			t.Errorf("pkg/lint/testdata/base-crd.yaml: no %q, which the corpus lacks", k)
		}
	}

	// Custom resources: kinds with a CRD in the corpus and kinds without,
	// built-in kinds, and examples made to fail, CEL rules among them.
	kinds := map[string]bool{}
	for _, p := range crds {
		data, _ := os.ReadFile(p)
		for _, d := range source.Parse(p, data).Documents {
			var crd struct {
				Spec struct{ Names struct{ Kind string } }
			}
			_ = json.Unmarshal(d.JSON, &crd)
			kinds[crd.Spec.Names.Kind] = true
		}
	}
	counts := map[string]int{}
	for _, p := range crs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range source.Parse(p, data).Documents {
			counts["documents"]++
			switch {
			case kinds[d.Object.Kind]:
				counts["with a CRD"]++
			case strings.Contains(d.Object.APIVersion, "."):
				counts["without a CRD"]++
			default:
				counts["built-in"]++
			}
		}
		if strings.Contains(filepath.Base(p), "invalid") {
			counts["invalid examples"]++
		}
	}
	for k, n := range map[string]int{"documents": 1000, "with a CRD": 500, "without a CRD": 50, "built-in": 20, "invalid examples": 30} {
		if counts[k] < n {
			t.Errorf("CRs: %d %s, want at least %d", counts[k], k, n)
		}
	}
	// Examples that the server refuses for a CEL rule (kubectl crdlint
	// check reports cr-cel for each).
	for _, name := range []string{
		"gateway-api__hack__invalid-examples__standard__httproute__invalid-filter-duplicate.yaml",
		"gateway-api__hack__invalid-examples__standard__gateway__duplicate-listeners.yaml",
		"external-snapshotter__client__hack__cel-tests__volumesnapshot__vs-source-multiple.yaml",
	} {
		if _, err := os.Stat(filepath.Join(dir, "crs", name)); err != nil {
			t.Errorf("CR that breaks a CEL rule: %v", err)
		}
	}
	// The projects test/agreement installs in a real API server.
	for _, proj := range []string{"cert-manager", "external-snapshotter", "prometheus-operator"} {
		for _, sub := range []string{"crds", "crs"} {
			if m, _ := filepath.Glob(filepath.Join(dir, sub, proj+"__*")); len(m) == 0 {
				t.Errorf("no %s of %s", sub, proj)
			}
		}
	}
	t.Logf("%d CRD files, %d CR files, %d bytes; CRs: %v", len(crds), len(crs), size, counts)
}

// TestCorpusDir checks the selection of the corpus: the in-repo one by
// default, CRDLINT_CORPUS's otherwise, relative to the repository root.
func TestCorpusDir(t *testing.T) {
	root := RepoRoot(t)
	t.Setenv(CorpusEnv, "")
	if got, want := CorpusDir(t), filepath.Join(root, inRepo); got != want || !InRepo(t) || AtLeast(t, 100, 10) != 10 {
		t.Errorf("default: got %s (in repo %v), want %s", got, InRepo(t), want)
	}
	other := t.TempDir()
	for _, sub := range []string{"crds", "crs"} {
		if err := os.Mkdir(filepath.Join(other, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(CorpusEnv, other)
	if got := CorpusDir(t); got != other || InRepo(t) || AtLeast(t, 100, 10) != 100 {
		t.Errorf("%s=%s: got %s (in repo %v)", CorpusEnv, other, got, InRepo(t))
	}
	t.Setenv(CorpusEnv, inRepo)
	if got, want := CorpusDir(t), filepath.Join(root, inRepo); got != want {
		t.Errorf("relative: got %s, want %s", got, want)
	}
}
