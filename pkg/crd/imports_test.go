package crd

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// serverPackages are the apiextensions-apiserver packages that judge:
// validation, registry strategies and the CRD handler's schema machinery.
var serverPackages = []string{
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation",
	"k8s.io/apiextensions-apiserver/pkg/registry/",
	"k8s.io/apiextensions-apiserver/pkg/apiserver/",
}

// TestOnlyCRDRunsTheServer: pkg/crd is the one package that calls the
// server's code, so that a verdict is computed in one place and a library
// upgrade is checked in one place. (internal/apiservertest runs the whole
// server, k8s.io/apiextensions-apiserver/pkg/apiserver itself, for tests.)
func TestOnlyCRDRunsTheServer(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	users := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			for _, s := range serverPackages {
				if path == s || strings.HasPrefix(path, s) {
					users[filepath.ToSlash(filepath.Dir(p))] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 1 || !users["../../pkg/crd"] {
		t.Fatalf("packages importing the server's validation, registry and schema packages: %v, want only pkg/crd", users)
	}
}
