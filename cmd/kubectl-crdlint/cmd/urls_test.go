package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/remote"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// crdServer serves testdata/repos/invalid's CRD at /crds.yaml over TLS on
// loopback (404 elsewhere), counting requests, and makes the commands
// fetch through its client (the httpClient hook of settings.go) for the
// rest of the test.
func crdServer(t *testing.T) (srv *httptest.Server, crd []byte, requests *atomic.Int32) {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join(testdata, "repos", "invalid.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "crds/widgets.yaml" {
			crd = f.Data
		}
	}
	if crd == nil {
		t.Fatal("testdata/repos/invalid.txtar has no crds/widgets.yaml")
	}
	requests = new(atomic.Int32)
	srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path != "/crds.yaml" {
			http.NotFound(w, r)
			return
		}
		w.Write(crd)
	}))
	t.Cleanup(srv.Close)
	setHTTPClient(t, srv.Client())
	return srv, crd, requests
}

// setHTTPClient makes the commands fetch with c until the test ends.
func setHTTPClient(t *testing.T, c *http.Client) {
	old := httpClient
	httpClient = c
	t.Cleanup(func() { httpClient = old })
}

// noUserCache points the default cache directory at a temporary one, so
// that a test that forgets --cache-dir never writes into the user's.
func noUserCache(t *testing.T) {
	t.Setenv("KUBECTL_CRDLINT_CACHE_DIR", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
}

// TestCRDsFromURLs: a CRD listed by URL (crds: or --crd) is fetched once
// from a test HTTPS server on loopback, kept in --cache-dir, and used from
// there on later runs, with the server stopped and --offline; a pin
// mismatch, a URL that is not cached under --offline and a 404 are one
// line and exit 2. The custom resource crs/widget.yaml breaks the CRD's
// spec.size maximum: a cr-schema finding shows it met the fetched CRD.
func TestCRDsFromURLs(t *testing.T) {
	noUserCache(t)
	srv, crd, requests := crdServer(t)
	sum := sha256.Sum256(crd)
	digest := hex.EncodeToString(sum[:])
	wrong := strings.Repeat("0", 64)
	url := srv.URL + "/crds.yaml"
	fixture(t, "invalid")
	testutil.WriteFiles(t, ".", map[string]string{"crs/widget.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a, namespace: shop}\nspec: {size: 30}\n"})
	if err := os.RemoveAll("crds"); err != nil { // only the URL may give the CRD
		t.Fatal(err)
	}
	cache, pinCache := t.TempDir(), t.TempDir()
	config := func(crds string) map[string]string {
		return map[string]string{".crdlint.yaml": "crds:\n  - " + crds + "\n"}
	}
	cached := func() []string {
		names, _ := filepath.Glob(filepath.Join(cache, "crds", "*.yaml"))
		return names
	}

	// The steps share the cache and the server, in order.
	steps := []struct {
		name   string
		config map[string]string
		args   []string
		stop   bool // stop the server before this step
		code   int
		stdout string // a fragment
		stderr string // the whole of it
		// requests is the number made so far; files the number of
		// copies in the cache after the step.
		requests int32
		files    int
	}{
		{"first run fetches", config(url), []string{"check", "--cache-dir", cache, "crs/"}, false, ExitFindings, "error cr-schema", "", 1, 1},
		{"second run reads the cache", config(url), []string{"check", "--cache-dir", cache, "crs/"}, false, ExitFindings, "error cr-schema", "", 1, 1},
		{"prune and fields read it too", config(url), []string{"prune", "--dry-run", "--cache-dir", cache, "crs/widget.yaml"}, false, ExitClean, "", "", 1, 1},
		{"a URL not cached under --offline", config(srv.URL + "/crds.yaml?v=2"), []string{"check", "--offline", "--cache-dir", cache, "crs/"}, false, ExitUsage, "",
			"error: fetch " + url + "?v=2: not in the cache, and --offline forbids fetching it: run once without --offline\n", 1, 1},
		{"a 404", config(srv.URL + "/missing.yaml"), []string{"check", "--cache-dir", cache, "crs/"}, false, ExitUsage, "",
			"error: fetch " + srv.URL + "/missing.yaml: 404 Not Found\n", 2, 1},
		{"a pin mismatch", config(url + "#sha256=" + wrong), []string{"check", "--cache-dir", pinCache, "crs/"}, false, ExitUsage, "",
			"error: fetch " + url + ": sha256 mismatch: pinned " + wrong + ", content has " + digest + "\n", 3, 1},
		{"a matching pin", config(url + "#sha256=" + digest), []string{"check", "--cache-dir", cache, "crs/"}, false, ExitFindings, "error cr-schema", "", 3, 1},
		{"--crd URL", nil, []string{"check", "--no-config", "--crd", url, "--cache-dir", cache, "crs/"}, false, ExitFindings, "error cr-schema", "", 3, 1},
		{"server stopped, --offline", config(url), []string{"check", "--offline", "--cache-dir", cache, "crs/"}, true, ExitFindings, "error cr-schema", "", 3, 1},
		{"server stopped, cached", config(url), []string{"fields", "--cache-dir", cache, "crs/"}, false, ExitClean, "widget.example.com   a",
			"crs/widget.yaml:1:1: note: the server would reject this object on create (1 error; see kubectl crdlint check)\n", 3, 1},
		{"server stopped, a pinned copy that does not match, --offline", config(url + "#sha256=" + wrong), []string{"check", "--offline", "--cache-dir", cache, "crs/"}, false, ExitUsage, "",
			"error: fetch " + url + ": sha256 mismatch: pinned " + wrong + ", cached copy has " + digest + "\n", 3, 1},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.stop {
				srv.Close()
			}
			os.Remove(".crdlint.yaml")
			testutil.WriteFiles(t, ".", st.config)
			code, out, errOut := runMain(t, st.args...)
			if code != st.code || !strings.Contains(out, st.stdout) || errOut != st.stderr {
				t.Errorf("%s: exit %d, stdout:\n%s\nstderr %q\nwant exit %d, stdout with %q, stderr %q", strings.Join(st.args, " "), code, out, errOut, st.code, st.stdout, st.stderr)
			}
			if n := requests.Load(); n != st.requests {
				t.Errorf("%d requests so far, want %d", n, st.requests)
			}
			if n := len(cached()); n != st.files {
				t.Errorf("%d copies in the cache, want %d", n, st.files)
			}
		})
	}
	if names, _ := filepath.Glob(filepath.Join(pinCache, "crds", "*")); len(names) > 0 {
		t.Errorf("content that does not match its pin was cached: %q", names)
	}
}

// TestNoURLNoNetwork: without a URL among the CRD sources no command
// touches the network, whatever else the configuration and the flags
// say. The commands fetch through a transport that counts and refuses
// every request; the last rows, with a URL, show it does see them.
func TestNoURLNoNetwork(t *testing.T) {
	noUserCache(t)
	refuse := &remote.Refuse{}
	setHTTPClient(t, &http.Client{Transport: refuse})
	fixture(t, "invalid")
	testutil.WriteFiles(t, ".", map[string]string{
		".crdlint.yaml":   "crds: [crds, 'crds/*.yaml']\nexclude: [generated/]\nbaseline: b.yaml\n",
		"b.yaml":          "version: 1\nentries: []\n",
		"crs/widget.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a, namespace: shop}\nspec: {size: 3}\n",
	})
	tests := []struct {
		name     string
		args     []string
		code     int
		requests []string
	}{
		{"check", []string{"check", "."}, ExitClean, nil},
		{"check --crd DIR", []string{"check", "--crd", "crds", "crs/"}, ExitClean, nil},
		{"check --no-config", []string{"check", "--no-config", "--crd", "crds/widgets.yaml", "crs/"}, ExitClean, nil},
		{"prune", []string{"prune", "crs/widget.yaml"}, ExitClean, nil},
		{"fields", []string{"fields", "crs/"}, ExitClean, nil},
		{"immutable", []string{"immutable", "crs/widget.yaml", "crs/widget.yaml"}, ExitClean, nil},
		{"config view", []string{"config", "view"}, ExitClean, nil},
		{"with a URL: one request", []string{"check", "--crd", "https://example.com/crds.yaml", "crs/"}, ExitUsage, []string{"https://example.com/crds.yaml"}},
		{"with a URL in the file: one request", []string{"check", "--config", "url.yaml", "crs/"}, ExitUsage, []string{"https://example.com/url.yaml"}},
	}
	testutil.WriteFiles(t, ".", map[string]string{"url.yaml": "crds: ['https://example.com/url.yaml']\n"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(refuse.Requests())
			code, out, errOut := runMain(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			if got := refuse.Requests()[before:]; !slices.Equal(got, tt.requests) {
				t.Errorf("requests %q, want %q", got, tt.requests)
			}
		})
	}
}
