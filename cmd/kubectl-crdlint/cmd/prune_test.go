package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func TestPruneInPlace(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	crdPath := write("crd.yaml", widgetCRD, 0o644)
	dirty := write("dirty.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec:\n  size: 3 # kept\n  sise: 4 # typo\n", 0o600)
	clean := write("clean.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: b}\nspec:\n  size: 3\n", 0o644)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, p := range []string{dirty, clean} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	streams, _, _, errOut := genericiooptions.NewTestIOStreams()
	o := &PruneOptions{sourceOptions: sourceOptions{CRDs: []string{crdPath}}, InPlace: true, Output: "yaml", paths: []string{dirty, clean}, IOStreams: streams}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := o.Run(context.Background()); err != nil {
		t.Fatalf("got error %v, want none (stderr %s)", err, errOut)
	}
	got, _ := os.ReadFile(dirty)
	if want := "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec:\n  size: 3 # kept\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if st, _ := os.Stat(dirty); st.Mode().Perm() != 0o600 {
		t.Errorf("got mode %v, want the file's 0600 kept", st.Mode().Perm())
	}
	if st, _ := os.Stat(clean); !st.ModTime().Equal(old) {
		t.Errorf("unchanged file was rewritten (mtime %v, want %v)", st.ModTime(), old)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		t.Errorf("got %d files in the directory, want 3: a temporary file was left behind", len(ents))
	}
	// A second run finds nothing to prune: --dry-run exits 0.
	streams, _, out, _ := genericiooptions.NewTestIOStreams()
	o = &PruneOptions{sourceOptions: sourceOptions{CRDs: []string{crdPath}}, DryRun: true, Output: "yaml", paths: []string{dirty, clean}, IOStreams: streams}
	if err := o.Run(context.Background()); err != nil {
		t.Fatalf("dry run after in-place: got %v, want clean (%s)", err, out)
	}
}

func TestPruneValidate(t *testing.T) {
	tests := []struct {
		name string
		o    PruneOptions
		ok   bool
	}{
		{"fine", PruneOptions{Output: "yaml", paths: []string{"x"}}, true},
		{"no input", PruneOptions{Output: "yaml"}, false},
		{"bad output", PruneOptions{Output: "table", paths: []string{"x"}}, false},
		{"dry-run and in-place", PruneOptions{Output: "yaml", DryRun: true, InPlace: true, paths: []string{"x"}}, false},
		{"in-place stdin", PruneOptions{Output: "yaml", InPlace: true, paths: []string{"-"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Validate()
			var ue *UsageError
			if tt.ok != (err == nil) || (err != nil && !errors.As(err, &ue)) {
				t.Fatalf("got %v, want ok=%v (usage error otherwise)", err, tt.ok)
			}
		})
	}
}
