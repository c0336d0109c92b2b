package editdist

import (
	"slices"
	"strconv"
	"strings"
)

// Closest returns the candidates a mistyped word probably meant, closest
// first, at most three: those within max(1, len(word)/3) edits of it, or,
// for a word of three bytes or more, containing it ("structural" for
// crd-structural). Case is ignored in the comparison, so a word that
// differs from a candidate only in case comes first; the candidates are
// returned as spelt. Ties keep the candidates' order.
//
// It is the one rule for every "did you mean" about rule IDs and
// configuration keys: explain, --disable, the configuration file and
// crdlint:ignore comments.
func Closest(word string, candidates []string) []string {
	type cand struct {
		s string
		d int
	}
	w := strings.ToLower(word)
	// One edit for short words (a key such as "files" is not a typo of
	// "rules"); a third of the word for long ones, whose typos are
	// whole dropped parts ("crd-pruning" for crd-no-pruning).
	limit := max(1, len(w)/3)
	var cands []cand
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := Distance(w, lc)
		if d > limit && len(w) >= 3 && strings.Contains(lc, w) {
			d = limit // a part of it: as good as a near miss
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
		out = append(out, c.s)
	}
	return out
}

// OrList joins words as "a", "a or b", "a, b or c".
func OrList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Quoted is words in Go's double quotes, for OrList.
func Quoted(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strconv.Quote(w)
	}
	return out
}
