package lint

import (
	"os"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

var fuzzCatalog struct {
	once    sync.Once
	l       *Linter
	cat     *crd.Catalog
	crds    map[schema.GroupKind]*apiextensionsv1.CustomResourceDefinition
	oracles sync.Map // GroupVersionKind -> *crOracle
}

// FuzzCRVerdict lints random documents against the real corpus CRDs: no
// panic, and for every custom resource the same verdict as the server's
// libraries.
func FuzzCRVerdict(f *testing.F) {
	crs := testutil.Files(f, "crs")
	for i, p := range crs {
		if i%100 != 0 {
			continue
		}
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: x}\nspec: {secretName: 1, dnsNames: [a, a]}\n"))
	f.Add([]byte("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: x, namespace: y}\nspec: {rules: [{matches: [{path: {type: Exact, value: nope}}]}]}\n"))
	crds := testutil.Files(f, "crds")
	fuzzCatalog.once.Do(func() {
		fuzzCatalog.cat = crd.NewCatalog(false)
		fuzzCatalog.l = New(Options{Catalog: fuzzCatalog.cat})
		for _, p := range crds {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			collect(fuzzCatalog.l, source.Parse(p, b))
		}
		fuzzCatalog.crds = decodedCRDs(f, crds...)
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		file := source.Parse("fuzz.yaml", data)
		fs, _ := fuzzCatalog.l.File(file)
		for _, fd := range fs {
			if fd.Line < 0 || fd.Column < 0 {
				t.Fatalf("negative position: %+v", fd)
			}
		}
		for _, d := range file.Documents {
			if crd.IsCRD(d) || crd.IsBuiltin(d) {
				continue
			}
			g, ver := d.GroupVersion()
			gvk := schema.GroupVersionKind{Group: g, Version: ver, Kind: d.Object.Kind}
			_, err := fuzzCatalog.cat.Lookup(gvk)
			if err != nil {
				continue
			}
			o, ok := fuzzCatalog.oracles.Load(gvk)
			if !ok {
				o, _ = fuzzCatalog.oracles.LoadOrStore(gvk, newCROracle(t, fuzzCatalog.crds[gvk.GroupKind()], ver))
			}
			ns := d.Object.Namespace
			if ns == "" {
				ns = crd.DefaultNamespace
			}
			want, wantRejected := safeCreate(o.(*crOracle), d.JSON, ns)
			if want == nil && wantRejected {
				continue // the server's own code panicked
			}
			got, gotRejected := crPairs(fuzzCatalog.l.CR(d))
			if strings.Join(got, "\n") != strings.Join(want, "\n") || gotRejected != wantRejected {
				t.Fatalf("verdict differs from the server (rejected %v, want %v)\n got: %q\nwant: %q", gotRejected, wantRejected, got, want)
			}
		}
	})
}

func safeCreate(o *crOracle, js []byte, ns string) (pairs []string, rejected bool) {
	defer func() {
		if recover() != nil {
			pairs, rejected = nil, true
		}
	}()
	return o.create(js, ns)
}
