package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/cachedir"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// TestVerdictCacheChangesNothing checks the in-repo corpus (its CRDs
// among the inputs, and given with --crd) with the
// verdict cache off, cold, warm, after every entry is truncated, and
// after every entry has a byte flipped: the output is the same each time,
// the warm run validates no CRD and no custom resource, and the damaged
// ones are noticed (rewritten by the run that found them damaged).
func TestVerdictCacheChangesNothing(t *testing.T) {
	corpus := testutil.CorpusDir(t)
	crds, crs := filepath.Join(corpus, "crds"), filepath.Join(corpus, "crs")
	t.Run("CRDs among the inputs", func(t *testing.T) { testVerdictCache(t, crds, crs) })
	t.Run("CRDs given with --crd", func(t *testing.T) { testVerdictCache(t, "--strict", "--crd", crds, crs) })
}

func testVerdictCache(t *testing.T, inputs ...string) {
	dir := t.TempDir()
	check := func(extra ...string) string {
		var out, errOut bytes.Buffer
		args := append([]string{"check", "-o", "json", "--no-config", "--cache-dir", dir}, extra...)
		args = append(args, inputs...)
		code := Main(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, args)
		if code != 0 && code != 1 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		return out.String()
	}
	entries := func() map[string][]byte {
		m := map[string][]byte{}
		filepath.WalkDir(filepath.Join(dir, cachedir.Verdicts), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				data, _ := os.ReadFile(p)
				m[p] = data
			}
			return nil
		})
		return m
	}
	want := check("--no-cache")
	if len(entries()) != 0 {
		t.Fatal("--no-cache wrote to the cache")
	}
	if !strings.Contains(want, `"rule"`) {
		t.Fatalf("too little exercised: no findings in %.200s", want)
	}
	if got := check(); got != want {
		t.Fatal("the cold run's output differs from --no-cache's")
	}
	cold := entries()
	if len(cold) < testutil.AtLeast(t, 20, 10) {
		t.Fatalf("the cold run cached %d files' verdicts", len(cold))
	}
	before := count.Now()
	if got := check(); got != want {
		t.Fatal("the warm run's output differs from --no-cache's")
	}
	if n := count.Now().Sub(before).CRDValidations; n != 0 {
		t.Errorf("the warm run validated %d CRDs, want none (all cached)", n)
	}
	if n := count.Now().Sub(before).CRValidations; n != 0 {
		t.Errorf("the warm run validated %d custom resources, want none (all cached)", n)
	}
	// Every file unchanged: the --crd files' indexes name their CRDs for
	// the custom resources' cached verdicts, and tell the kinds defined
	// twice apart (crd-duplicate) by the digests of their decoded
	// objects: no CRD is parsed.
	if n := count.Now().Sub(before).CRDDecodes; slices.Contains(inputs, "--crd") && n != 0 {
		t.Errorf("the warm run decoded %d CRDs, want none (%d crd-duplicate findings)", n, strings.Count(want, `"crd-duplicate"`))
	}
	if slices.Contains(inputs, "--crd") && !strings.Contains(want, `"crd-duplicate"`) {
		t.Error("too little exercised: no crd-duplicate finding")
	}
	damage := map[string]func([]byte) []byte{
		"truncated":    func(b []byte) []byte { return b[:len(b)/2] },
		"byte flipped": func(b []byte) []byte { c := bytes.Clone(b); c[len(c)-1] ^= 0xff; return c },
		"empty":        func([]byte) []byte { return nil },
	}
	for name, f := range damage {
		for p, data := range cold {
			if err := os.WriteFile(p, f(data), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if got := check(); got != want {
			t.Fatalf("with every entry %s, the output differs from --no-cache's", name)
		}
		again := entries()
		for p, data := range cold {
			if !bytes.Equal(again[p], data) {
				t.Errorf("%s entry %s was not written again whole", name, filepath.Base(p))
				break
			}
		}
	}
}

// TestChangedFilesReadNoCRDFile is the CI run: every custom resource file
// changed since a run that read the --crd files. The CRDs their kinds need
// are decoded from what that run kept, not parsed: the run parses exactly
// the custom resource files' documents, and says what a run without the
// cache says.
func TestChangedFilesReadNoCRDFile(t *testing.T) {
	corpus := testutil.CorpusDir(t)
	crds := filepath.Join(corpus, "crds")
	crs := t.TempDir()
	files := testutil.Files(t, "crs")
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(crs, filepath.Base(p)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	check := func(args ...string) (string, count.Snapshot) {
		var out, errOut bytes.Buffer
		before := count.Now()
		code := Main(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, append([]string{"check", "-o", "json", "--no-config", "--strict"}, args...))
		if code != 0 && code != 1 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		return out.String(), count.Now().Sub(before)
	}
	check("--cache-dir", dir, "--crd", crds, crs)
	entries, _ := os.ReadDir(crs)
	for _, e := range entries {
		p := filepath.Join(crs, e.Name())
		data, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(data, "\n# changed\n"...), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := check("--no-cache", "--crd", crds, crs)
	got, n := check("--cache-dir", dir, "--crd", crds, crs)
	if got != want {
		t.Fatal("the output differs from --no-cache's")
	}
	_, alone := check("--no-cache", "--missing-crds", "ignore", crs)
	if n.CRValidations == 0 || n.CRDDecodes == 0 {
		t.Fatalf("too little exercised: %d custom resources validated, %d CRDs decoded", n.CRValidations, n.CRDDecodes)
	}
	if n.Parses != alone.Parses {
		t.Errorf("the run parsed %d documents, want %d (the custom resource files' alone)", n.Parses, alone.Parses)
	}
}
