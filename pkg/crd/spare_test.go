package crd

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
)

// spareFile defines two kinds; gadgets has two served versions with
// different schemas and one that is not served.
const spareFile = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.spare.example.com
  labels: {tier: test}
spec:
  group: spare.example.com
  names: {kind: Gadget, plural: gadgets, shortNames: [gd]}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string}
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.size >= 0
            properties:
              size: {type: integer}
  - name: v0
    served: false
    storage: false
    schema:
      openAPIV3Schema: {type: object}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.spare.example.com
spec:
  group: spare.example.com
  names: {kind: Gizmo, plural: gizmos}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object}
`

func spareCatalog(t *testing.T) (*Catalog, []*Deferred) {
	t.Helper()
	c := NewCatalog(false)
	ds := c.deferLazy(Extra, []lazyFile{{Hint: ScanHint([]byte(spareFile)), Load: func() ([]Loaded, error) { return loadText("spare.yaml", []byte(spareFile)) }}})
	return c, ds
}

// TestSpareSavesADecode: the lookup that reads a deferred file compiles
// from the CRD the read decoded, not from its JSON decoded again, and the
// versions compiled that way are those a decode gives.
func TestSpareSavesADecode(t *testing.T) {
	gadget := schema.GroupKind{Group: "spare.example.com", Kind: "Gadget"}
	c, _ := spareCatalog(t)
	before := count.Now()
	v1, err := c.Lookup(gadget.WithVersion("v1"))
	if err != nil {
		t.Fatal(err)
	}
	if got := count.Now().Sub(before); got.CRDDecodes != 2 || got.CRDRedecodes != 0 || got.CRDValidations != 1 {
		t.Errorf("first lookup: %d decodes, %d decoded again, %d validations; want 2 (the file's), 0, 1", got.CRDDecodes, got.CRDRedecodes, got.CRDValidations)
	}
	// The file's other CRD, which no lookup asked for, keeps nothing.
	if gizmo := c.Entry(schema.GroupKind{Group: "spare.example.com", Kind: "Gizmo"}); gizmo == nil || gizmo.Def.spare != nil {
		t.Errorf("Gizmo entry %v: kept its decoded schemas", gizmo)
	}
	before = count.Now()
	v1alpha1, err := c.Lookup(gadget.WithVersion("v1alpha1"))
	if err != nil {
		t.Fatal(err)
	}
	if got := count.Now().Sub(before); got.CRDRedecodes != 1 {
		t.Errorf("second version: %d decoded again, want 1 (the spare was taken)", got.CRDRedecodes)
	}

	// Each compiled version equals the one compiled from a fresh decode.
	eager := NewCatalog(false)
	ls, _ := loadText("spare.yaml", []byte(spareFile))
	for _, l := range ls {
		eager.Add(l.Def, l.Source, Extra)
	}
	for _, got := range []*engine.Version{v1, v1alpha1} {
		want, err := eager.Lookup(got.GVK)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Structural(), want.Structural()) || !reflect.DeepEqual(got.Spec, want.Spec) || got.DeprecationWarning() != want.DeprecationWarning() {
			t.Errorf("%s compiled from the spare differs from a decode's", got.GVK)
		}
	}
}

// TestSpareDropped: a lookup that does not compile what the read kept —
// its version is not served or does not exist, or the CRD lost to a later
// one of its kind — lets it go. The CRDs are judged already, as a cached
// verdict makes them, so that the verdict does not take the spare first.
func TestSpareDropped(t *testing.T) {
	gadget := schema.GroupKind{Group: "spare.example.com", Kind: "Gadget"}
	judged := func(name, text string) lazyFile {
		return lazyFile{Hint: ScanHint([]byte(text)), Load: func() ([]Loaded, error) {
			ls, err := loadText(name, []byte(text))
			for _, l := range ls {
				l.Def.Judged(false, false)
			}
			return ls, err
		}}
	}
	for _, tc := range []struct {
		name, version string
		files         int
	}{
		{"version not served", "v0", 1},
		{"no such version", "v9", 1},
		{"the CRD lost to a later one", "v1", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCatalog(false)
			lazy := []lazyFile{judged("spare.yaml", spareFile)}
			if tc.files == 2 {
				lazy = append(lazy, judged("later.yaml", strings.Replace(spareFile, "shortNames: [gd]", "shortNames: [gdt]", 1)))
			}
			c.deferLazy(Extra, lazy)
			_, err := c.Lookup(gadget.WithVersion(tc.version))
			if (err == nil) != (tc.version == "v1") {
				t.Fatalf("lookup of %s: %v", tc.version, err)
			}
			c.mu.RLock()
			entries := c.all[gadget]
			c.mu.RUnlock()
			if len(entries) != tc.files {
				t.Fatalf("%d entries of the kind, want %d", len(entries), tc.files)
			}
			for _, e := range entries {
				e.Def.mu.Lock()
				kept := e.Def.spare != nil
				e.Def.mu.Unlock()
				if kept {
					t.Errorf("%s still keeps its decoded CRD", e.Source)
				}
			}
		})
	}
}

// TestShedSpareSharesNothing: what Full hands out after ShedSpare is the
// caller's own — changing it changes neither the shed CRD nor later Full
// results — and Full hands it out once.
func TestShedSpareSharesNothing(t *testing.T) {
	ls, _ := loadText("spare.yaml", []byte(spareFile))
	d := ls[0].Def
	want := Decode(d.raw).v1
	d.shedSpare()
	if !d.shedNow() || d.v1.Spec.Versions[0].Schema != nil {
		t.Fatal("ShedSpare did not shed")
	}
	shed := d.v1.DeepCopy()
	before := count.Now()
	full := d.Object()
	if got := count.Now().Sub(before).CRDRedecodes; got != 0 {
		t.Errorf("first Full decoded again (%d)", got)
	}
	if !reflect.DeepEqual(full, want) {
		t.Fatal("the spare is not the decoded CRD")
	}
	full.Labels["tier"] = "changed"
	full.Spec.Names.ShortNames[0] = "changed"
	full.Spec.Versions[1].AdditionalPrinterColumns[0].Name = "changed"
	full.Spec.Versions[1].Name = "changed"
	if !reflect.DeepEqual(d.v1, shed) {
		t.Error("changing what Full returned changed the shed CRD")
	}
	again := d.Object()
	if got := count.Now().Sub(before).CRDRedecodes; got != 1 {
		t.Errorf("second Full: %d decodes again, want 1", got)
	}
	if !reflect.DeepEqual(again, want) {
		t.Error("the second Full differs from a decode")
	}
}
