package bench

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTarRoundTrip: a cache saved and restored as actions/cache does keeps
// its files, their modes (the linter uses only a private cache) and their
// modification times (its eviction order).
func TestTarRoundTrip(t *testing.T) {
	src := filepath.Join(t.TempDir(), "cache")
	sub := filepath.Join(src, "verdicts", "ab")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(sub, "abcdef")
	if err := os.WriteFile(entry, []byte("entry"), 0o600); err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(entry, when, when); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(src, "verdicts"), 0o700); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "saved.tar")
	if err := saveTar(src, archive); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "restored")
	// Something left from before goes: the restore is into a new job.
	if err := os.MkdirAll(filepath.Join(dst, "verdicts"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dst, "verdicts", "stale"), nil, 0o600)
	for range 2 {
		args, err := restoreTar(archive, dst)()
		if err != nil {
			t.Fatal(err)
		}
		if len(args) != 2 || args[0] != "--cache-dir" || args[1] != dst {
			t.Errorf("args %q", args)
		}
		got := filepath.Join(dst, "verdicts", "ab", "abcdef")
		b, err := os.ReadFile(got)
		if err != nil || string(b) != "entry" {
			t.Fatalf("restored entry: %q, %v", b, err)
		}
		st, _ := os.Stat(got)
		if !st.ModTime().Equal(when) || st.Mode().Perm() != 0o600 {
			t.Errorf("restored entry: mode %v, time %v; want 0600, %v", st.Mode().Perm(), st.ModTime(), when)
		}
		if st, _ := os.Stat(filepath.Join(dst, "verdicts")); st.Mode().Perm() != 0o700 {
			t.Errorf("restored verdicts/: mode %v, want 0700", st.Mode().Perm())
		}
		if _, err := os.Stat(filepath.Join(dst, "verdicts", "stale")); err == nil {
			t.Errorf("a file from before the restore is still there")
		}
	}
}

func TestParseCounts(t *testing.T) {
	stderr := []byte("memstats: 51 MB allocated in 187054 objects, 8 GCs, 17.8% of CPU in GC, peak heap 27 MB\n" +
		"counts: {Parses:3 CRDDecodes:0 CRDRedecodes:0 VersionCompiles:1 CRDValidations:0 CRDecodes:0 CRValidations:14}\n")
	c, ok := ParseCounts(stderr)
	if !ok || c["Parses"] != 3 || c["VersionCompiles"] != 1 || c["CRValidations"] != 14 || len(c) != 7 {
		t.Errorf("ParseCounts = %v, %v", c, ok)
	}
	if _, ok := ParseCounts([]byte("no counts here")); ok {
		t.Error("counts found in text without any")
	}
}
