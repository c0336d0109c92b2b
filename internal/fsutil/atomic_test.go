package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteNew(t *testing.T) {
	for _, tc := range []struct {
		name     string
		existing bool
		perm     os.FileMode
	}{
		{"new file", false, 0o644},
		{"replaces a file", true, 0o600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f.json")
			if tc.existing {
				if err := os.WriteFile(p, []byte("old, longer than the new content"), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteNew(p, []byte("new"), tc.perm); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(p)
			if err != nil || string(data) != "new" {
				t.Fatalf("read %q, %v", data, err)
			}
			st, _ := os.Stat(p)
			if st.Mode().Perm() != tc.perm {
				t.Errorf("mode %v, want %v", st.Mode().Perm(), tc.perm)
			}
			if es, _ := os.ReadDir(dir); len(es) != 1 {
				t.Errorf("%d files in the directory, want 1 (no temporary left)", len(es))
			}
		})
	}
}

// TestWriteNewFailureKeepsTheFile: a write that cannot complete leaves
// the file as it was and no temporary file.
func TestWriteNewFailureKeepsTheFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub")
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	// Renaming a file over a non-empty directory fails.
	if err := os.WriteFile(filepath.Join(p, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteNew(p, []byte("new"), 0o644); err == nil {
		t.Fatal("no error replacing a directory")
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("%d entries in the directory, want 1 (no temporary left)", len(es))
	}
	if _, err := os.Stat(filepath.Join(p, "keep")); err != nil {
		t.Error("the directory's content is gone")
	}
}

func TestWriteAtomicKeepsModeAndFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.yaml")
	if err := os.WriteFile(target, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	data, _ := os.ReadFile(target)
	st, _ := os.Stat(target)
	if string(data) != "new" || st.Mode().Perm() != 0o640 {
		t.Errorf("target %q mode %v, want \"new\" 0640", data, st.Mode().Perm())
	}
	if err := WriteAtomic(filepath.Join(dir, "missing.yaml"), []byte("x")); err == nil {
		t.Error("WriteAtomic created a file that did not exist")
	}
}
