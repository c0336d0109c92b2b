package crdsource

import (
	"context"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
)

// Settings are the CRD sources of the settings, in their order (the
// configuration's crds:, then --crd), each named as the user wrote it;
// URLs are fetched through fetch. The local paths share what they learn
// of their repositories.
func Settings(crds []config.CRDSource, fetch *Fetch) []Source {
	paths := input.NewCRDPaths()
	out := make([]Source, 0, len(crds))
	for _, c := range crds {
		what := c.Path
		if c.URL != nil {
			what = c.URL.URL
		}
		label := c.From + ": crds: " + what
		if c.From == "--"+config.FlagCRD {
			label = "--crd " + what
		}
		if c.URL != nil {
			out = append(out, &URL{Source: *c.URL, Label: label, Fetch: fetch})
			continue
		}
		out = append(out, &Path{Path: c.Path, Label: label, Paths: paths})
	}
	return out
}

// Set opens the sources as the set of CRD files a run reads
// (input.NewRun): the URLs fetched first, all at once, the local files
// checked but read when a custom resource first needs them.
func Set(ctx context.Context, srcs []Source) (*input.Set, error) {
	if err := fetchURLs(ctx, srcs); err != nil {
		return nil, err
	}
	set := input.NewCRDs()
	for _, s := range srcs {
		a := set.AddSource(s.String())
		for fs, err := range s.Load(ctx) {
			if err != nil {
				return nil, err
			}
			names, texts := make([]string, len(fs)), make([][]byte, len(fs))
			for i, f := range fs {
				names[i], texts[i] = f.Name, f.Data
			}
			set.AddCRDs(a, names, texts)
		}
	}
	return set, nil
}

// Sources are a command's CRDs besides those among its inputs.
type Sources struct {
	// Local are the CRD sources (Settings): the first that defines a
	// kind judges it, above the inputs' own.
	Local []Source
	// Cluster, when set, gives the cluster's CRDs (--crd-from-cluster),
	// below every local one; it is called once the local sources are
	// open, so that a mistake in those is said first.
	Cluster func() (Source, error)
}

// Catalog is the one place a command's CRDs are put together: a run of
// the inputs (input.NewRun) whose catalogue cat holds, highest first (the
// package documentation says why):
//
//  1. the local sources, at the Extra layer, read when first needed;
//  2. the inputs' own CRDs, which the run collects as it reads them
//     (pkg/crd's judge.go and pkg/layout choose among them);
//  3. the cluster's, at the Cluster layer, page by page.
//
// The cluster's CRD of a kind no other defines, for a live object
// (--live), is fetched when the object is read (cluster.CRDFetcher).
func Catalog(ctx context.Context, in *input.Set, cat *crd.Catalog, s Sources) (*input.Run, error) {
	crds, err := Set(ctx, s.Local)
	if err != nil {
		return nil, err
	}
	r := input.NewRun(in, crds, cat)
	if s.Cluster == nil {
		return r, nil
	}
	c, err := s.Cluster()
	if err != nil {
		return nil, err
	}
	for fs, err := range c.Load(ctx) {
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			pf, _, err := f.Parse()
			if err != nil {
				return nil, err
			}
			cat.AddFound(crd.FindCRDs(pf), crd.Cluster)
		}
	}
	return r, nil
}
