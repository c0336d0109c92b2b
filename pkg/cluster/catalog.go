package cluster

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// File renders an object read from the cluster as a parsed file, named
// cluster/NAMESPACE/RESOURCE/NAME, so that every command judges it
// exactly as a local document. It returns the rendered text too.
func (c *Client) File(u *unstructured.Unstructured) (*source.File, []byte, error) {
	data, err := Render(u)
	if err != nil {
		return nil, nil, fmt.Errorf("render %s: %w", u.GetName(), err)
	}
	return source.Parse(Name(u, c.Resource(u.GroupVersionKind())), data), data, nil
}

// Files renders a page: the parsed files and their texts.
func (c *Client) Files(page []*unstructured.Unstructured) ([]*source.File, [][]byte, error) {
	files := make([]*source.File, 0, len(page))
	texts := make([][]byte, 0, len(page))
	for _, u := range page {
		f, data, err := c.File(u)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
		texts = append(texts, data)
	}
	return files, texts, nil
}

// AddCRDs puts every CRD of the cluster into cat at the Cluster layer,
// page by page: local CRDs replace them, as applying them would.
func (c *Client) AddCRDs(ctx context.Context, cat *crd.Catalog) error {
	return c.Visit(ctx, []string{"customresourcedefinitions.apiextensions.k8s.io"}, func(page []*unstructured.Unstructured) error {
		files, _, err := c.Files(page)
		if err != nil {
			return err
		}
		for _, f := range files {
			cat.AddFound(crd.FindCRDs(f), crd.Cluster)
		}
		return nil
	})
}

// CRDFetcher gives custom resources read from the cluster the cluster's
// CRD of their kind when no local CRD defines it: `check --live
// widgets.example.com` judges stored objects against the installed CRD,
// and `--crd new.yaml` against a new revision instead.
type CRDFetcher struct {
	c   *Client
	cat *crd.Catalog

	mu    sync.Mutex
	tried map[schema.GroupKind]bool
}

// NewCRDFetcher returns a fetcher adding to cat.
func NewCRDFetcher(c *Client, cat *crd.Catalog) *CRDFetcher {
	return &CRDFetcher{c: c, cat: cat, tried: map[schema.GroupKind]bool{}}
}

// Ensure fetches the CRDs the documents of files need. It runs before
// the files are judged, not concurrently with lookups of the same kinds.
func (f *CRDFetcher) Ensure(ctx context.Context, files []*source.File) error {
	for _, file := range files {
		if err := f.EnsureDocs(ctx, file.Documents); err != nil {
			return err
		}
	}
	return nil
}

// EnsureDocs is Ensure for documents.
func (f *CRDFetcher) EnsureDocs(ctx context.Context, docs []*source.Document) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, d := range docs {
		if crd.IsCRD(d) || crd.IsBuiltin(d) {
			continue
		}
		gvk := crd.GVK(d)
		gk := gvk.GroupKind()
		if f.tried[gk] || f.cat.Entry(gk) != nil {
			continue
		}
		f.tried[gk] = true
		u, err := f.c.CRDFor(ctx, gvk)
		if err != nil {
			return err
		}
		if u == nil {
			continue
		}
		cf, _, err := f.c.File(u)
		if err != nil {
			return err
		}
		f.cat.AddFound(crd.FindCRDs(cf), crd.Cluster)
	}
	return nil
}
