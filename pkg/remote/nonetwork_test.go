package remote_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/remote"
)

// urls is what a command hands the fetcher: the URL sources of its
// settings.
func urls(s *config.Settings) []remote.Source {
	var out []remote.Source
	for _, c := range s.CRDs {
		if c.URL != nil {
			out = append(out, *c.URL)
		}
	}
	return out
}

// TestNoURLNoNetwork: with only local CRD sources, resolving the
// configuration and fetching its URLs makes no request; with one URL the
// same wiring asks for exactly that one (so the hook does see requests).
func TestNoURLNoNetwork(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "crds"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	tests := []struct {
		name, config string
		flags        config.Flags
		requests     int
	}{
		{"local only", "crds: [crds]\n", config.Flags{CRDs: []string{"crds"}}, 0},
		{"no configuration", "", config.Flags{}, 0},
		{"one URL", "crds: [crds, 'https://example.com/crds.yaml']\n", config.Flags{}, 1},
		{"one URL flag", "", config.Flags{CRDs: []string{"https://example.com/x.yaml"}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fs := config.Parse(".crdlint.yaml", []byte(tt.config), nil)
			if len(fs) > 0 {
				t.Fatal(fs)
			}
			s, err := config.Resolve(c, tt.flags)
			if err != nil {
				t.Fatal(err)
			}
			refuse := &remote.Refuse{}
			f := &remote.Fetcher{Dir: t.TempDir(), Client: &http.Client{Transport: refuse}}
			_, err = f.FetchAll(context.Background(), urls(s))
			if got := len(refuse.Requests()); got != tt.requests {
				t.Errorf("%d requests (%q), want %d", got, refuse.Requests(), tt.requests)
			}
			if tt.requests > 0 && err == nil {
				t.Error("a refused request did not fail the fetch")
			}
		})
	}
}
