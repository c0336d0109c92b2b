package upgrade

import (
	"path/filepath"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// BenchmarkCompare: the largest history pair (gateway-api's Gateway,
// 180 kB a release, three versions), every history pair in a row, and the
// largest corpus CRD (argo-workflows' CronWorkflow, 2.8 MB) against a copy
// with every description reworded, where nothing differs but the whole
// schema is walked.
func BenchmarkCompare(b *testing.B) {
	gw := releases(b, filepath.Join(historyDir, "gateway-api", "gateways.gateway.networking.k8s.io"))
	b.Run("gateway-history-pair", func(b *testing.B) {
		old, new := gw[len(gw)-2].crd, gw[len(gw)-1].crd
		b.ReportAllocs()
		for b.Loop() {
			Compare(old, new, Options{})
		}
	})
	b.Run("all-history-pairs", func(b *testing.B) {
		pairs := historyPairs(b)
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range pairs {
				Compare(p.old.crd, p.new.crd, Options{})
			}
		}
	})
	b.Run("cronworkflows-docs-only", func(b *testing.B) {
		old := readCRD(b, filepath.Join(testutil.CorpusDir(b), "crds", "argo-workflows__manifests__base__crds__full__argoproj.io_cronworkflows.yaml")).crd
		new := old.DeepCopy()
		redocument(new)
		b.ReportAllocs()
		for b.Loop() {
			if cs := Compare(old, new, Options{}); len(cs) > 0 {
				b.Fatal(cs[0].Message)
			}
		}
	})
}

// BenchmarkReplay: one object replayed through examples/upgrade (OLD's
// create, NEW's create, the labels-only update under both, the pruning,
// the CEL change judged), the Replayer and its compiled versions reused as
// for a page of live objects.
func BenchmarkReplay(b *testing.B) {
	old := readCRD(b, "../../examples/upgrade/widget-v1.yaml").crd
	new := readCRD(b, "../../examples/upgrade/widget-v2.yaml").crd
	r := NewReplayer(old, new, Options{})
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
