package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/apiservertest"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/cluster"
)

// pkg/cluster against a real server. (Here rather than in pkg/cluster so
// that its unit tests and fuzz target do not build the API server.)

// requests records the list requests a client sends.
type requests struct {
	mu   sync.Mutex
	urls []*url.URL
	rt   http.RoundTripper
}

func (r *requests) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.urls = append(r.urls, req.URL)
	r.mu.Unlock()
	return r.rt.RoundTrip(req)
}

// TestVisitPages: lists are read in pages of --chunk-size with continue
// tokens, and each page reaches the visitor on its own.
func TestVisitPages(t *testing.T) {
	srv := apiservertest.Start(t, apiservertest.Options{})
	srv.ApplyCRD(t, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`)
	for i := range 7 {
		srv.Create(t, fmt.Sprintf("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w%d, namespace: ns%d}\n", i, i%2))
	}
	rec := &requests{}
	f := cluster.NewFlags()
	kubeconfig := srv.Kubeconfig(t, apiservertest.AdminUser)
	f.Config.KubeConfig = &kubeconfig
	f.Config.WrapConfigFn = func(c *rest.Config) *rest.Config {
		c.Wrap(func(rt http.RoundTripper) http.RoundTripper { rec.rt = rt; return rec })
		return c
	}
	f.AllNamespaces = true
	f.ChunkSize = 3
	c, err := f.NewClient()
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	var names []string
	err = c.Visit(context.Background(), []string{"wd"}, func(page []*unstructured.Unstructured) error {
		sizes = append(sizes, len(page))
		for _, u := range page {
			names = append(names, u.GetName())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sizes, []int{3, 3, 1}) {
		t.Errorf("got pages of %v, want [3 3 1]", sizes)
	}
	if len(names) != 7 {
		t.Errorf("got %d objects, want 7: %v", len(names), names)
	}
	var lists, continued int
	for _, u := range rec.urls {
		if u.Path != "/apis/example.com/v1/widgets" {
			continue
		}
		lists++
		if u.Query().Get("limit") != "3" {
			t.Errorf("list without limit=3: %s", u)
		}
		if u.Query().Get("continue") != "" {
			continued++
		}
	}
	if lists != 3 || continued != 2 {
		t.Errorf("got %d list requests, %d with continue; want 3 and 2", lists, continued)
	}

	// One page of one namespace; a named object is read with a get.
	// (ConfigFlags keeps its kubeconfig loader once used: new flags.)
	f = cluster.NewFlags()
	f.Config.KubeConfig = &kubeconfig
	ns := "ns1"
	f.Config.Namespace = &ns
	c, err = f.NewClient()
	if err != nil {
		t.Fatal(err)
	}
	names = nil
	err = c.Visit(context.Background(), []string{"widgets.example.com", "w1", "w3"}, func(page []*unstructured.Unstructured) error {
		for _, u := range page {
			names = append(names, u.GetNamespace()+"/"+u.GetName())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(names, []string{"ns1/w1", "ns1/w3"}) {
		t.Errorf("got %v", names)
	}

	// The CRD of a kind, and a kind no CRD defines.
	u, err := c.CRDFor(context.Background(), schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
	if err != nil || u == nil || u.GetName() != "widgets.example.com" {
		t.Errorf("CRDFor(Widget) = %v, %v", u, err)
	}
	u, err = c.CRDFor(context.Background(), schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gizmo"})
	if err != nil || u != nil {
		t.Errorf("CRDFor(Gizmo) = %v, %v; want nil, nil", u, err)
	}
	u, err = c.Get(context.Background(), schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, "", "w9")
	if err != nil || u != nil {
		t.Errorf("Get(missing) = %v, %v; want nil, nil", u, err)
	}
}
