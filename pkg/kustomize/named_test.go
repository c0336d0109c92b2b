package kustomize

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNotResources: every form a kustomization names a patch or other
// non-resource file in is listed; resources, components, crds, inline
// patches and remote files are not.
func TestNotResources(t *testing.T) {
	tests := []struct {
		name string
		kust string
		want []string
	}{
		{"patches path", "patches:\n- path: p.yaml\n  target: {kind: X}\n- patch: |-\n    kind: X\n", []string{"p.yaml"}},
		{"patchesStrategicMerge", "patchesStrategicMerge:\n- smp.yaml\n- |-\n  kind: X\n  metadata: {name: a}\n", []string{"smp.yaml"}},
		{"patchesJson6902", "patchesJson6902:\n- path: ops.yaml\n  target: {kind: X, name: a}\n", []string{"ops.yaml"}},
		{"elsewhere in the repository", "patches:\n- path: ../../config/crd/patches/webhook_in_x.yaml\n", []string{"../../config/crd/patches/webhook_in_x.yaml"}},
		{"replacements", "replacements:\n- path: r.yaml\n", []string{"r.yaml"}},
		{"generator inputs", "configMapGenerator:\n- name: c\n  files: [config.yaml, key=other.yaml]\n  envs: [a.env]\nsecretGenerator:\n- name: s\n  files: [tls.crt]\n", []string{"a.env", "config.yaml", "other.yaml", "tls.crt"}},
		{"configurations, transformers, validators", "configurations: [c.yaml]\ntransformers: [t.yaml]\nvalidators: [v.yaml]\n", []string{"c.yaml", "t.yaml", "v.yaml"}},
		{"a transformer's patch", "transformers:\n- |-\n  apiVersion: builtin\n  kind: PatchTransformer\n  metadata: {name: p}\n  path: pt.yaml\n", []string{"pt.yaml"}},
		{"resources, components and crds are whole", "resources: [a.yaml, ../base]\ncomponents: [../comp]\ncrds: [crd.yaml]\n", nil},
		{"remote", "patches:\n- path: https://example.com/p.yaml\n", nil},
		{"deprecated bases", "bases: [../base]\n", nil},
		{"not a kustomization", "resources: 5\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "overlays", "prod")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(tt.kust), 0o644); err != nil {
				t.Fatal(err)
			}
			file, got := NotResources(dir)
			if file != filepath.Join(dir, "kustomization.yaml") {
				t.Errorf("file = %q", file)
			}
			var rel []string
			for _, p := range got {
				r, err := filepath.Rel(dir, p)
				if err != nil {
					t.Fatal(err)
				}
				rel = append(rel, filepath.ToSlash(r))
			}
			slices.Sort(rel)
			if strings.Join(rel, " ") != strings.Join(tt.want, " ") {
				t.Errorf("got %q, want %q", rel, tt.want)
			}
		})
	}
	if file, got := NotResources(t.TempDir()); file != "" || got != nil {
		t.Errorf("a directory without a kustomization: got %q %q", file, got)
	}
}

// FuzzNotResources: any kustomization is read without panicking, and no
// inline patch (a multi-line string) is taken for a file.
func FuzzNotResources(f *testing.F) {
	for _, s := range []string{
		"patches: [{path: a.yaml}, {patch: x}, 3, [1]]\npatchesStrategicMerge: [a, {b: c}]",
		"patchesStrategicMerge:\n- |\n  kind: Widget\n  metadata: {name: web}\n",
		"configMapGenerator:\n- name: web\n  files: [color=x.txt, y/color]\n",
		"transformers:\n- |-\n  kind: PatchTransformer\n  path: p.yaml\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, got := NotResources(dir)
		for _, p := range got {
			if strings.Contains(p, "\n") {
				t.Fatalf("inline patch taken for a file: %q", p)
			}
		}
	})
}
