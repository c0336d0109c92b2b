// Package editdist measures how far apart two short words are, for the
// "did you mean" suggestions of rule IDs and configuration keys.
package editdist

// Distance is the Levenshtein distance between a and b, in bytes (rule
// IDs and keys are ASCII). Past 64 bytes either way it is the longer
// length: a suggestion for such a word helps nobody, and the cost of the
// table grows with the product of the lengths.
func Distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
