package kustomize

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/types"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// FuzzWithOrigins: the kustomization handed to kustomize reads as the
// user's plus originAnnotations, or is the user's untouched.
func FuzzWithOrigins(f *testing.F) {
	for _, s := range []string{
		"resources: [a.yaml]\n",
		"buildMetadata: [originAnnotations]\n",
		"BuildMetadata: [managedByLabel]\nresources: [a]\n",
		"namePrefix: x\nbuildmetadata: [transformerAnnotations]\n",
		"{\"resources\": [\"a\"], \"replicas\": [{\"name\": \"x\", \"count\": 1e3}]}",
		"resources: &a [x]\ncomponents: *a\n",
		"- a\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, asked, ok := withOrigins(data)
		if !ok {
			return
		}
		if asked {
			t.Fatal("ok and asked: the kustomization was rewritten although it asks for origins itself")
		}
		var before, after types.Kustomization
		if err := before.Unmarshal(data); err != nil {
			t.Fatalf("rewrote a kustomization kustomize refuses: %v", err)
		}
		if err := after.Unmarshal(out); err != nil {
			t.Fatalf("kustomize refuses the rewrite: %v\n%s", err, out)
		}
		if !slices.Contains(after.BuildMetadata, types.OriginAnnotations) {
			t.Fatalf("no originAnnotations in %v", after.BuildMetadata)
		}
		after.BuildMetadata = before.BuildMetadata
		if !equalKustomizations(before, after) {
			t.Fatalf("the rewrite changed more than buildMetadata:\n%+v\n%+v", before, after)
		}
	})
}

func equalKustomizations(a, b types.Kustomization) bool {
	x, err1 := yaml.Marshal(a)
	y, err2 := yaml.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// FuzzTrace: any field path on any rendered document gives a trace and
// never panics; an exact trace has a position.
func FuzzTrace(f *testing.F) {
	r, err := Render(filepath.Join(repo, "overlays/dev"))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"", "<nil>", "spec.color", "spec.template.image", "data[mode]", "metadata.labels[app]",
		"spec[", "spec]]", "a..b", "spec.versions[0].schema.openAPIV3Schema.properties[spec]", "spec.x[-1]", "[[[]]]"} {
		f.Add(3, s)
	}
	f.Fuzz(func(t *testing.T, doc int, field string) {
		tr := r.Trace(doc, field)
		if tr.Exact && (tr.File == "" || tr.Line < 1 || tr.Column < 1) {
			t.Fatalf("exact trace without a position: %+v", tr)
		}
		in := report.Finding{File: r.Name, Document: doc, Field: field, Line: 1, Column: 1}
		got := r.Map(in)
		if got.Field != field {
			t.Fatalf("Map changed the field: %+v", got)
		}
		if inRange := doc >= 0 && doc < len(r.Objects); inRange && (got.File == r.Name || got.Document < 0) || !inRange && got != in {
			t.Fatalf("Map of document %d of %d: %+v", doc, len(r.Objects), got)
		}
	})
}

// FuzzKustomizationPatches: whatever a kustomization holds, reading its
// patches, kustomization fields and generator entries for a trace
// never panics, and positions stay inside the file.
func FuzzKustomizationPatches(f *testing.F) {
	for _, s := range []string{
		"patches:\n  - patch: |\n      kind: Widget\n      metadata:\n        name: web\n      spec:\n        color: purple\n",
		"patches:\n  - target: {kind: Widget}\n    patch: |-\n      - op: add\n        path: /spec/color\n        value: purple\n",
		"patches:\n  - target: {kind: '['}\n    patch: \"- op: replace\\n  path: /spec\\n  value: {color: purple}\"\n",
		"patchesStrategicMerge:\n- |\n  kind: Widget\n  metadata: {name: web}\n  spec: {color: purple}\n",
		"patchesJson6902:\n- target: {name: web}\n  patch: '[{\"op\": \"add\", \"path\": \"/spec/color\", \"value\": \"purple\"}]'\n",
		"namespace: purple\ncommonLabels: {color: purple}\nlabels: [{pairs: {color: purple}}]\n",
		"configMapGenerator:\n- name: web\n  literals: [color=purple]\n  files: [color=x.txt, y/color]\n",
		"patches:\n  - patch: |2\n        kind: Widget\n       metadata: {name: web}\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		k, ok := parseKust(dir, filepath.Join(dir, "kustomization.yaml"), data)
		if !ok {
			return
		}
		k.readPositions()
		r := &Rendered{Dir: dir, tree: &tree{kusts: []*kust{k}, byDir: map[string]*kust{dir: k}}, files: map[string]*originFile{}}
		obj := Object{Object: report.ObjectRef{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "purple", Name: "web"}, Origin: Origin{Path: k.file}}
		lines := strings.Count(string(data), "\n") + 1
		rendered := map[string]any{"metadata": map[string]any{"name": "web", "namespace": "purple", "labels": map[string]any{"color": "purple"}},
			"spec": map[string]any{"color": "purple"}, "data": map[string]any{"color": "purple"}}
		for _, field := range []string{"spec.color", "metadata.namespace", "metadata.labels[color]", "spec"} {
			steps, val, ok := resolve(rendered, field)
			if !ok {
				t.Fatalf("%s not in the rendered object", field)
			}
			if tr, found := r.patchTrace(obj, "web", steps, val); found && tr.File == k.file && tr.Line > lines {
				t.Fatalf("%s traced to line %d of a %d-line file", field, tr.Line, lines)
			}
		}
		for _, g := range []string{"ConfigMapGenerator", "SecretGenerator"} {
			obj.Origin.Generator = g
			steps, val, _ := resolve(rendered, "data[color]")
			r.generatorTrace(Trace{File: k.file}, obj, steps, val, true)
		}
	})
}

// TestRenderBadKustomizations: kustomizations kustomize refuses are one
// line each, never a panic or a hang.
func TestRenderBadKustomizations(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"garbage", map[string]string{"kustomization.yaml": "\x00\xff: [\n"}, "kustomize build"},
		{"wrong type", map[string]string{"kustomization.yaml": "resources: 5\n"}, "kustomize build"},
		{"itself", map[string]string{"kustomization.yaml": "resources: [.]\n"}, "cycle"},
		{"a cycle", map[string]string{"kustomization.yaml": "resources: [b]\n", "b/kustomization.yaml": "resources: [../c]\n", "c/kustomization.yaml": "resources: [../b]\n"}, "cycle"},
		{"two kustomizations", map[string]string{"kustomization.yaml": "resources: [a.yaml]\n", "Kustomization": "resources: [a.yaml]\n", "a.yaml": "kind: X\n"}, "multiple kustomization files"},
		{"empty", map[string]string{"kustomization.yaml": "kind: Kustomization\n"}, "kustomization.yaml is empty"},
		{"not an object", map[string]string{"kustomization.yaml": "resources: [a.yaml]\n", "a.yaml": "- 1\n"}, "kustomize build"},
		{"component without kustomization", map[string]string{"kustomization.yaml": "components: [c]\n", "c/x.yaml": "kind: X\n"}, `component "c"`},
		{"remote path in an inline transformer", map[string]string{"kustomization.yaml": "resources: [a.yaml]\ntransformers:\n- |\n  apiVersion: builtin\n  kind: PatchTransformer\n  metadata: {name: p}\n  path: https://example.com/p.yaml\n  target: {kind: X}\n", "a.yaml": "apiVersion: v1\nkind: X\nmetadata: {name: a}\n"}, `remote file "https://example.com/p.yaml"`},
		{"remote file of a generator config file", map[string]string{"kustomization.yaml": "generators: [gen.yaml]\n", "gen.yaml": "apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: {name: c}\nfiles: [k=https://example.com/v.txt]\n"}, `remote file "https://example.com/v.txt"`},
		{"remote component", map[string]string{"kustomization.yaml": "components: [ssh://git@example.com/org/repo.git//c]\n"}, `remote component "ssh://git@example.com/org/repo.git//c"`},
		{"remote configMapGenerator file", map[string]string{"kustomization.yaml": "configMapGenerator:\n- name: c\n  files: [http://example.com/a.txt]\n"}, `remote configMapGenerator file "http://example.com/a.txt"`},
		{"helm charts are off", map[string]string{"kustomization.yaml": "helmCharts:\n- name: shop\n  repo: https://charts.example.com\n"}, "--enable-helm"},
		{"resource directory without kustomization", map[string]string{"kustomization.yaml": "resources: [c]\n", "c/x.yaml": "kind: X\n"}, `resource "c"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tt.files {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r, err := Render(dir)
			if err == nil {
				t.Fatalf("rendered %d objects, want an error", len(r.Objects))
			}
			if msg := err.Error(); !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("got %q, want one line containing %q", msg, tt.want)
			}
		})
	}
}
