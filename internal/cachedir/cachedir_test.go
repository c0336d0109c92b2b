package cachedir

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestResolve: flag > environment > the user cache directory.
func TestResolve(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("XDG_CACHE_HOME is Linux's")
	}
	tests := []struct {
		name, flag, env, xdg, home, want, err string
	}{
		{"flag", "/f", "/e", "/x", "/h", "/f", ""},
		{"environment", "", "/e", "/x", "/h", "/e", ""},
		{"XDG_CACHE_HOME", "", "", "/x", "/h", "/x/kubectl-crdlint", ""},
		{"HOME", "", "", "", "/h", "/h/.cache/kubectl-crdlint", ""},
		{"nothing", "", "", "", "", "", "give one with --cache-dir or KUBECTL_CRDLINT_CACHE_DIR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvVar, tt.env)
			t.Setenv("XDG_CACHE_HOME", tt.xdg)
			t.Setenv("HOME", tt.home)
			got, err := Resolve(tt.flag)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("Resolve: %q, %v; want an error containing %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Resolve(%q) = %q, %v; want %q", tt.flag, got, err, tt.want)
			}
		})
	}
}

func TestSub(t *testing.T) {
	root := t.TempDir()
	d, err := Sub(root, CRDs)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(d); err != nil || !st.IsDir() || d != filepath.Join(root, "crds") {
		t.Fatalf("Sub = %q (%v)", d, err)
	}
	if _, err := Sub(root, CRDs); err != nil {
		t.Errorf("Sub of an existing directory: %v", err)
	}
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Sub(file, Verdicts); err == nil || !strings.Contains(err.Error(), "cache directory "+filepath.Join(file, "verdicts")) || strings.Contains(err.Error(), "\n") {
		t.Errorf("Sub under a file: %v", err)
	}
}

func TestPrivate(t *testing.T) {
	d := t.TempDir()
	if err := os.Chmod(d, 0o700); err != nil {
		t.Fatal(err)
	}
	if !Private(d) {
		t.Error("a 0700 directory of the user's: not private")
	}
	if Private(filepath.Join(d, "missing")) {
		t.Error("a missing directory: private")
	}
	if runtime.GOOS == "windows" {
		return
	}
	if err := os.Chmod(d, 0o777); err != nil {
		t.Fatal(err)
	}
	if Private(d) {
		t.Error("a world-writable directory: private")
	}
	os.Chmod(d, 0o720)
	if Private(d) {
		t.Error("a group-writable directory: private")
	}
	os.Chmod(d, 0o755)
	if !Private(d) {
		t.Error("a 0755 directory of the user's: not private")
	}
}
