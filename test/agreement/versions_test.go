package agreement_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/cmd/kubectl-crdlint/cmd"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/apiservertest"
)

// versionsCRD serves v1alpha1 and v1beta1 (stored, None conversion):
// size is immutable in both, legacy only in v1alpha1, color only in
// v1beta1, with a default and a transition rule.
const versionsCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: sprockets.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {plural: sprockets, singular: sprocket, kind: Sprocket, listKind: SprocketList}
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
              size: {type: string, x-kubernetes-validations: [{rule: "self == oldSelf", message: size is immutable}]}
              legacy: {type: string, x-kubernetes-validations: [{rule: "self == oldSelf", message: legacy is immutable}]}
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
              size: {type: string, x-kubernetes-validations: [{rule: "self == oldSelf", message: size is immutable}]}
              legacy: {type: string}
              color: {type: string, default: red, x-kubernetes-validations: [{rule: "self == oldSelf", message: color is immutable}]}
`

// TestImmutableAcrossVersions: kubectl crdlint immutable agrees with a
// real API server on an object created as v1alpha1 and updated as
// v1beta1 (dry run): one object, read back in the request's version
// (converted, pruned, defaulted by the storage version), so its
// transition rules hold across the change of version.
func TestImmutableAcrossVersions(t *testing.T) {
	srv := apiservertest.Start(t, apiservertest.Options{})
	var crdObj map[string]any
	if err := yaml.Unmarshal([]byte(versionsCRD), &crdObj); err != nil {
		t.Fatal(err)
	}
	srv.ApplyCRD(t, crdObj)
	dir := t.TempDir()
	write := func(name string, obj map[string]any) string {
		p := filepath.Join(dir, name)
		writeJSON(t, p, obj)
		return p
	}
	crdPath := filepath.Join(dir, "crd.yaml")
	if err := os.WriteFile(crdPath, []byte(versionsCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := func(version, name string, spec map[string]any) map[string]any {
		return map[string]any{"apiVersion": "example.org/" + version, "kind": "Sprocket",
			"metadata": map[string]any{"name": name, "namespace": "default"}, "spec": spec}
	}
	ri := srv.Dynamic(t).Resource(schema.GroupVersionResource{Group: "example.org", Version: "v1beta1", Resource: "sprockets"}).Namespace("default")
	for i, tt := range []struct {
		name      string
		old, new  map[string]any
		refuseMsg string
	}{
		{"size changed", map[string]any{"size": "small"}, map[string]any{"size": "large"}, "size is immutable"},
		{"only the version changes", map[string]any{"size": "small"}, map[string]any{"size": "small"}, ""},
		// color was defaulted to red when the stored object was read.
		{"a default of the storage version, changed", map[string]any{"size": "small"}, map[string]any{"size": "small", "color": "blue"}, "color is immutable"},
		{"a default of the storage version, kept", map[string]any{"size": "small"}, map[string]any{"size": "small", "color": "red"}, ""},
		{"legacy changed: v1beta1 has no rule on it", map[string]any{"size": "small", "legacy": "a"}, map[string]any{"size": "small", "legacy": "b"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			name := "s" + string(rune('a'+i))
			srv.Create(t, obj("v1alpha1", name, tt.old))
			req := &unstructured.Unstructured{Object: obj("v1beta1", name, tt.new)}
			cur, err := ri.Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			req.SetResourceVersion(cur.GetResourceVersion())
			_, serr := ri.Update(context.Background(), req, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			if (serr != nil) != (tt.refuseMsg != "") {
				t.Fatalf("server: %v, want refused: %v", serr, tt.refuseMsg != "")
			}
			oldPath := write(name+"-old.json", obj("v1alpha1", name, tt.old))
			newPath := write(name+"-new.json", obj("v1beta1", name, tt.new))
			streams, _, out, errOut := genericiooptions.NewTestIOStreams()
			code := cmd.Main(streams, []string{"immutable", "--no-config", "-o", "json", "--crd", crdPath, oldPath, newPath})
			var res struct {
				Findings []struct{ Rule, Message string } `json:"findings"`
			}
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("exit %d, %v:\n%s%s", code, err, out, errOut)
			}
			var rules []string
			for _, f := range res.Findings {
				rules = append(rules, f.Rule)
			}
			if tt.refuseMsg == "" {
				if code != 0 || len(rules) != 0 {
					t.Errorf("crdlint: exit %d, %v; the server accepts", code, res.Findings)
				}
				return
			}
			if code != 1 || !slices.Equal(rules, []string{"update-cel"}) {
				t.Errorf("crdlint: exit %d, %v; the server refuses: %v", code, res.Findings, serr)
			}
		})
	}
}
