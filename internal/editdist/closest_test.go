package editdist

import (
	"slices"
	"testing"
)

// TestClosest: the one threshold of every "did you mean": within
// max(1, len/3) edits, or containing the word (three bytes or more),
// whatever the case, closest first, at most three.
func TestClosest(t *testing.T) {
	ids := []string{"cr-cel", "crd-cel", "crd-group", "crd-structural", "crd-empty-object", "crd-no-pruning"}
	keys := []string{"crds", "exclude", "strict", "failOn", "missingCRDs", "rules", "overrides", "baseline"}
	tests := []struct {
		name, word string
		candidates []string
		want       []string
	}{
		{"exact", "crd-group", ids, []string{"crd-group"}},
		{"one edit", "crd-grup", ids, []string{"crd-group"}},
		{"two edits", "crd-gruop", ids, []string{"crd-group"}},
		{"closest first, ties in order", "cr-cell", ids, []string{"cr-cel", "crd-cel"}},
		{"a part of an ID", "structural", ids, []string{"crd-structural"}},
		{"a part shorter than three bytes is not", "cr", []string{"crd-structural"}, []string{}},
		{"case is ignored, the candidate kept as spelt", "CRD-Structural", ids, []string{"crd-structural"}},
		{"a key in the wrong case", "failon", keys, []string{"failOn"}},
		{"a long typo: len/3 edits", "crd-empty-objects", ids, []string{"crd-empty-object"}},
		{"a dropped part", "crd-pruning", ids, []string{"crd-no-pruning"}},
		{"a short word: one edit", "files", keys, []string{}},
		{"a short word one edit off", "rule", keys, []string{"rules"}},
		{"too far", "crd-no-prunning-at-all", ids, []string{}},
		{"nothing close", "zzz", ids, []string{}},
		{"three at most", "crd", []string{"crd-a", "crd-b", "crd-c", "crd-d"}, []string{"crd-a", "crd-b", "crd-c"}},
	}
	for _, tt := range tests {
		if got := Closest(tt.word, tt.candidates); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Closest(%q): got %q, want %q", tt.name, tt.word, got, tt.want)
		}
	}
}

func TestOrList(t *testing.T) {
	tests := []struct {
		words []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a or b"},
		{[]string{"a", "b", "c"}, "a, b or c"},
		{Quoted([]string{"a", "b"}), `"a" or "b"`},
	}
	for _, tt := range tests {
		if got := OrList(tt.words); got != tt.want {
			t.Errorf("OrList(%q): got %q, want %q", tt.words, got, tt.want)
		}
	}
}
