package compare

import (
	"strconv"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/crdtest"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// resolves says a path in the server's notation names a value of v (the
// JSON of a CRD).
func resolves(v any, path string) bool {
	for _, s := range source.ParsePath(path) {
		switch x := v.(type) {
		case map[string]any:
			c, ok := x[s.Name]
			if !ok {
				return false
			}
			v = c
		case []any:
			i, err := strconv.Atoi(s.Name)
			if !s.Bracket || err != nil || i < 0 || i >= len(x) {
				return false
			}
			v = x[i]
		default:
			return false
		}
	}
	return true
}

// checkPaths fails the test for a change whose path does not exist in
// the CRD it names.
func checkPaths(t *testing.T, old, new *crdtest.File, cs []Change) {
	t.Helper()
	for _, c := range cs {
		in := new
		if c.InOld {
			in = old
		}
		if !resolves(in.Stored, c.Path) {
			t.Errorf("%s: %s: path %s (inOld=%t) does not exist in %s", c.Rule, c.Message, c.Path, c.InOld, in.Path)
		}
		if c.CEL != nil && !resolves(in.Stored, c.CEL.Node) {
			t.Errorf("%s: CEL node %s does not exist in %s", c.Rule, c.CEL.Node, in.Path)
		}
	}
}
