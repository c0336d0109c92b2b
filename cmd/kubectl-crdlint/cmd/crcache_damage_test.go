package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/cachedir"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
)

// TestUnusableCacheDir: a cache directory that cannot be used (a file
// where the directory, or its verdicts directory, should be; a shard
// directory that is a file) fails nothing: the run is the run without a
// cache.
func TestUnusableCacheDir(t *testing.T) {
	root := t.TempDir()
	crds, crs := filepath.Join(root, "crds.yaml"), filepath.Join(root, "crs.yaml")
	os.WriteFile(crds, []byte(strings.Replace(cacheWidgetCRD, "MAX", "10", 1)), 0o644)
	os.WriteFile(crs, []byte(cacheWidgets), 0o644)
	run := func(args ...string) (string, int) {
		t.Helper()
		var out, errOut bytes.Buffer
		args = append(append([]string{"check", "-o", "json", "--no-config"}, args...), "--crd", crds, crs)
		code := Main(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, args)
		return out.String() + errOut.String(), code
	}
	want, wantCode := run("--no-cache")
	if wantCode != 1 {
		t.Fatalf("too little exercised: exit %d, want 1 (findings)", wantCode)
	}
	file := filepath.Join(root, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	verdictsFile := filepath.Join(root, "verdicts-file")
	os.MkdirAll(verdictsFile, 0o755)
	os.WriteFile(filepath.Join(verdictsFile, cachedir.Verdicts), []byte("x"), 0o644)
	shards := filepath.Join(root, "shards")
	os.MkdirAll(filepath.Join(shards, cachedir.Verdicts), 0o755)
	for _, hex := range "0123456789abcdef" {
		for _, hex2 := range "0123456789abcdef" {
			os.WriteFile(filepath.Join(shards, cachedir.Verdicts, string(hex)+string(hex2)), []byte("x"), 0o644)
		}
	}
	for _, dir := range []string{file, verdictsFile, shards} {
		for range 2 {
			if got, code := run("--cache-dir", dir); got != want || code != wantCode {
				t.Errorf("--cache-dir %s: exit %d, want %d; output:\n%s\nwant:\n%s", filepath.Base(dir), code, wantCode, got, want)
			}
		}
	}
}

// TestSharedCacheDirUnused: a verdicts directory other users can write
// to is not used: its entries could have been planted.
func TestSharedCacheDirUnused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permissions")
	}
	root := t.TempDir()
	crds, crs := filepath.Join(root, "crds.yaml"), filepath.Join(root, "crs.yaml")
	os.WriteFile(crds, []byte(strings.Replace(cacheWidgetCRD, "MAX", "10", 1)), 0o644)
	os.WriteFile(crs, []byte(cacheWidgets), 0o644)
	cache := filepath.Join(root, "cache")
	verdicts := filepath.Join(cache, cachedir.Verdicts)
	os.MkdirAll(verdicts, 0o700)
	if err := os.Chmod(verdicts, 0o777); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := Main(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		[]string{"check", "-o", "json", "--no-config", "--cache-dir", cache, "--crd", crds, crs})
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errOut.String())
	}
	if entries, _ := os.ReadDir(verdicts); len(entries) != 0 {
		t.Errorf("a world-writable verdicts directory was used: %d entries", len(entries))
	}
	if !strings.Contains(errOut.String(), "warning: verdict cache not used: "+verdicts+" can be written by other users") {
		t.Errorf("the refused cache is not said; stderr %q", errOut.String())
	}
}

// TestFileCacheCRLF: a file with CRLF line endings (whose documents'
// text is not the file's bytes) is cached and replayed as an LF one: the
// same output cold, warm and without the cache, its inline suppressions
// and Helm sources read again from the cached text.
func TestFileCacheCRLF(t *testing.T) {
	root := t.TempDir()
	crds, crs := filepath.Join(root, "crds.yaml"), filepath.Join(root, "crs.yaml")
	os.WriteFile(crds, []byte(strings.Replace(cacheWidgetCRD, "MAX", "10", 1)), 0o644)
	var many strings.Builder
	for i := 0; i < 300; i++ {
		many.WriteString(cacheWidgets + "---\n")
	}
	os.WriteFile(crs, []byte(strings.ReplaceAll(many.String(), "\n", "\r\n")), 0o644)
	cache := filepath.Join(root, "cache")
	run := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		args = append(append([]string{"check", "-o", "json", "--no-config"}, args...), "--crd", crds, crs)
		if code := Main(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, args); code != 1 {
			t.Fatalf("exit %d, want 1: %s", code, errOut.String())
		}
		return out.String()
	}
	want := run("--no-cache")
	if !strings.Contains(want, `"suppressed"`) || !strings.Contains(want, `"via": "chart/templates/widget.yaml"`) {
		t.Fatalf("too little exercised: no suppression or Helm source in %.300s", want)
	}
	for _, name := range []string{"cold", "warm"} {
		before := count.Now()
		if got := run("--cache-dir", cache); got != want {
			t.Fatalf("%s run: output differs from --no-cache's", name)
		}
		if n := count.Now().Sub(before).CRValidations; name == "warm" && n != 0 {
			t.Errorf("the warm run validated %d custom resources, want none", n)
		}
	}
}
