package ruleset

import (
	"fmt"
	"strings"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/editdist"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// Find returns the rule an argument names, whatever its case and
// surrounding space; for an unknown one, the error says which IDs come
// close (Suggest).
func Find(arg string) (report.Rule, error) {
	id := strings.ToLower(strings.TrimSpace(arg))
	if r, ok := Lookup(id); ok {
		return r, nil
	}
	return report.Rule{}, Unknown(arg)
}

// Unknown is the error for a command-line argument that names no rule
// (explain, --disable): which IDs come close (Suggest), or where the
// list is.
func Unknown(arg string) error {
	if close := Suggest(strings.TrimSpace(arg)); len(close) > 0 {
		return fmt.Errorf("unknown rule %q: did you mean %s?", arg, editdist.OrList(close))
	}
	return fmt.Errorf("unknown rule %q (see 'kubectl crdlint check --list-rules')", arg)
}

// Suggest returns the IDs a mistyped one probably meant, whatever its
// case: those within a few edits of it, or containing it as a word
// ("structural" for crd-structural), closest first, at most three
// (editdist.Closest, the rule every "did you mean" follows).
func Suggest(id string) []string {
	return editdist.Closest(id, IDs())
}
