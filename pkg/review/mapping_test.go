package review

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/kustomize"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// stream is a helm template stream: a document without its comment, a
// comment that renders nothing (no document for kubectl), then two.
const stream = `---
apiVersion: v1
kind: ConfigMap
metadata: {name: plain}
---
# Source: shop/templates/disabled.yaml
---
# Source: shop/templates/a.yaml
apiVersion: example.com/v1
kind: Gadget
metadata: {name: a}
---
# Source: shop/templates/b.yaml
apiVersion: example.com/v1
kind: Gadget
metadata: {name: b}
`

// TestMappingHelm: on a helm template stream, each finding names the
// template of its document; documents are counted from the text's first
// (a document read alone is at Base in its file).
func TestMappingHelm(t *testing.T) {
	r := reviewer(t, "", config.Flags{}, Options{})
	tests := []struct {
		name string
		text string
		base int
		docs []int // the findings' documents in the file
		want []string
	}{
		{"whole stream", stream, 0, []int{0, 1, 2, 3}, []string{"", "shop/templates/a.yaml", "shop/templates/b.yaml", ""}},
		{"a document read alone", "# Source: shop/templates/b.yaml\nkind: Gadget\n", 7, []int{7, 8}, []string{"shop/templates/b.yaml", ""}},
		{"no comments", "kind: Gadget\n", 0, []int{0}, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := File{Name: "out.yaml", Comments: r.Read("out.yaml", []byte(tt.text), 1), Base: tt.base}
			for _, d := range tt.docs {
				f.Findings = append(f.Findings, report.Finding{Rule: "cr-schema", File: "out.yaml", Document: d})
			}
			mapping{}.file(r, &f)
			var got []string
			for _, x := range f.Findings {
				got = append(got, x.Via)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got Via %q, want %q", got, tt.want)
			}
		})
	}
}

// TestMappingKustomize: a rendered kustomization's findings point at the
// file their field was written in, with the rendered position in Via,
// and so do the objects it lists as judged.
func TestMappingKustomize(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"kustomization.yaml": "resources: [gadget.yaml]\nnamespace: shop\n",
		"gadget.yaml":        "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: a\nspec:\n  size: 30\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k, err := kustomize.Render(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := reviewer(t, "", config.Flags{}, Options{})
	obj := report.ObjectRef{APIVersion: "example.com/v1", Kind: "Gadget", Namespace: "shop", Name: "a"}
	f := File{
		Name: k.Name, Kustomization: k,
		Findings: []report.Finding{{Rule: "cr-schema", File: k.Name, Line: 7, Column: 3, Field: "spec.size", Object: obj}},
		Checked:  []report.Checked{{File: k.Name, Object: obj}},
	}
	mapping{}.file(r, &f)
	gadget := filepath.Join(dir, "gadget.yaml")
	if got, want := seenOf(f.Findings), []seen{{Rule: "cr-schema", File: gadget, Line: 6, Via: k.Name + ":7:3"}}; !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := f.Checked[0]; got.File != gadget || got.Document != 0 {
		t.Errorf("checked: got %s document %d, want %s document 0", got.File, got.Document, gadget)
	}
}
