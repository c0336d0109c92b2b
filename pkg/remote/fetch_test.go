package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const crdText = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: certificates.cert-manager.io\n"

// server is an HTTPS server on loopback serving files by path, counting
// requests; "/slow" never answers in time, "/big" is large.
type server struct {
	*httptest.Server
	mu       sync.Mutex
	files    map[string]string
	requests atomic.Int64
	agent    atomic.Value
}

func newServer(t *testing.T) *server {
	s := &server{files: map[string]string{"/crds.yaml": crdText}}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		s.agent.Store(r.Header.Get("User-Agent"))
		switch r.URL.Path {
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		case "/boom":
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		case "/to-http":
			http.Redirect(w, r, "http://127.0.0.1:1/crds.yaml", http.StatusFound)
			return
		}
		s.mu.Lock()
		body, ok := s.files[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) set(path, body string) {
	s.mu.Lock()
	s.files[path] = body
	s.mu.Unlock()
}

func (s *server) source(t *testing.T, path, pin string) Source {
	t.Helper()
	raw := s.URL + path
	if pin != "" {
		raw += "#sha256=" + pin
	}
	src, err := ParseSource(raw)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestFetchThenOffline: the first run fetches and caches; the second,
// with the server gone and --offline, reads the cache.
func TestFetchThenOffline(t *testing.T) {
	s := newServer(t)
	dir := filepath.Join(t.TempDir(), "crds")
	src := s.source(t, "/crds.yaml", "")
	f := &Fetcher{Dir: dir, Client: s.Client(), UserAgent: "kubectl-crdlint/test"}
	r, err := f.Fetch(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if r.Cached || string(r.Data) != crdText || r.CacheErr != nil || s.requests.Load() != 1 {
		t.Fatalf("first run: cached=%v data=%q cacheErr=%v requests=%d", r.Cached, r.Data, r.CacheErr, s.requests.Load())
	}
	if got := s.agent.Load(); got != "kubectl-crdlint/test" {
		t.Errorf("User-Agent = %q", got)
	}
	if on, err := os.ReadFile(r.Path); err != nil || string(on) != crdText {
		t.Errorf("cached copy: %q, %v", on, err)
	}
	if u, err := os.ReadFile(strings.TrimSuffix(r.Path, ".yaml") + ".url"); err != nil || string(u) != src.URL+"\n" {
		t.Errorf("URL sidecar: %q, %v", u, err)
	}
	// A later online run does not ask again.
	if r, err := f.Fetch(context.Background(), src); err != nil || !r.Cached || s.requests.Load() != 1 {
		t.Errorf("second online run: %v, cached=%v, requests=%d", err, r != nil && r.Cached, s.requests.Load())
	}

	s.Close()
	off := &Fetcher{Dir: dir, Offline: true, Client: &http.Client{Transport: &Refuse{}}}
	r, err = off.Fetch(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Cached || string(r.Data) != crdText {
		t.Errorf("offline run: cached=%v data=%q", r.Cached, r.Data)
	}
	if n := len(off.Client.Transport.(*Refuse).Requests()); n != 0 {
		t.Errorf("offline run made %d requests", n)
	}
	// Offline, a URL never fetched is an error naming it.
	_, err = off.Fetch(context.Background(), Source{URL: "https://example.com/other.yaml"})
	if err == nil || !errors.Is(err, ErrNotCached) || !strings.HasPrefix(err.Error(), "fetch https://example.com/other.yaml: not in the cache") {
		t.Errorf("offline, not cached: %v", err)
	}
}

// TestPins: a pin is checked on the fetched content and on the cached
// copy; a mismatch names the URL and both digests and caches nothing.
func TestPins(t *testing.T) {
	s := newServer(t)
	good := digest([]byte(crdText))
	bad := strings.Repeat("0", 64)
	dir := t.TempDir()
	f := &Fetcher{Dir: dir, Client: s.Client()}

	_, err := f.Fetch(context.Background(), s.source(t, "/crds.yaml", bad))
	var de *DigestError
	if err == nil || !errors.As(err, &de) || de.Cached {
		t.Fatalf("pin mismatch: %v", err)
	}
	want := fmt.Sprintf("fetch %s/crds.yaml: sha256 mismatch: pinned %s, content has %s", s.URL, bad, good)
	if err.Error() != want {
		t.Errorf("error:\n %s\nwant\n %s", err, want)
	}
	if _, err := os.Stat(f.CachePath(s.source(t, "/crds.yaml", ""))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a mismatching download was cached: %v", err)
	}

	r, err := f.Fetch(context.Background(), s.source(t, "/crds.yaml", good))
	if err != nil || r.SHA256 != good {
		t.Fatalf("good pin: %v", err)
	}
	// The cached copy is checked too: offline with another pin fails...
	off := &Fetcher{Dir: dir, Offline: true}
	_, err = off.Fetch(context.Background(), s.source(t, "/crds.yaml", bad))
	if err == nil || !errors.As(err, &de) || !de.Cached || !strings.Contains(err.Error(), "cached copy has "+good) {
		t.Errorf("offline, cached copy against another pin: %v", err)
	}
	// ... and online the server is asked again when the copy does not
	// match (the pin moved on): here the server changed too.
	s.set("/crds.yaml", crdText+"# v2\n")
	v2 := digest([]byte(crdText + "# v2\n"))
	n := s.requests.Load()
	r, err = f.Fetch(context.Background(), s.source(t, "/crds.yaml", v2))
	if err != nil || r.Cached || s.requests.Load() != n+1 || r.SHA256 != v2 {
		t.Errorf("new pin, online: %v (cached=%v)", err, r != nil && r.Cached)
	}
	// A tampered cached copy of a pinned URL is never used.
	if err := os.WriteFile(r.Path, []byte("tampered"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := off.Fetch(context.Background(), s.source(t, "/crds.yaml", v2)); err == nil || !errors.As(err, &de) {
		t.Errorf("a tampered copy, offline: %v", err)
	}
}

// TestFetchErrors: each failure is one line naming the URL.
func TestFetchErrors(t *testing.T) {
	s := newServer(t)
	tests := []struct {
		name, path string
		timeout    time.Duration
		maxSize    int64
		want       string
	}{
		{"404", "/missing.yaml", 0, 0, ": 404 Not Found"},
		{"500", "/boom", 0, 0, ": 500 Internal Server Error"},
		{"timeout", "/slow", 200 * time.Millisecond, 0, ": timed out (no complete answer within 200ms)"},
		{"too large", "/crds.yaml", 0, 10, ": larger than 10 bytes"},
		{"redirect to http", "/to-http", 0, 0, ": refused a redirect to http://127.0.0.1:1/crds.yaml: plain http is accepted only for pinned URLs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := *s.Client() // a copy: the server's client is shared
			client.Timeout = tt.timeout
			f := &Fetcher{Dir: t.TempDir(), Client: &client, MaxSize: tt.maxSize}
			_, err := f.Fetch(context.Background(), s.source(t, tt.path, ""))
			var fe *Error
			if err == nil || !errors.As(err, &fe) {
				t.Fatalf("Fetch: %v, want a *remote.Error", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "fetch "+s.URL+tt.path+": ") || !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line naming the URL and containing %q", msg, tt.want)
			}
			if strings.Count(msg, s.URL) != 1 {
				t.Errorf("error %q names the URL more than once", msg)
			}
		})
	}
	// Nothing listening.
	f := &Fetcher{Dir: t.TempDir()}
	_, err := f.Fetch(context.Background(), Source{URL: "https://127.0.0.1:1/x.yaml"})
	if err == nil || !strings.HasPrefix(err.Error(), "fetch https://127.0.0.1:1/x.yaml: ") || !strings.Contains(err.Error(), "refused") {
		t.Errorf("connection refused: %v", err)
	}
}

// TestPinnedHTTP: plain http works when pinned.
func TestPinnedHTTP(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, crdText) }))
	defer plain.Close()
	src, err := ParseSource(plain.URL + "/crds.yaml#sha256=" + digest([]byte(crdText)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := (&Fetcher{Dir: t.TempDir(), Client: plain.Client()}).Fetch(context.Background(), src)
	if err != nil || string(r.Data) != crdText {
		t.Errorf("pinned http: %v", err)
	}
}

// TestRefresh fetches again and replaces the cached copy.
func TestRefresh(t *testing.T) {
	s := newServer(t)
	dir := t.TempDir()
	src := s.source(t, "/crds.yaml", "")
	if _, err := (&Fetcher{Dir: dir, Client: s.Client()}).Fetch(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	s.set("/crds.yaml", "v2")
	r, err := (&Fetcher{Dir: dir, Client: s.Client(), Refresh: true}).Fetch(context.Background(), src)
	if err != nil || r.Cached || string(r.Data) != "v2" {
		t.Fatalf("refresh: %v, %q", err, r.Data)
	}
	if r, _ := (&Fetcher{Dir: dir, Offline: true}).Fetch(context.Background(), src); string(r.Data) != "v2" {
		t.Errorf("the cache still has %q", r.Data)
	}
}

// TestConcurrent: many fetches of one URL, from goroutines and from
// fetchers sharing the directory as separate runs would, leave one whole
// copy and no temporary files.
func TestConcurrent(t *testing.T) {
	s := newServer(t)
	big := strings.Repeat(crdText, 2000)
	s.set("/big.yaml", big)
	dir := t.TempDir()
	src := s.source(t, "/big.yaml", "")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := &Fetcher{Dir: dir, Client: s.Client(), Refresh: true}
			r, err := f.Fetch(context.Background(), src)
			if err == nil && string(r.Data) != big {
				err = errors.New("short data")
			}
			if err == nil && r.CacheErr != nil {
				err = r.CacheErr
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("cache holds %q, want one copy and its .url", names)
	}
	if data, _ := os.ReadFile((&Fetcher{Dir: dir}).CachePath(src)); string(data) != big {
		t.Error("the cached copy is not whole")
	}
}

// TestCacheNotWritable: the content is still returned, with CacheErr.
func TestCacheNotWritable(t *testing.T) {
	s := newServer(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := (&Fetcher{Dir: filepath.Join(file, "crds"), Client: s.Client()}).Fetch(context.Background(), s.source(t, "/crds.yaml", ""))
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Data) != crdText || r.CacheErr == nil || !strings.HasPrefix(r.CacheErr.Error(), "cache "+s.URL) {
		t.Errorf("unwritable cache: cacheErr=%v", r.CacheErr)
	}
	_, err = (&Fetcher{Dir: filepath.Join(file, "crds"), Offline: true}).Fetch(context.Background(), s.source(t, "/crds.yaml", ""))
	if err == nil || !strings.Contains(err.Error(), "read the cached copy") {
		t.Errorf("unreadable cache, offline: %v", err)
	}
}

// TestFetchAll keeps order and reports the first error in order.
func TestFetchAll(t *testing.T) {
	s := newServer(t)
	for i := 0; i < 6; i++ {
		s.set(fmt.Sprintf("/%d.yaml", i), fmt.Sprint(i))
	}
	f := &Fetcher{Dir: t.TempDir(), Client: s.Client()}
	var srcs []Source
	for i := 0; i < 6; i++ {
		srcs = append(srcs, s.source(t, fmt.Sprintf("/%d.yaml", i), ""))
	}
	rs, err := f.FetchAll(context.Background(), srcs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		if string(r.Data) != fmt.Sprint(i) {
			t.Errorf("result %d = %q", i, r.Data)
		}
	}
	_, err = f.FetchAll(context.Background(), append(srcs, s.source(t, "/missing.yaml", ""), s.source(t, "/boom", "")))
	if err == nil || !strings.Contains(err.Error(), "/missing.yaml: 404") {
		t.Errorf("FetchAll with failures: %v, want the first in order", err)
	}
	if rs, err := f.FetchAll(context.Background(), nil); err != nil || len(rs) != 0 {
		t.Errorf("FetchAll(nil) = %v, %v", rs, err)
	}
}
