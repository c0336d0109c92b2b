package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
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

// Page is a page of objects read from the cluster, each rendered as a
// parsed file (File) with its text.
type Page struct {
	Objects []*unstructured.Unstructured
	Files   []*source.File
	Texts   [][]byte
}

// Pages reads the objects the references name a page at a time (Visit),
// each page rendered (Files): the one loop over a cluster's pages, for
// CRDs and custom resources alike. fn must not keep the page.
func (c *Client) Pages(ctx context.Context, refs []string, fn func(Page) error) error {
	return c.Visit(ctx, refs, func(page []*unstructured.Unstructured) error {
		files, texts, err := c.Files(page)
		if err != nil {
			return err
		}
		return fn(Page{Objects: page, Files: files, Texts: texts})
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
		if !crd.IsCustomResource(d) {
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

// Counterpart reads the live object an object of NEW would update: same
// kind, namespace and name, in NEW's apiVersion. Where the cluster does
// not serve that version yet, it reads the stored object in one it does
// and converts it as the judging CRD of cat would: with the None strategy
// only apiVersion changes; a webhook cannot be called offline, so that is
// an error rather than a guess. A nil document and no error: not in the
// cluster (a create).
func (c *Client) Counterpart(ctx context.Context, cat *crd.Catalog, d *source.Document, namespace string) (*source.Document, error) {
	gvk := crd.GVK(d)
	u, err := c.Get(ctx, gvk, namespace, d.Object.Name)
	var vns *VersionNotServedError
	if errors.As(err, &vns) {
		u, err = c.converted(ctx, cat, gvk, vns.Served, namespace, d.Object.Name)
	}
	if err != nil || u == nil {
		return nil, err
	}
	f, _, err := c.File(u)
	if err != nil {
		return nil, err
	}
	if len(f.Documents) != 1 {
		return nil, fmt.Errorf("%s: the live object does not read back as one document", f.Path)
	}
	return f.Documents[0], nil
}

// ConversionError is a live object the judging CRD would convert with a
// webhook, which cannot be called offline.
type ConversionError struct{ Err error }

func (e *ConversionError) Error() string { return e.Err.Error() }

func (c *Client) converted(ctx context.Context, cat *crd.Catalog, gvk schema.GroupVersionKind, served, namespace, name string) (*unstructured.Unstructured, error) {
	what := name
	if namespace != "" {
		what = namespace + "/" + name
	}
	e := cat.Entry(gvk.GroupKind())
	if e == nil {
		return nil, fmt.Errorf("cannot read %s %s as %s: the cluster serves it in %s only and no CRD given converts to %s", gvk.Kind, what, gvk.GroupVersion(), served, gvk.Version)
	}
	if conv := e.CRD().Spec.Conversion; conv != nil && conv.Strategy != apiextensionsv1.NoneConverter {
		return nil, &ConversionError{fmt.Errorf("cannot read %s %s as %s: the cluster serves it in %s only and the CRD converts with a %s webhook, which crdlint cannot call", gvk.Kind, what, gvk.GroupVersion(), served, conv.Strategy)}
	}
	u, err := c.Get(ctx, gvk.GroupKind().WithVersion(served), namespace, name)
	if err != nil || u == nil {
		return u, err
	}
	u.SetAPIVersion(gvk.GroupVersion().String())
	return u, nil
}

// VisitFiles reads the objects the references name, a page at a time,
// each rendered as a parsed file (Files), after fetching from the cluster
// the CRDs of the kinds cat lacks (CRDFetcher). It returns how many
// objects were read.
func (c *Client) VisitFiles(ctx context.Context, refs []string, cat *crd.Catalog, fn func(files []*source.File, texts [][]byte) error) (int, error) {
	fetch := NewCRDFetcher(c, cat)
	seen := 0
	err := c.Pages(ctx, refs, func(p Page) error {
		seen += len(p.Objects)
		if err := fetch.Ensure(ctx, p.Files); err != nil {
			return err
		}
		return fn(p.Files, p.Texts)
	})
	return seen, err
}
