package lint

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// twoVersionsCRD serves v1alpha1 and v1beta1 (stored), size immutable in
// both, and a field only v1alpha1 has; conversion is replaced per case.
const twoVersionsCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
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
              size: {type: string, x-kubernetes-validations: [{rule: "self == oldSelf", message: immutable}]}
              legacy: {type: string}
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
              size: {type: string, x-kubernetes-validations: [{rule: "self == oldSelf", message: immutable}]}
              color: {type: string, default: red, x-kubernetes-validations: [{rule: "self == oldSelf", message: color is immutable}]}
`

// An object written in one version and updated in another is one object
// to the server (paired by group, kind, namespace and name), read back in
// the request's version: under None relabelled and pruned by its schema,
// so transition rules hold across the change of version; under Webhook
// the update is not judged, and a warning says why.
func TestUpdateAcrossVersions(t *testing.T) {
	const webhook = "  conversion:\n    strategy: Webhook\n    webhook:\n      conversionReviewVersions: [v1]\n      clientConfig: {url: \"https://conv.example.com/convert\"}\n"
	obj := func(v, spec string) string {
		return "apiVersion: example.com/" + v + "\nkind: Widget\nmetadata: {name: w, namespace: default}\nspec: " + spec + "\n"
	}
	for _, tt := range []struct {
		name, conversion, old, new string
		want                       []string
	}{
		{"None: a transition rule across versions", "", obj("v1alpha1", "{size: small}"), obj("v1beta1", "{size: large}"), []string{"update-cel error spec.size"}},
		{"None: only the version changes", "", obj("v1alpha1", "{size: small}"), obj("v1beta1", "{size: small}"), nil},
		{"None: a field the new version lacks is pruned, not compared", "", obj("v1alpha1", "{size: small, legacy: x}"), obj("v1beta1", "{size: small}"), nil},
		{"None: the same version, as before", "", obj("v1beta1", "{size: small}"), obj("v1beta1", "{size: large}"), []string{"update-cel error spec.size"}},
		{"Webhook: not judged", webhook, obj("v1alpha1", "{size: small}"), obj("v1beta1", "{size: large}"), []string{"update-unpaired warning apiVersion"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cat := crd.NewCatalog(false)
			l := New(Options{Catalog: cat})
			crdText := strings.Replace(twoVersionsCRD, "CONVERSION\n", tt.conversion, 1)
			collect(l, source.Parse("crd.yaml", []byte(crdText)))
			oldRev, newRev := NewRevision(nil), NewRevision(nil)
			oldRev.Add(source.Parse("old.yaml", []byte(tt.old)))
			newRev.Add(source.Parse("new.yaml", []byte(tt.new)))
			fs := l.Updates(oldRev, newRev, "default")
			if got := briefs(fs); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q (%v)", got, tt.want, fs)
			}
		})
	}
}

// TestUpdateTextProblems: a document of OLD or NEW that kubectl cannot
// send is no object to pair, and the run says why (yaml-syntax), once when
// OLD and NEW are the same file (immutable . .); a repeated key, which
// kubectl resolves, is not said.
func TestUpdateTextProblems(t *testing.T) {
	const broken = "apiVersion: example.com/v1beta1\nkind: Widget\nmetadata:\n  name: %s\n"
	const repeated = "apiVersion: example.com/v1beta1\nkind: Widget\nmetadata: {name: w, namespace: default}\nspec: {size: a, size: a}\n"
	cat := crd.NewCatalog(false)
	l := New(Options{Catalog: cat})
	collect(l, source.Parse("crd.yaml", []byte(strings.Replace(twoVersionsCRD, "CONVERSION\n", "", 1))))
	for _, tt := range []struct {
		name, oldPath, newPath string
		want                   []string
	}{
		{"the same file", "a.yaml", "a.yaml", []string{"yaml-syntax error "}},
		{"two files", "old/a.yaml", "new/a.yaml", []string{"yaml-syntax error ", "yaml-syntax error "}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			oldRev, newRev := NewRevision(nil), NewRevision(nil)
			oldRev.Add(source.Parse(tt.oldPath, []byte(broken)))
			newRev.Add(source.Parse(tt.newPath, []byte(broken)))
			oldRev.Add(source.Parse("r.yaml", []byte(repeated)))
			newRev.Add(source.Parse("r.yaml", []byte(repeated)))
			if got := briefs(l.Updates(oldRev, newRev, "default")); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
