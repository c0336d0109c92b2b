package crd

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
)

func TestIdentity(t *testing.T) {
	const js = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`
	gk := schema.GroupKind{Group: "example.com", Kind: "Widget"}
	id := func(cat *Catalog) string {
		t.Helper()
		id, ok := cat.Identity(gk)
		if !ok {
			t.Fatal("a CRD decoded from JSON has no identity")
		}
		return id
	}
	empty := NewCatalog(false)
	if got := id(empty); got != "" {
		t.Errorf("no CRD: identity %q, want \"\"", got)
	}
	before := count.Now()
	a, b, c, d := NewCatalog(false), NewCatalog(false), NewCatalog(false), NewCatalog(false)
	a.Add(Decode([]byte(js)), "a.yaml:1", Input)
	b.Add(Decode([]byte(js)), "a.yaml:1", Input)
	c.Add(Decode([]byte(js)), "a.yaml:5", Input)
	d.Add(Decode([]byte(js)), "a.yaml:1", Extra)
	if id(a) != id(b) {
		t.Error("the same CRD from the same place: identities differ")
	}
	if id(a) == id(c) || id(a) == id(d) || id(a) == "" {
		t.Error("another source or layer: same identity")
	}
	edited := NewCatalog(false)
	edited.Add(Decode([]byte(strings.Replace(js, `"storage":true`, `"storage":true,"deprecated":true`, 1))), "a.yaml:1", Input)
	if e := id(edited); e == "" || e == id(a) {
		t.Error("an edited CRD: same identity")
	}
	if n := count.Now().Sub(before); n.VersionCompiles != 0 || n.CRDValidations != 0 || n.CRDRedecodes != 0 {
		t.Errorf("Identity compiled, validated or decoded: %+v", n)
	}
	v1 := NewCatalog(false)
	v1.Add(accepted(widgetCRD()), "cluster", Cluster)
	if _, ok := v1.Identity(gk); ok {
		t.Error("a CRD without JSON has an identity")
	}
}
