package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// serverModules are the modules of the API server's code: its
// validation, registry strategies, structural schemas, CEL and OpenAPI
// validation. Only the engine may import them, but for plainData.
var serverModules = []string{
	"k8s.io/apiextensions-apiserver",
	"k8s.io/apiserver",
	"k8s.io/kube-openapi",
	"github.com/google/cel-go",
	"cel.dev/expr",
}

// plainData are the packages of serverModules that hold API types, plain
// data with their scheme registrations and nothing that judges, which the
// rest of the tool may import: the CRD's v1 types (what it reads and
// compares), the internal types the server's errors carry as values, and
// the configuration kinds of the API server that pkg/crd's Classify
// skips.
var plainData = []string{
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1",
	"k8s.io/apiserver/pkg/apis/apiserver/v1",
	"k8s.io/apiserver/pkg/apis/apiserver/v1alpha1",
	"k8s.io/apiserver/pkg/apis/apiserver/v1beta1",
	"k8s.io/apiserver/pkg/apis/audit/v1",
}

// serverCode reports whether an import path is the API server's code
// that only the engine may run.
func serverCode(path string) bool {
	for _, m := range serverModules {
		if path == m || strings.HasPrefix(path, m+"/") {
			return !slices.Contains(plainData, path)
		}
	}
	return false
}

// theServer is internal/apiservertest: the whole API server, run in
// process by the end-to-end tests as the ground truth to compare with.
// It judges nothing for the tool.
const theServer = "internal/apiservertest"

const module = "github.com/kubectl-crdlint/kubectl-crdlint"

func TestServerCode(t *testing.T) {
	for path, want := range map[string]bool{
		"k8s.io/apiextensions-apiserver/pkg/apiserver/schema":                  true,
		"k8s.io/apiextensions-apiserver/pkg/apiserver/validation":              true,
		"k8s.io/apiextensions-apiserver/pkg/registry/customresource":           true,
		"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation":     true,
		"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install":        true,
		"k8s.io/apiextensions-apiserver/pkg/apihelpers":                        true,
		"k8s.io/apiserver/pkg/cel":                                             true,
		"k8s.io/apiserver/pkg/apis/cel":                                        true,
		"k8s.io/apiserver/pkg/registry/rest":                                   true,
		"k8s.io/kube-openapi/pkg/validation/spec":                              true,
		"github.com/google/cel-go/parser":                                      true,
		"cel.dev/expr":                                                         true,
		"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1":             false,
		"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions":                false,
		"k8s.io/apiserver/pkg/apis/audit/v1":                                   false,
		"k8s.io/apimachinery/pkg/util/validation/field":                        false,
		"k8s.io/apiextensions-apiserverx":                                      false,
		"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd":                   false,
		"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/validations": true,
	} {
		if got := serverCode(path); got != want {
			t.Errorf("serverCode(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestEngineBoundary: pkg/engine is the only code that runs the API
// server's libraries, so that it can be built against another Kubernetes
// minor's releases without touching the rest, and a library upgrade is
// checked in one place. In non-test code:
//
//   - only the engine imports the server's code (serverCode);
//   - the engine imports no package of this module: its interface is plain
//     data (the v1 API types of apiextensions.k8s.io; from apimachinery
//     decoded JSON objects, unstructured.Unstructured, field.Error,
//     schema.GroupVersionKind and fields.Set; and its own verdict types);
//   - nothing outside the engine calls Version.Structural, which hands out
//     a server type for differential tests only.
func TestEngineBoundary(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var problems []string
	users := 0
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
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		dir := filepath.ToSlash(filepath.Dir(rel))
		inEngine := dir == "pkg/engine" || strings.HasPrefix(dir, "pkg/engine/")
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			switch {
			case inEngine && (path == module || strings.HasPrefix(path, module+"/")):
				problems = append(problems, rel+" imports "+path+": the engine imports nothing of the tool's")
			case inEngine && serverCode(path):
				users++
			case serverCode(path) && dir != theServer:
				problems = append(problems, rel+" imports "+path+": only pkg/engine runs the server's code")
			}
		}
		if !inEngine {
			ast.Inspect(f, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok && len(c.Args) == 0 {
					if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "Structural" {
						problems = append(problems, fset.Position(c.Pos()).String()+": calls Structural, which is for differential tests")
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if users < 10 {
		t.Fatalf("the engine imports the server's packages %d times: is the walk looking at the tree?", users)
	}
}
