package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/fsutil"
)

// MaxSize bounds what one URL may return: far above any CRD bundle
// (cert-manager's is 0.5 MiB), far below what would hurt.
const MaxSize = 64 << 20

// Timeouts of the default client: connecting and the TLS handshake must
// be quick; a whole download gets longer, for large bundles on slow
// links.
const (
	DialTimeout     = 10 * time.Second
	HeaderTimeout   = 30 * time.Second
	DownloadTimeout = 2 * time.Minute
)

// Error is a URL that could not be had: not fetched, not cached, or not
// what its pin says. The command exits 2 on it. Its text is one line
// naming the URL.
type Error struct {
	URL string
	Err error
}

func (e *Error) Error() string { return "fetch " + e.URL + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// DigestError is content that does not match its pin.
type DigestError struct {
	Want, Got string
	// Cached says the mismatching content is the cached copy.
	Cached bool
}

func (e *DigestError) Error() string {
	what := "content"
	if e.Cached {
		what = "cached copy"
	}
	return fmt.Sprintf("sha256 mismatch: pinned %s, %s has %s", e.Want, what, e.Got)
}

// ErrNotCached is what Offline mode says of a URL it has never fetched.
var ErrNotCached = errors.New("not in the cache, and --offline forbids fetching it: run once without --offline")

// Fetcher gets CRD files from URLs through a cache directory. A URL is
// fetched once; later runs read the cached copy as it is, without asking
// the server (Refresh asks again). A pinned URL's content is checked
// against its pin, fetched or cached. It is safe for concurrent use, and
// several processes may share a cache directory: a copy is written to a
// temporary file and renamed into place, so readers see a whole copy or
// none.
type Fetcher struct {
	// Dir is the cache directory for CRDs (cachedir.Sub(root,
	// cachedir.CRDs)); it is created when a copy is written.
	Dir string
	// Client makes the requests; nil is a client with the timeouts above
	// and the proxy settings of the environment. Tests inject one.
	Client *http.Client
	// Offline never touches the network: a URL not in the cache is an
	// error (ErrNotCached).
	Offline bool
	// Refresh fetches every URL again, replacing the cached copies
	// (Offline wins over it).
	Refresh bool
	// MaxSize bounds a response; 0 means MaxSize.
	MaxSize int64
	// UserAgent is sent with requests ("kubectl-crdlint/VERSION").
	UserAgent string

	once   sync.Once
	client *http.Client
}

// Result is one fetched (or cached) file.
type Result struct {
	Source Source
	Data   []byte
	// SHA256 is the content's digest, in hex.
	SHA256 string
	// Path is the cached copy.
	Path string
	// Cached says Data came from the cache, not the network.
	Cached bool
	// CacheErr is why the copy could not be cached (a read-only cache
	// directory): the run can go on, but a later --offline run will fail.
	CacheErr error
}

// CachePath is where src is cached: the URL's SHA-256, so any URL makes
// a safe file name.
func (f *Fetcher) CachePath(src Source) string {
	sum := sha256.Sum256([]byte(src.URL))
	return filepath.Join(f.Dir, hex.EncodeToString(sum[:])+".yaml")
}

// Fetch returns src's content, from the cache when it is there (and
// Refresh is off), from the network otherwise (unless Offline). Errors
// are *Error.
func (f *Fetcher) Fetch(ctx context.Context, src Source) (*Result, error) {
	path := f.CachePath(src)
	if !f.Refresh || f.Offline {
		data, err := os.ReadFile(path)
		switch {
		case err == nil:
			r := &Result{Source: src, Data: data, SHA256: digest(data), Path: path, Cached: true}
			if src.SHA256 == "" || src.SHA256 == r.SHA256 {
				return r, nil
			}
			// The pin changed since the copy was made (or the copy was
			// tampered with): only the network can tell which.
			if f.Offline {
				return nil, &Error{URL: src.URL, Err: &DigestError{Want: src.SHA256, Got: r.SHA256, Cached: true}}
			}
		case f.Offline && errors.Is(err, fs.ErrNotExist):
			return nil, &Error{URL: src.URL, Err: ErrNotCached}
		case f.Offline:
			return nil, &Error{URL: src.URL, Err: fmt.Errorf("read the cached copy %s: %v", path, fsutil.UnwrapPath(err))}
		}
		// Online, an unreadable cache is no reason to fail: fetch, and
		// say in CacheErr that the copy could not be kept.
	}
	data, err := f.get(ctx, src)
	if err != nil {
		return nil, &Error{URL: src.URL, Err: err}
	}
	r := &Result{Source: src, Data: data, SHA256: digest(data), Path: path}
	if src.SHA256 != "" && src.SHA256 != r.SHA256 {
		return nil, &Error{URL: src.URL, Err: &DigestError{Want: src.SHA256, Got: r.SHA256}}
	}
	r.CacheErr = f.store(path, src, data)
	return r, nil
}

// FetchAll fetches sources, a few at a time, and returns their results in
// order, or the first error in order.
func (f *Fetcher) FetchAll(ctx context.Context, srcs []Source) ([]*Result, error) {
	out := make([]*Result, len(srcs))
	errs := make([]error, len(srcs))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, s := range srcs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = f.Fetch(ctx, s)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (f *Fetcher) httpClient() *http.Client {
	f.once.Do(func() {
		if f.Client != nil {
			f.client = f.Client
			return
		}
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DialContext = (&net.Dialer{Timeout: DialTimeout, KeepAlive: 30 * time.Second}).DialContext
		t.TLSHandshakeTimeout = DialTimeout
		t.ResponseHeaderTimeout = HeaderTimeout
		f.client = &http.Client{Transport: t, Timeout: DownloadTimeout}
	})
	return f.client
}

// get downloads src, boundedly, refusing a redirect from https to plain
// http unless the content is pinned.
func (f *Fetcher) get(ctx context.Context, src Source) ([]byte, error) {
	base := f.httpClient()
	c := *base
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		if req.URL.Scheme != "https" && src.SHA256 == "" {
			return fmt.Errorf("refused a redirect to %s: plain http is accepted only for pinned URLs (#sha256=)", req.URL.Redacted())
		}
		if base.CheckRedirect != nil {
			return base.CheckRedirect(req, via)
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src.URL, nil)
	if err != nil {
		return nil, err
	}
	if f.UserAgent != "" {
		req.Header.Set("User-Agent", f.UserAgent)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, netError(err, c.Timeout)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s", resp.Status)
	}
	limit := f.MaxSize
	if limit <= 0 {
		limit = MaxSize
	}
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("larger than %s (%d bytes)", size(limit), resp.ContentLength)
	}
	var b bytes.Buffer
	if _, err := b.ReadFrom(io.LimitReader(resp.Body, limit+1)); err != nil {
		return nil, netError(err, c.Timeout)
	}
	if int64(b.Len()) > limit {
		return nil, fmt.Errorf("larger than %s", size(limit))
	}
	return b.Bytes(), nil
}

func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// netError words a transport error in one line, without repeating the
// URL (Error adds it).
func netError(err error, timeout time.Duration) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return errors.New("canceled")
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		if timeout > 0 {
			return fmt.Errorf("timed out (no complete answer within %s)", timeout)
		}
		return errors.New("timed out")
	}
	return errors.New(strings.ReplaceAll(err.Error(), "\n", " "))
}

// store writes the cached copy atomically, with a sidecar naming its URL
// for people looking into the cache.
func (f *Fetcher) store(path string, src Source, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("cache %s: %v", src.URL, fsutil.UnwrapPath(err))
	}
	if err := fsutil.WriteNew(path, data, 0o600); err != nil {
		return fmt.Errorf("cache %s: %v", src.URL, fsutil.UnwrapPath(err))
	}
	meta := strings.TrimSuffix(path, ".yaml") + ".url"
	if err := fsutil.WriteNew(meta, []byte(src.URL+"\n"), 0o600); err != nil {
		return fmt.Errorf("cache %s: %v", src.URL, fsutil.UnwrapPath(err))
	}
	return nil
}

// Refuse is a transport that makes no request: it counts the attempts
// and fails them. Command tests give it to a Fetcher to prove that a run
// without URLs never touches the network.
type Refuse struct {
	mu       sync.Mutex
	requests []string
}

// RoundTrip records the request and fails it.
func (r *Refuse) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.requests = append(r.requests, req.URL.String())
	r.mu.Unlock()
	return nil, errors.New("network access refused (remote.Refuse)")
}

// Requests lists the URLs asked for so far.
func (r *Refuse) Requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.requests...)
}
