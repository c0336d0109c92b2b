package crdsource

import (
	"context"
	"fmt"
	"io"
	"iter"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/remote"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// URL is an https:// address of CRDs named by --crd or the
// configuration's crds:, fetched through the cache (pkg/remote).
type URL struct {
	Source remote.Source
	// Label names the source in errors, as Path's does.
	Label string
	Fetch *Fetch

	result *remote.Result
}

func (u *URL) String() string { return u.Label }

// Load fetches the URL, unless fetchURLs did.
func (u *URL) Load(ctx context.Context) iter.Seq2[[]File, error] {
	return func(yield func([]File, error) bool) {
		if u.result == nil {
			if err := fetchURLs(ctx, []Source{u}); err != nil {
				yield(nil, err)
				return
			}
		}
		data := u.result.Data
		if data == nil {
			data = []byte{}
		}
		yield([]File{{Name: u.result.Source.URL, Data: data}}, nil)
	}
}

// Fetch is how a run's URLs are fetched: one fetcher, made when the first
// URL is (New: the cache directory is created only then), and where a
// result that could not be kept in the cache is said.
type Fetch struct {
	New     func() (*remote.Fetcher, error)
	Notices io.Writer

	f *remote.Fetcher
}

func (f *Fetch) fetcher() (*remote.Fetcher, error) {
	if f.f == nil {
		r, err := f.New()
		if err != nil {
			return nil, &source.InputError{Err: err}
		}
		f.f = r
	}
	return f.f, nil
}

// fetchURLs fetches the URLs among srcs not fetched yet, all at once (a
// few at a time, remote.Fetcher.FetchAll), before any other source is
// read: a URL that cannot be fetched fails the run whatever comes before
// it, and the fetches overlap.
func fetchURLs(ctx context.Context, srcs []Source) error {
	var (
		order []*Fetch
		urls  = map[*Fetch][]*URL{}
	)
	for _, s := range srcs {
		if u, ok := s.(*URL); ok && u.result == nil {
			if urls[u.Fetch] == nil {
				order = append(order, u.Fetch)
			}
			urls[u.Fetch] = append(urls[u.Fetch], u)
		}
	}
	for _, fetch := range order {
		f, err := fetch.fetcher()
		if err != nil {
			return err
		}
		us := urls[fetch]
		srcs := make([]remote.Source, len(us))
		for i, u := range us {
			srcs[i] = u.Source
		}
		results, err := f.FetchAll(ctx, srcs)
		if err != nil {
			return err
		}
		for i, r := range results {
			us[i].result = r
			if r.CacheErr != nil && fetch.Notices != nil {
				fmt.Fprintf(fetch.Notices, "warning: %s: not cached: %v\n", r.Source.URL, r.CacheErr)
			}
		}
	}
	return nil
}
