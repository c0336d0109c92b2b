package fields

import (
	"errors"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

const collectCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object}
`

// TestCollectionPage: live CRDs go to the Collection's own catalogue,
// live objects are judged under the run's, and notes are said and
// counted as they come.
func TestCollectionPage(t *testing.T) {
	cat := crd.NewCatalog(false)
	cat.AddFound(crd.FindCRDs(source.Parse("crd.yaml", []byte(collectCRD))), crd.Input)
	var said []crd.Note
	c := NewCollection(nil, func(n []crd.Note) int { said = append(said, n...); return len(n) })
	err := c.Page(cat)([]*source.File{
		source.Parse("crd/widgets.example.com", []byte(collectCRD)),
		source.Parse("x/widgets/a", []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a, namespace: x}\n")),
		source.Parse("x/gadgets/b", []byte("apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: b, namespace: x}\n")),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.CRDs.Len() != 1 || len(c.Matched) != 1 || c.Seen != 1 || c.Unserved != 1 || len(said) != 1 || c.Empty() {
		t.Errorf("got %d live CRDs, %d matched, %d seen, %d unserved, notes %v; want 1, 1, 1, 1 and the Gadget's", c.CRDs.Len(), len(c.Matched), c.Seen, c.Unserved, said)
	}
}

// TestCollectionFiles: files are taken in order, and the first error ends
// it before the files after it are said.
func TestCollectionFiles(t *testing.T) {
	n := 0
	c := NewCollection(nil, func(notes []crd.Note) int { n += len(notes); return 0 })
	got := []*Objects{{Seen: 1, Notes: []crd.Note{{}}}, nil, {Seen: 5, Notes: []crd.Note{{}}}}
	refused := &ErrSelector{errors.New("field label not supported: spec.x")}
	if err := c.Files(got, []error{nil, refused, nil}); err != refused {
		t.Fatalf("got %v, want the selector's error", err)
	}
	if c.Seen != 1 || n != 1 {
		t.Errorf("got %d seen, %d notes said; want only the first file's", c.Seen, n)
	}
	if !NewCollection(nil, nil).Empty() {
		t.Error("a new Collection is not empty")
	}
}

// TestCollectTextProblems: a document kubectl cannot send is said as an
// error note (which fails the run), as prune says it, not passed over.
func TestCollectTextProblems(t *testing.T) {
	cat := crd.NewCatalog(false)
	cat.AddFound(crd.FindCRDs(source.Parse("crd.yaml", []byte(collectCRD))), crd.Input)
	got, err := Collect(cat, source.Parse("a.yaml", []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: %s\n")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Notes) != 1 || got.Notes[0].Label != "error" || got.Notes[0].Pos != "a.yaml:4:1" {
		t.Errorf("got notes %+v, want one error at a.yaml:4:1", got.Notes)
	}
}
