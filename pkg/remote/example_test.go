package remote_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/remote"
)

func Example() {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "kind: CustomResourceDefinition\n")
	}))
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "crds")
	defer os.RemoveAll(dir)

	src, err := remote.ParseSource(srv.URL + "/crds.yaml")
	if err != nil {
		panic(err)
	}
	online := &remote.Fetcher{Dir: dir, Client: srv.Client()}
	r, _ := online.Fetch(context.Background(), src)
	fmt.Printf("fetched %d bytes, from the cache: %v\n", len(r.Data), r.Cached)

	srv.Close()
	offline := &remote.Fetcher{Dir: dir, Offline: true}
	r, _ = offline.Fetch(context.Background(), src)
	fmt.Printf("offline: %d bytes, from the cache: %v\n", len(r.Data), r.Cached)
	// Output:
	// fetched 31 bytes, from the cache: false
	// offline: 31 bytes, from the cache: true
}
