package compare

import (
	"path/filepath"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/crdtest"
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
		old, new := gw[len(gw)-2].CRD, gw[len(gw)-1].CRD
		b.ReportAllocs()
		for b.Loop() {
			Revisions(old, new, Options{})
		}
	})
	b.Run("all-history-pairs", func(b *testing.B) {
		pairs := historyPairs(b)
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range pairs {
				Revisions(p.old.CRD, p.new.CRD, Options{})
			}
		}
	})
	b.Run("cronworkflows-docs-only", func(b *testing.B) {
		old := crdtest.Read(b, filepath.Join(testutil.CorpusDir(b), "crds", "argo-workflows__manifests__base__crds__full__argoproj.io_cronworkflows.yaml")).CRD
		new := old.DeepCopy()
		redocument(new)
		b.ReportAllocs()
		for b.Loop() {
			if cs := Revisions(old, new, Options{}); len(cs) > 0 {
				b.Fatal(cs[0].Message)
			}
		}
	})
}
