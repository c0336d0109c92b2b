package lint

import (
	"slices"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// validateCRD is a Gizmo CRD with a bounded replicas and an enum.
const validateCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.example.com}
spec:
  group: example.com
  names: {plural: gizmos, kind: Gizmo}
  scope: Namespaced
  versions:
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
              replicas: {type: integer, maximum: 5}
              color: {type: string, enum: [red, green]}
`

// TestFieldValidation: what each --validate makes of unknown fields and
// repeated keys, on a create, a CRD and an update, as the server answers
// the same request under each fieldValidation (test/agreement compares
// with a real one): under Strict the unknown field ends the request (its
// only finding), under Warn it is a warning and the rest is judged, under
// Ignore it is nothing; a repeated key is a warning, nothing under Ignore.
func TestFieldValidation(t *testing.T) {
	const (
		cr        = "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g, namespace: ns}\nspec:\n  replicas: 9\n  colour: red\n"
		repeated  = "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g, namespace: ns}\nspec:\n  color: blue\n  color: red\n"
		crdUnk    = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: things.example.com}\nspec:\n  group: example.com\n  version: v1\n  names: {plural: things, kind: Thing}\n  scope: Namespacd\n  versions:\n  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}\n"
		oldObject = "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g, namespace: ns}\nspec: {replicas: 1}\n"
		newObject = "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g, namespace: ns}\nspec: {replicas: 9, colour: red}\n"
	)
	for _, tt := range []struct {
		v                          fieldvalidation.Directive
		cr, repeated, crd, updates []string // rule severity field
	}{
		{fieldvalidation.Strict,
			[]string{"unknown-field error spec.colour"},
			[]string{"duplicate-field warning spec.color"},
			[]string{"unknown-field error spec.version"},
			[]string{"unknown-field error spec.colour"}},
		{fieldvalidation.Warn,
			[]string{"cr-schema error spec.replicas", "unknown-field warning spec.colour"},
			[]string{"duplicate-field warning spec.color"},
			[]string{"crd-scope error spec.scope", "unknown-field warning spec.version"},
			[]string{"unknown-field warning spec.colour", "update-invalid error spec.replicas"}},
		{"", // the zero value: Warn, the server's default
			[]string{"cr-schema error spec.replicas", "unknown-field warning spec.colour"},
			[]string{"duplicate-field warning spec.color"},
			[]string{"crd-scope error spec.scope", "unknown-field warning spec.version"},
			[]string{"unknown-field warning spec.colour", "update-invalid error spec.replicas"}},
		{fieldvalidation.Ignore,
			[]string{"cr-schema error spec.replicas"},
			nil,
			[]string{"crd-scope error spec.scope"},
			[]string{"update-invalid error spec.replicas"}},
	} {
		t.Run(string(tt.v), func(t *testing.T) {
			lintFile := func(name, text string) []string {
				cat := crd.NewCatalog(tt.v.Refuses())
				l := New(Options{Validate: tt.v, Catalog: cat})
				collect(l, source.Parse("crd.yaml", []byte(validateCRD)))
				fs, _ := l.File(source.Parse(name, []byte(text)))
				return briefs(fs)
			}
			if got := lintFile("cr.yaml", cr); !slices.Equal(got, tt.cr) {
				t.Errorf("create: %q, want %q", got, tt.cr)
			}
			if got := lintFile("repeated.yaml", repeated); !slices.Equal(got, tt.repeated) {
				t.Errorf("repeated key: %q, want %q", got, tt.repeated)
			}
			if got := lintFile("crd.yaml", crdUnk); !slices.Equal(got, tt.crd) {
				t.Errorf("CRD: %q, want %q", got, tt.crd)
			}
			cat := crd.NewCatalog(false)
			l := New(Options{Validate: tt.v, Catalog: cat})
			collect(l, source.Parse("crd.yaml", []byte(validateCRD)))
			oldRev, newRev := NewRevision(nil), NewRevision(nil)
			oldRev.Add(source.Parse("old.yaml", []byte(oldObject)))
			newRev.Add(source.Parse("new.yaml", []byte(newObject)))
			if got := briefs(l.Updates(oldRev, newRev, "default")); !slices.Equal(got, tt.updates) {
				t.Errorf("update: %q, want %q", got, tt.updates)
			}
		})
	}
}

// TestStrictCatalog: under Strict a CRD with an unknown field is refused,
// so its custom resources have no kind (cr-crd-rejected), as the server
// answers 404 once the CRD's create failed.
func TestStrictCatalog(t *testing.T) {
	crdText := validateCRD[:len("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: gizmos.example.com}\nspec:\n")] +
		"  version: v1\n" + validateCRD[len("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: gizmos.example.com}\nspec:\n"):]
	for v, want := range map[fieldvalidation.Directive][]string{
		fieldvalidation.Strict: {"cr-crd-rejected error kind"},
		fieldvalidation.Warn:   nil,
	} {
		cat := crd.NewCatalog(v.Refuses())
		l := New(Options{Validate: v, Catalog: cat})
		collect(l, source.Parse("crd.yaml", []byte(crdText)))
		fs, _ := l.File(source.Parse("cr.yaml", []byte("apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: g, namespace: ns}\nspec: {replicas: 1}\n")))
		if got := briefs(fs); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", v, got, want)
		}
	}
}

func briefs(fs []report.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule+" "+f.Severity.String()+" "+f.Field)
	}
	slices.Sort(out)
	return out
}
