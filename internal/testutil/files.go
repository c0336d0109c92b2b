package testutil

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// WriteFiles writes files (slash-separated paths relative to dir, with
// their content), creating directories; an empty content is written as
// is.
func WriteFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// CopyTree copies the files under src into dst, hard links when it can
// (a large binary nobody writes to), copies keeping the mode otherwise.
// A test that writes to what it copied wants CopyTreeNoLinks.
func CopyTree(tb testing.TB, src, dst string) { copyTree(tb, src, dst, true) }

// CopyTreeNoLinks is CopyTree with copies only: the test may change the
// files without changing src.
func CopyTreeNoLinks(tb testing.TB, src, dst string) { copyTree(tb, src, dst, false) }

func copyTree(tb testing.TB, src, dst string, link bool) {
	tb.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			// With its permissions, as a tar keeps them (test/action's
			// stand-in for actions/cache: the linter uses only a
			// private verdict cache).
			info, err := d.Info()
			if err != nil {
				return err
			}
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
			return os.Chmod(target, info.Mode().Perm())
		}
		if link && os.Link(p, target) == nil {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		info, err := in.Stat()
		if err != nil {
			return err
		}
		out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode())
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		tb.Fatalf("copy %s to %s: %v", src, dst, err)
	}
}
