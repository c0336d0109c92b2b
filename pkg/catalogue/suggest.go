package catalogue

import (
	"fmt"
	"slices"
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
	if close := Suggest(id); len(close) > 0 {
		return report.Rule{}, fmt.Errorf("unknown rule %q: did you mean %s?", arg, orList(close))
	}
	return report.Rule{}, fmt.Errorf("unknown rule %q (see 'kubectl crdlint check --list-rules')", arg)
}

// Suggest returns the IDs a mistyped one probably meant: those within a
// few edits of it, or containing it as a word ("structural" for
// crd-structural), closest first, at most three.
func Suggest(id string) []string {
	return closeIDs(id, IDs())
}

func closeIDs(id string, ids []string) []string {
	type cand struct {
		id string
		d  int
	}
	var cands []cand
	limit := max(2, len(id)/4)
	for _, c := range ids {
		d := editdist.Distance(id, c)
		if d > limit && len(id) >= 3 && strings.Contains(c, id) {
			d = limit // a part of the ID: as good as a near miss
		}
		if d <= limit {
			cands = append(cands, cand{c, d})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return a.d - b.d })
	out := make([]string, 0, 3)
	for _, c := range cands {
		if len(out) == 3 {
			break
		}
		out = append(out, c.id)
	}
	return out
}

// orList joins words as "a", "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
