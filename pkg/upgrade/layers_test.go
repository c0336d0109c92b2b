package upgrade

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/kubectl-crdlint/kubectl-crdlint/"

// io are the imports that read or write files, run git or reach a
// cluster.
var io = []string{"os", "os/exec", "io/fs", "io/ioutil", "net", "net/http", "syscall", "k8s.io/client-go",
	module + "pkg/input", module + "pkg/gitrev", module + "pkg/cluster", module + "pkg/crdsource"}

// TestLayers holds pkg/upgrade to its split: the comparison is pure and
// asks the server nothing but which formats it validates and which rules
// are transition rules (pkg/engine); the replay reaches the server only
// through pkg/engine (its versions compiled by pkg/crd) and reads nothing; the
// command's work here reads nothing either; read is the only part that
// touches files, git and the cluster. Imports point down: read, then
// this package, then replay, then compare.
func TestLayers(t *testing.T) {
	tests := []struct {
		dir string
		// ours are the only packages of this module it may import.
		ours []string
		io   bool
	}{
		{"compare", []string{"pkg/engine", "pkg/report"}, false},
		{"replay", []string{"pkg/crd", "pkg/engine", "pkg/fieldvalidation", "pkg/report", "pkg/source", "pkg/upgrade/compare"}, false},
		{".", []string{"pkg/crd", "pkg/engine", "pkg/fieldvalidation", "pkg/lint", "pkg/report", "pkg/source", "pkg/upgrade/compare", "pkg/upgrade/replay"}, false},
		{"read", []string{"pkg/cluster", "pkg/crdsource", "pkg/input", "pkg/lint", "pkg/report", "pkg/source", "pkg/upgrade"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join(tt.dir, "*.go"))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, f := range files {
				if strings.HasSuffix(f, "_test.go") {
					continue
				}
				n++
				af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
				if err != nil {
					t.Fatal(err)
				}
				for _, im := range af.Imports {
					path, _ := strconv.Unquote(im.Path.Value)
					if ours, ok := strings.CutPrefix(path, module); ok && !slices.Contains(tt.ours, ours) {
						t.Errorf("%s imports %s: want only %v of this module", f, path, tt.ours)
					}
					if !tt.io && slices.ContainsFunc(io, func(p string) bool { return path == p || strings.HasPrefix(path, p+"/") }) {
						t.Errorf("%s imports %s: only pkg/upgrade/read reads files, git or a cluster", f, path)
					}
				}
			}
			if n == 0 {
				t.Fatalf("no Go files in %s", tt.dir)
			}
		})
	}
}
