package kubeminor

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite docs/versions.md's generated sections")

// VersionsDoc is docs/versions.md, from a package directory two levels
// down.
var VersionsDoc = filepath.Join("..", "..", "docs", "versions.md")

// TestVersionsDoc: the table of each minor's libraries in
// docs/versions.md is the modfiles'.
func TestVersionsDoc(t *testing.T) {
	var b strings.Builder
	b.WriteString("| minor | built from | apiextensions-apiserver, apiserver, apimachinery, client-go | kube-openapi | cel-go | cel.dev/expr | kustomize (apply -k) |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range Supported {
		mod := filepath.Join("..", "..", Modfile(r.Minor))
		if r.Tag() == "" {
			mod = filepath.Join("..", "..", "go.mod")
		}
		req := requires(t, mod)
		from := "`hack/minors/k8s" + r.Minor + ".mod`, tag `" + r.Tag() + "`"
		if r.Tag() == "" {
			from = "`go.mod` (the main binary)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.Minor, from, req["k8s.io/apiextensions-apiserver"], req["k8s.io/kube-openapi"], req["github.com/google/cel-go"], req["cel.dev/expr"], req["sigs.k8s.io/kustomize/api"])
	}
	testutil.Section(t, VersionsDoc, "modules", b.String(), *update)
}
