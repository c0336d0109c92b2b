package crdsource

import (
	"context"

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

// Load reads the CRDs.
func (c *Cluster) Load(ctx context.Context, fn func([]File) error) error {
	page := func(p cluster.Page) error {
		fs := make([]File, len(p.Files))
		for i, f := range p.Files {
			fs[i] = File{Name: f.Path, Data: p.Texts[i], parsed: f}
		}
		return fn(fs)
	}
	if c.Names == nil {
		return c.Client.Pages(ctx, []string{crdRef}, page)
	}
	for _, name := range c.Names {
		err := c.Client.Pages(ctx, []string{crdRef + "/" + name}, page)
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}
