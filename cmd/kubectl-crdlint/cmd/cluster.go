package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/version"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/cluster"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// clusterOptions are the cluster sources and kubectl's connection flags,
// shared by the commands. Nothing touches the network unless --live or
// --crd-from-cluster is given.
type clusterOptions struct {
	Flags *cluster.Flags
	// Live: positional arguments are resource references read from the
	// cluster instead of paths.
	Live bool
	// CRDFromCluster: the cluster's CRDs join the catalogue, below any
	// local ones.
	CRDFromCluster bool

	client *cluster.Client
}

func newClusterOptions() clusterOptions {
	f := cluster.NewFlags()
	f.UserAgent = "kubectl-crdlint/" + version.Get().Version
	return clusterOptions{Flags: f}
}

// addFlags registers --live (with its help for this command), and
// --crd-from-cluster where custom resources are judged.
func (o *clusterOptions) addFlags(fs *pflag.FlagSet, liveHelp string, crdFromCluster bool) {
	fs.BoolVar(&o.Live, "live", false, liveHelp)
	if crdFromCluster {
		fs.BoolVar(&o.CRDFromCluster, "crd-from-cluster", false, "Take the CRDs that custom resources are judged against from the cluster too (local CRDs from the inputs and --crd win)")
	}
	o.Flags.AddFlags(fs)
}

// wanted reports whether any cluster source was asked for.
func (o *clusterOptions) wanted() bool { return o.Live || o.CRDFromCluster }

// validate rejects connection flags that would silently do nothing.
func (o *clusterOptions) validate(fs *pflag.FlagSet) error {
	if o.Flags.AllNamespaces && !o.Live {
		return usageErrorf("-A/--all-namespaces reads objects from the cluster: it needs --live")
	}
	if fs.Changed("chunk-size") && !o.Live {
		return usageErrorf("--chunk-size needs --live")
	}
	if fs.Changed("namespace") && !o.Live {
		return usageErrorf("-n/--namespace applies to objects read with --live")
	}
	if o.Flags.ChunkSize < 0 {
		return usageErrorf("--chunk-size must not be negative")
	}
	return nil
}

// connect returns the client, created on first use.
func (o *clusterOptions) connect() (*cluster.Client, error) {
	if o.client != nil {
		return o.client, nil
	}
	c, err := o.Flags.NewClient()
	if err != nil {
		return nil, clusterError(err)
	}
	o.client = c
	return c, nil
}

// clusterError makes a cluster failure a usage/input error: exit 2, one
// line.
func clusterError(err error) error {
	var ce *cluster.Error
	if errors.As(err, &ce) {
		return &UsageError{ce}
	}
	return err
}

// liveFile renders an object read from the cluster as a parsed file, so
// that every command judges it exactly as a local document. It returns
// the rendered text too.
func liveFile(c *cluster.Client, u *unstructured.Unstructured) (*source.File, []byte, error) {
	data, err := cluster.Render(u)
	if err != nil {
		return nil, nil, fmt.Errorf("render %s: %w", u.GetName(), err)
	}
	return source.Parse(cluster.Name(u, c.Resource(u.GroupVersionKind())), data), data, nil
}

// liveFiles renders a page: the parsed files and their texts.
func liveFiles(c *cluster.Client, page []*unstructured.Unstructured) ([]*source.File, [][]byte, error) {
	files := make([]*source.File, 0, len(page))
	texts := make([][]byte, 0, len(page))
	for _, u := range page {
		f, data, err := liveFile(c, u)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
		texts = append(texts, data)
	}
	return files, texts, nil
}

// addClusterCRDs puts every CRD of the cluster into the catalogue, page by
// page. Call it before collecting local CRDs, which then replace the
// cluster's, as applying them would.
func addClusterCRDs(ctx context.Context, c *cluster.Client, cat *crd.Catalog, l *lint.Linter) error {
	err := c.Visit(ctx, []string{"customresourcedefinitions.apiextensions.k8s.io"}, func(page []*unstructured.Unstructured) error {
		files, _, err := liveFiles(c, page)
		if err != nil {
			return err
		}
		for _, f := range files {
			for _, col := range l.Find(f) {
				cat.AddRaw(col.CRD, col.JSON, col.Source, col.Rejected)
			}
		}
		return nil
	})
	return clusterError(err)
}

// crdFetcher gives custom resources read from the cluster the cluster's
// CRD of their kind when no local CRD defines it: `check --live
// widgets.example.com` judges stored objects against the installed CRD,
// and `--crd new.yaml` against a new revision instead.
type crdFetcher struct {
	c   *cluster.Client
	cat *crd.Catalog
	l   *lint.Linter

	mu    sync.Mutex
	tried map[schema.GroupKind]bool
}

func newCRDFetcher(c *cluster.Client, cat *crd.Catalog, l *lint.Linter) *crdFetcher {
	return &crdFetcher{c: c, cat: cat, l: l, tried: map[schema.GroupKind]bool{}}
}

// ensure fetches the CRDs the documents of files need. It runs before the
// files are judged, not concurrently with lookups of the same kinds.
func (f *crdFetcher) ensure(ctx context.Context, files []*source.File) error {
	for _, file := range files {
		if err := f.ensureDocs(ctx, file.Documents); err != nil {
			return err
		}
	}
	return nil
}

func (f *crdFetcher) ensureDocs(ctx context.Context, docs []*source.Document) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, d := range docs {
		if lint.IsCRD(d) || lint.IsBuiltin(d) {
			continue
		}
		g, v := d.GroupVersion()
		gk := schema.GroupKind{Group: g, Kind: d.Object.Kind}
		if f.tried[gk] || f.cat.Entry(gk) != nil {
			continue
		}
		f.tried[gk] = true
		u, err := f.c.CRDFor(ctx, gk.WithVersion(v))
		if err != nil {
			return clusterError(err)
		}
		if u == nil {
			continue
		}
		cf, _, err := liveFile(f.c, u)
		if err != nil {
			return err
		}
		for _, col := range f.l.Find(cf) {
			f.cat.AddRaw(col.CRD, col.JSON, col.Source, col.Rejected)
		}
	}
	return nil
}

// noResources says, as kubectl get does, that a list came back empty.
func noResources(w io.Writer, c *cluster.Client, all bool) {
	if all || c.SawClusterScoped() {
		fmt.Fprintln(w, "No resources found")
		return
	}
	fmt.Fprintf(w, "No resources found in %s namespace.\n", c.Namespace())
}

// clusterCRDs connects when a cluster source was asked for and, with
// --crd-from-cluster, puts the cluster's CRDs into cat. Local CRDs added
// after them replace them, as applying them would.
func (o *clusterOptions) clusterCRDs(ctx context.Context, cat *crd.Catalog, l *lint.Linter) error {
	if !o.wanted() {
		return nil
	}
	c, err := o.connect()
	if err != nil {
		return err
	}
	if o.CRDFromCluster {
		return addClusterCRDs(ctx, c, cat, l)
	}
	return nil
}

// catalog fills cat as every command does: the cluster's CRDs first with
// --crd-from-cluster, then local ones (--crd and the inputs), which win.
// It connects only when a cluster source was asked for.
func (o *clusterOptions) catalog(ctx context.Context, cat *crd.Catalog, in *inputs, crdPaths []string, l *lint.Linter) error {
	if err := o.clusterCRDs(ctx, cat, l); err != nil {
		return err
	}
	return collectCRDs(ctx, cat, in, crdPaths, l)
}
