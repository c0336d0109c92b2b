package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
)

// TestFileCacheNearestCRD: which CRD judges a custom resource depends on
// where its file is (the nearest definition among the inputs), so a
// file's cached verdict must be checked against the CRD that judges it
// there. A CRD added beside one file judges that file again, with the
// new CRD, and leaves the other, identical, file replayed.
func TestFileCacheNearestCRD(t *testing.T) {
	root := t.TempDir()
	cache := filepath.Join(t.TempDir(), "cache")
	write := func(rel, data string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const widget = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 20}\n"
	write("crds/widget.yaml", strings.Replace(cacheWidgetCRD, "MAX", "30", 1))
	write("app/widgets.yaml", widget)
	write("other/widgets.yaml", widget)

	run := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		code := Main(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, append([]string{"check", "-o", "json", "--no-config", root}, args...))
		if code != 0 && code != 1 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		return out.String()
	}
	same := func(what string) (string, int64) {
		t.Helper()
		want := run("--no-cache")
		before := count.Now()
		got := run("--cache-dir", cache)
		if got != want {
			t.Fatalf("%s: the output differs from --no-cache's:\n%s\nwant:\n%s", what, got, want)
		}
		return got, count.Now().Sub(before).CRValidations
	}
	if out, n := same("cold"); n != 2 || strings.Contains(out, `"cr-schema"`) {
		t.Fatalf("cold: %d custom resources validated, want 2, both valid against crds/widget.yaml:\n%s", n, out)
	}
	if _, n := same("warm"); n != 0 {
		t.Errorf("warm: %d custom resources validated, want none", n)
	}
	// A stricter Widget CRD beside app/widgets.yaml: nearer to it than
	// crds/widget.yaml, which still judges other/ (and, sorting after
	// app/, is still the one for no place in particular).
	write("app/widget.yaml", strings.Replace(cacheWidgetCRD, "MAX", "10", 1))
	out, n := same("a nearer CRD")
	if !strings.Contains(out, `"file": "`+filepath.Join(root, "app", "widgets.yaml")+`"`) || strings.Count(out, `"cr-schema"`) != 1 {
		t.Errorf("with app/widget.yaml, want one cr-schema finding, on app/widgets.yaml:\n%s", out)
	}
	if n != 1 {
		t.Errorf("with app/widget.yaml, %d custom resources were validated, want app/widgets.yaml's one", n)
	}
}
