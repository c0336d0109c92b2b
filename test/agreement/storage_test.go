package agreement_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/cmd/kubectl-crdlint/cmd"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/apiservertest"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crdtest"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// storageCRDs are CRDs whose versions have different schemas and convert
// with the None strategy, so that where an object is stored decides what
// is kept. Bolts: v1alpha1 has legacy (immutable) and a default of its
// own (note), v1 (stored) has color with a default and an open extra.
// Gears: v1alpha1 keeps whatever spec holds, v1beta1 (stored) has the
// defaults (ratio, shaft.length), v1 a material default of its own.
const storageCRDs = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: bolts.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {plural: bolts, singular: bolt, kind: Bolt, listKind: BoltList}
  conversion: {strategy: None}
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
              size: {type: integer}
              legacy: {type: string, x-kubernetes-validations: [{rule: "self == oldSelf", message: legacy is immutable}]}
              note: {type: string, default: none}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, x-kubernetes-validations: [{rule: "self == oldSelf", message: size is immutable}]}
              color: {type: string, default: red}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gears.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {plural: gears, singular: gear, kind: Gear, listKind: GearList}
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
            x-kubernetes-preserve-unknown-fields: true
            properties:
              teeth: {type: integer}
  - name: v1beta1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              teeth: {type: integer}
              ratio: {type: number, default: 1.5}
              shaft:
                type: object
                default: {}
                properties:
                  length: {type: integer, default: 10}
  - name: v1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              teeth: {type: integer}
              ratio: {type: number}
              material: {type: string, default: steel}
              shaft:
                type: object
                properties:
                  length: {type: integer}
                  bore: {type: integer}
`

// TestStoredAcrossVersions: what crdlint says a create stores and
// returns agrees with a real API server for multi-version CRDs whose
// versions' schemas differ under the None strategy: the object created
// in each served version, as etcd holds it (crdtest's Response.Stored,
// converted to the storage version and pruned by its schema), as the
// create returns it (crdtest's Response.Object, and prune --defaults's
// object), and as a GET in every served version reads it back
// (crd.Entry.ReadBack: defaulted in the storage version, converted and
// pruned by the version read). Updates in the version of the create
// (crdtest, and the immutable command) start from the object as storage
// reads it: a field the storage version lacks has no oldSelf.
func TestStoredAcrossVersions(t *testing.T) {
	srv := apiservertest.Start(t, apiservertest.Options{})
	f := source.Parse("crds.yaml", []byte(storageCRDs))
	cat := crd.NewCatalog(false)
	var crds []map[string]any
	for _, fd := range crd.FindCRDs(f) {
		if fd.Def == nil || fd.Def.Object() == nil {
			t.Fatalf("%s: not a CRD", fd.Source())
		}
		cat.Add(fd.Def, fd.Source(), crd.Extra)
		var obj map[string]any
		if err := json.Unmarshal(fd.Doc.JSON, &obj); err != nil {
			t.Fatal(err)
		}
		crds = append(crds, obj)
	}
	if len(crds) != 2 {
		t.Fatalf("%d CRDs", len(crds))
	}
	for _, c := range crds {
		srv.ApplyCRD(t, c)
	}
	dir := t.TempDir()
	crdPath := filepath.Join(dir, "crds.yaml")
	if err := os.WriteFile(crdPath, []byte(storageCRDs), 0o644); err != nil {
		t.Fatal(err)
	}
	ts, err := crdtest.Load(crdPath)
	if err != nil {
		t.Fatal(err)
	}
	ts.FieldValidation = "Ignore"

	type kind struct {
		kind, plural string
		versions     []string
		specs        []map[string]any
	}
	kinds := []kind{
		{"Bolt", "bolts", []string{"v1alpha1", "v1"}, []map[string]any{
			{"size": int64(3)},
			{"size": int64(3), "legacy": "a", "note": "x", "color": "blue", "extra": map[string]any{"any": "thing"}},
		}},
		{"Gear", "gears", []string{"v1alpha1", "v1beta1", "v1"}, []map[string]any{
			{"teeth": int64(12)},
			{"teeth": int64(12), "ratio": 2.5, "material": "brass", "shaft": map[string]any{"length": int64(4), "bore": int64(2)}, "loose": "end"},
		}},
	}
	n := 0
	for _, k := range kinds {
		gk := schema.GroupKind{Group: "example.org", Kind: k.kind}
		e := cat.Entry(gk)
		if e == nil {
			t.Fatalf("no entry for %s", gk)
		}
		for _, ver := range k.versions {
			for i, spec := range k.specs {
				n++
				name := fmt.Sprintf("%s-%s-%d", k.plural[:len(k.plural)-1], ver, i)
				t.Run(name, func(t *testing.T) {
					obj := map[string]any{"apiVersion": "example.org/" + ver, "kind": k.kind,
						"metadata": map[string]any{"name": name, "namespace": "default"}, "spec": runtime.DeepCopyJSON(spec)}
					created := srv.Create(t, runtime.DeepCopyJSON(obj))
					etcd := srv.Stored(t, "example.org", k.plural, "default", name)

					resp, err := ts.Do(crdtest.Request{Op: crdtest.Create, Object: runtime.DeepCopyJSON(obj)})
					if err != nil || resp.Err != nil {
						t.Fatalf("crdtest: %v %v", err, resp.Err)
					}
					same(t, "stored in etcd", resp.Stored, etcd)
					same(t, "the create's answer", resp.Object, created.Object)

					// prune --defaults: the object as the create returns it.
					p := filepath.Join(dir, name+".json")
					writeJSON(t, p, obj)
					streams, _, out, errOut := genericiooptions.NewTestIOStreams()
					code := cmd.Main(streams, []string{"prune", "--no-config", "--defaults", "-o", "json", "--crd", crdPath, p})
					var list struct{ Items []map[string]any }
					if err := json.Unmarshal(out.Bytes(), &list); err != nil || len(list.Items) != 1 {
						t.Fatalf("prune: exit %d, %v:\n%s%s", code, err, out, errOut)
					}
					same(t, "prune --defaults", list.Items[0], created.Object)

					// A GET in each served version.
					for _, rv := range k.versions {
						got, err := srv.Dynamic(t).Resource(schema.GroupVersionResource{Group: "example.org", Version: rv, Resource: k.plural}).Namespace("default").Get(context.Background(), name, metav1.GetOptions{})
						if err != nil {
							t.Fatal(err)
						}
						ours := runtime.DeepCopyJSON(resp.Stored)
						if _, err := e.ReadBack(ours, rv, true); err != nil {
							t.Fatal(err)
						}
						same(t, "a GET in "+rv, ours, got.Object)
					}
				})
			}
		}
	}
	if n == 0 {
		t.Fatal("no objects")
	}

	// Updates in v1alpha1 of an object created in v1alpha1: its legacy
	// field is not stored (v1 has none), so the transition rule on it
	// has no oldSelf and the server accepts a change; size's rule is
	// v1's only, which a v1alpha1 update does not run.
	ri := srv.Dynamic(t).Resource(schema.GroupVersionResource{Group: "example.org", Version: "v1alpha1", Resource: "bolts"}).Namespace("default")
	for i, tt := range []struct {
		name     string
		old, new map[string]any
	}{
		{"legacy changed", map[string]any{"size": int64(1), "legacy": "a"}, map[string]any{"size": int64(1), "legacy": "b"}},
		{"legacy set", map[string]any{"size": int64(1)}, map[string]any{"size": int64(1), "legacy": "b"}},
		{"size changed", map[string]any{"size": int64(1)}, map[string]any{"size": int64(2)}},
	} {
		t.Run("update "+tt.name, func(t *testing.T) {
			name := fmt.Sprintf("upd-%d", i)
			bolt := func(spec map[string]any) map[string]any {
				return map[string]any{"apiVersion": "example.org/v1alpha1", "kind": "Bolt",
					"metadata": map[string]any{"name": name, "namespace": "default"}, "spec": runtime.DeepCopyJSON(spec)}
			}
			srv.Create(t, bolt(tt.old))
			cur, err := ri.Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			req := &unstructured.Unstructured{Object: bolt(tt.new)}
			req.SetResourceVersion(cur.GetResourceVersion())
			updated, serr := ri.Update(context.Background(), req, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})

			created, err := ts.Do(crdtest.Request{Op: crdtest.Create, Object: bolt(tt.old)})
			if err != nil || created.Err != nil {
				t.Fatalf("crdtest: %v %v", err, created.Err)
			}
			resp, err := ts.Do(crdtest.Request{Op: crdtest.Update, Old: created.Stored, Object: bolt(tt.new)})
			if err != nil {
				t.Fatal(err)
			}
			if (resp.Err != nil) != (serr != nil) {
				t.Errorf("crdtest: %v; server: %v", resp.Err, serr)
			} else if serr == nil {
				same(t, "the update's answer", resp.Object, updated.Object)
			}

			oldPath := filepath.Join(dir, name+"-old.json")
			newPath := filepath.Join(dir, name+"-new.json")
			writeJSON(t, oldPath, bolt(tt.old))
			writeJSON(t, newPath, bolt(tt.new))
			streams, _, out, errOut := genericiooptions.NewTestIOStreams()
			code := cmd.Main(streams, []string{"immutable", "--no-config", "-o", "json", "--crd", crdPath, oldPath, newPath})
			var res struct {
				Findings []struct{ Rule, Message string } `json:"findings"`
			}
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("exit %d, %v:\n%s%s", code, err, out, errOut)
			}
			if refused := len(res.Findings) > 0; refused != (serr != nil) {
				t.Errorf("immutable: exit %d, %v; server: %v", code, res.Findings, serr)
			}
		})
	}
}

// same compares our object with the server's, without the metadata the
// server generates.
func same(t *testing.T, what string, ours, server map[string]any) {
	t.Helper()
	a, b := comparable(ours), comparable(server)
	if !reflect.DeepEqual(a, b) {
		ya, _ := yaml.Marshal(a)
		yb, _ := yaml.Marshal(b)
		t.Errorf("%s: crdlint's\n%s\nthe server's\n%s", what, ya, yb)
	}
}

// comparable is obj as JSON values (numbers as float64), with metadata
// reduced to name and namespace.
func comparable(obj map[string]any) map[string]any {
	if obj == nil {
		return nil
	}
	js, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := json.Unmarshal(js, &out); err != nil {
		panic(err)
	}
	if md, ok := out["metadata"].(map[string]any); ok {
		for k := range md {
			if !slices.Contains([]string{"name", "namespace", "labels", "annotations"}, k) {
				delete(md, k)
			}
		}
	}
	return out
}

func writeJSON(t *testing.T, path string, obj map[string]any) {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
