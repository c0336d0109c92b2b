package immutable

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// httpRouteBench is gateway-api's experimental HTTPRoute v1 schema with
// spec marked x-kubernetes-mutability: Immutable, so that Compare walks
// and compares the whole spec, and the corpus's v1 HTTPRoutes as stored.
func httpRouteBench(b *testing.B) (*Schema, []any) {
	dir := testutil.CorpusDir(b)
	raw, err := os.ReadFile(filepath.Join(dir, "crds", "gateway-api__config__crd__experimental__gateway.networking.k8s.io_httproutes.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	var crd map[string]any
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		b.Fatal(err)
	}
	for _, v := range crd["spec"].(map[string]any)["versions"].([]any) {
		vm := v.(map[string]any)
		if vm["name"] == "v1" {
			props := vm["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)
			props["spec"].(map[string]any)[MutabilityExtension] = Immutable
		}
	}
	js, err := json.Marshal(crd)
	if err != nil {
		b.Fatal(err)
	}
	s, err := fromCRD(js, "v1")
	if err != nil {
		b.Fatal(err)
	}
	var objs []any
	for _, p := range testutil.Files(b, "crs") {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range source.Parse(p, data).Documents {
			if d.Object.Kind == "HTTPRoute" && d.Object.APIVersion == "gateway.networking.k8s.io/v1" {
				objs = append(objs, obj(b, string(d.JSON)))
			}
		}
	}
	if len(objs) < 50 {
		b.Fatalf("only %d HTTPRoutes in the corpus", len(objs))
	}
	return s, objs
}

func deepCopyJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = deepCopyJSON(e)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = deepCopyJSON(e)
		}
		return s
	}
	return v
}

// BenchmarkCompare is the marker comparison of an update (what
// `immutable` runs besides the server's update path) over the corpus's
// HTTPRoutes: "unchanged" is the full walk that finds nothing, the common
// case of a re-apply; "changed" adds a rule to every route, so every
// comparison reports a violation and stops descending where it differs.
func BenchmarkCompare(b *testing.B) {
	s, olds := httpRouteBench(b)
	for _, tc := range []struct {
		name   string
		change func(any)
		want   bool
	}{
		{"unchanged", func(any) {}, false},
		{"changed", func(o any) {
			spec, _ := o.(map[string]any)["spec"].(map[string]any)
			if spec == nil {
				return
			}
			rules, _ := spec["rules"].([]any)
			spec["rules"] = append(rules, map[string]any{"matches": []any{map[string]any{"path": map[string]any{"value": "/bench"}}}})
		}, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			news := make([]any, len(olds))
			for i, o := range olds {
				news[i] = deepCopyJSON(o)
				tc.change(news[i])
			}
			b.ReportAllocs()
			for b.Loop() {
				for i := range olds {
					if vs := Compare(s, olds[i], news[i]); (len(vs) > 0) != tc.want {
						b.Fatalf("route %d: %d violations", i, len(vs))
					}
				}
			}
			b.ReportMetric(float64(len(olds))*float64(b.N)/b.Elapsed().Seconds(), "updates/s")
		})
	}
}
