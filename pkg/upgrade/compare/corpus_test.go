package compare

import (
	"path/filepath"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/crdtest"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

var (
	allOnce sync.Once
	all     []*apiextensionsv1.CustomResourceDefinition
)

// allCRDs reads every CRD the tests know, once per test binary: the
// shared corpus (skipped with a message outside CI when absent, see
// testutil), the release histories and the rule fixtures (always there).
// Callers must not modify them.
func allCRDs(t *testing.T) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	testutil.CorpusDir(t) // skips here, not inside the Once
	allOnce.Do(func() { all = readAllCRDs(t) })
	if len(all) == 0 {
		t.Fatal("no CRDs read")
	}
	return all
}

func readAllCRDs(t *testing.T) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, f := range testutil.Files(t, "crds") {
		out = append(out, crdtest.Read(t, f).CRD)
	}
	corpus := len(out)
	for _, dir := range historyCRDs(t) {
		for _, r := range releases(t, dir) {
			out = append(out, r.CRD)
		}
	}
	fixtures, _ := filepath.Glob(filepath.Join(rulesDir, "*", "*.yaml"))
	for _, f := range fixtures {
		fx := readFixture(t, f)
		out = append(out, fx.old.CRD, fx.new.CRD)
	}
	if corpus < testutil.AtLeast(t, 100, 40) || len(out) < corpus+200 {
		t.Fatalf("read %d corpus CRDs and %d in all: is the test data there?", corpus, len(out))
	}
	t.Logf("%d CRDs (%d from the corpus)", len(out), corpus)
	return out
}

// TestSelfCompare: every CRD compared with a copy of itself reports
// nothing.
func TestSelfCompare(t *testing.T) {
	for _, crd := range allCRDs(t) {
		if cs := Revisions(crd, crd.DeepCopy(), Options{}); len(cs) > 0 {
			t.Errorf("%s compared with itself: %d changes, first: %s %s", crd.Name, len(cs), cs[0].Path, cs[0].Message)
		}
	}
}

// TestDocsOnly: changing every description, title, example and external
// doc of every schema node (and the printer columns' descriptions and the
// deprecation warnings) of every CRD reports nothing, both ways.
func TestDocsOnly(t *testing.T) {
	nodes := 0
	for _, crd := range allCRDs(t) {
		doc := crd.DeepCopy()
		nodes += redocument(doc)
		for _, pair := range [][2]*apiextensionsv1.CustomResourceDefinition{{crd, doc}, {doc, crd}} {
			if cs := Revisions(pair[0], pair[1], Options{}); len(cs) > 0 {
				t.Errorf("%s: documentation changes reported: %d changes, first: %s %s", crd.Name, len(cs), cs[0].Path, cs[0].Message)
			}
		}
	}
	if nodes < testutil.AtLeast(t, 50000, 15000) {
		t.Errorf("only %d schema nodes redocumented", nodes)
	}
	t.Logf("%d schema nodes redocumented", nodes)
}

// redocument rewrites the documentation of a CRD and returns how many
// schema nodes it touched.
func redocument(crd *apiextensionsv1.CustomResourceDefinition) int {
	n := 0
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		if v.DeprecationWarning != nil {
			w := *v.DeprecationWarning + " (reworded)"
			v.DeprecationWarning = &w
		}
		for j := range v.AdditionalPrinterColumns {
			v.AdditionalPrinterColumns[j].Description += " (reworded)"
		}
		if v.Schema != nil {
			n += redocumentSchema(v.Schema.OpenAPIV3Schema)
		}
	}
	return n
}

func redocumentSchema(s *apiextensionsv1.JSONSchemaProps) int {
	if s == nil {
		return 0
	}
	s.Description = "reworded: " + s.Description
	s.Title += " (reworded)"
	s.Example = &apiextensionsv1.JSON{Raw: []byte(`{"an":"example"}`)}
	s.ExternalDocs = &apiextensionsv1.ExternalDocumentation{Description: "more", URL: "https://example.com/docs"}
	n := 1
	for k, p := range s.Properties {
		n += redocumentSchema(&p)
		s.Properties[k] = p
	}
	for _, l := range [][]apiextensionsv1.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range l {
			n += redocumentSchema(&l[i])
		}
	}
	n += redocumentSchema(s.Not)
	if s.Items != nil {
		n += redocumentSchema(s.Items.Schema)
	}
	if s.AdditionalProperties != nil {
		n += redocumentSchema(s.AdditionalProperties.Schema)
	}
	return n
}
