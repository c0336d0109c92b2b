package crdsource

import (
	"context"
	"errors"
	"iter"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/cluster"
)

// crdRef is the resource reference of CustomResourceDefinitions.
const crdRef = "customresourcedefinitions.apiextensions.k8s.io"

// Cluster is the CRDs installed in a cluster, each rendered as `kubectl
// get -o yaml` prints it (cluster.Client.Pages): all of them a page at a
// time, or those Names names, a CRD the cluster lacks left out (for
// comparing a local revision with the installed one, where that is a
// finding, not an error).
type Cluster struct {
	Client *cluster.Client
	Names  []string
}

func (c *Cluster) String() string { return "the cluster" }

// Load reads the CRDs, a page at a time.
func (c *Cluster) Load(ctx context.Context) iter.Seq2[[]File, error] {
	return func(yield func([]File, error) bool) {
		// The client hands pages to a function; stopped says the
		// caller's loop ended, to end the client's too.
		stopped := false
		page := func(p cluster.Page) error {
			fs := make([]File, len(p.Files))
			for i, f := range p.Files {
				fs[i] = File{Name: f.Path, Data: p.Texts[i], parsed: f}
			}
			if !yield(fs, nil) {
				stopped = true
				return errStopped
			}
			return nil
		}
		refs := []string{crdRef}
		if c.Names != nil {
			refs = nil
			for _, name := range c.Names {
				refs = append(refs, crdRef+"/"+name)
			}
		}
		for _, ref := range refs {
			err := c.Client.Pages(ctx, []string{ref}, page)
			if stopped {
				return
			}
			if err != nil && (c.Names == nil || !apierrors.IsNotFound(err)) {
				yield(nil, err)
				return
			}
		}
	}
}

// errStopped ends the client's pages when the caller's loop has ended.
var errStopped = errors.New("stopped")
