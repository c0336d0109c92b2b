package prune

import (
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// versionsCRD serves v1alpha1 (legacy, no defaults) and stores v1 (color
// defaulted), under the strategy the case puts in.
const versionsCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
  scope: Namespaced
  CONVERSION
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
              legacy: {type: string}
              color: {type: string}
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
              size: {type: integer}
              color: {type: string, default: red}
`

// TestFileThroughStorage: a v1alpha1 object is pruned as the server
// stores it in v1 and reads it back: legacy, which v1 lacks, goes; with
// --defaults v1's default comes back. A v1 object is pruned by v1 alone.
// Under a conversion webhook only v1alpha1's schema prunes, and a note
// says so (test/agreement's TestStoredAcrossVersions holds the None
// cases against a real server).
func TestFileThroughStorage(t *testing.T) {
	const webhook = `conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1], clientConfig: {url: "https://conv.example.com/convert"}}}`
	for _, tt := range []struct {
		name, conversion, version string
		defaults                  bool
		want                      string // the spec after pruning
		dropped, added            int
		note                      string
	}{
		{"None, v1alpha1", "conversion: {strategy: None}", "v1alpha1", false, "{size: 1}", 1, 0, ""},
		{"None, v1alpha1, defaults", "conversion: {strategy: None}", "v1alpha1", true, "{size: 1, color: red}", 1, 1, ""},
		{"no strategy, v1alpha1", "", "v1alpha1", false, "{size: 1}", 1, 0, ""},
		{"None, v1", "conversion: {strategy: None}", "v1", false, "{size: 1}", 1, 0, ""},
		{"webhook, v1alpha1", webhook, "v1alpha1", false, "{size: 1, legacy: a}", 0, 0, "pruned by version v1alpha1's schema only"},
		{"webhook, v1", webhook, "v1", false, "{size: 1}", 1, 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cat := crd.NewCatalog(false)
			cat.AddFound(crd.FindCRDs(source.Parse("crd.yaml", []byte(strings.Replace(versionsCRD, "CONVERSION", tt.conversion, 1)))), crd.Input)
			text := []byte("apiVersion: example.com/" + tt.version + "\nkind: Widget\nmetadata: {name: a, namespace: x}\nspec: {size: 1, legacy: a}\n")
			r := File(cat, source.Parse("w.yaml", text), text, Options{Defaults: tt.defaults})
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			var notes []string
			for _, n := range r.Notes {
				notes = append(notes, n.Label+": "+n.Msg)
			}
			if got := strings.Join(notes, "\n"); (tt.note == "") != (got == "") || !strings.Contains(got, tt.note) {
				t.Errorf("notes %q, want %q", got, tt.note)
			}
			if len(r.Docs) != 1 {
				t.Fatalf("%d documents pruned", len(r.Docs))
			}
			var w map[string]any
			if err := sigsyaml.Unmarshal([]byte("spec: "+tt.want), &w); err != nil {
				t.Fatal(err)
			}
			if !equalJSON(r.Docs[0].Object["spec"], w["spec"]) {
				t.Errorf("spec %v, want %v", r.Docs[0].Object["spec"], w["spec"])
			}
			if r.Docs[0].Object["apiVersion"] != "example.com/"+tt.version {
				t.Errorf("apiVersion %v", r.Docs[0].Object["apiVersion"])
			}
			if r.Dropped != tt.dropped || r.Added != tt.added {
				t.Errorf("dropped %d, added %d; want %d, %d", r.Dropped, r.Added, tt.dropped, tt.added)
			}
		})
	}
}
