package replay

import (
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/crdtest"
)

// BenchmarkReplay: one object replayed through examples/upgrade (OLD's
// create, NEW's create, the labels-only update under both, the pruning,
// the CEL change judged), the Replayer and its compiled versions reused as
// for a page of live objects.
func BenchmarkReplay(b *testing.B) {
	old := crdtest.Read(b, "../../../examples/upgrade/widget-v1.yaml").CRD
	new := crdtest.Read(b, "../../../examples/upgrade/widget-v2.yaml").CRD
	r := New(old, new, Options{})
	obj := map[string]any{
		"apiVersion": "example.org/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "colorful", "namespace": "shop"},
		"spec":     map[string]any{"size": "large", "replicas": int64(8), "legacyColor": "teal"},
	}
	b.ReportAllocs()
	for b.Loop() {
		if res := r.Replay(Object{Value: obj}); len(res.Pruned) != 1 {
			b.Fatalf("pruned %q", res.Pruned)
		}
	}
}
