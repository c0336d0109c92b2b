package editdist

import (
	"strings"
	"testing"
)

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"crd-group", "crd-group", 0},
		{"crd-grup", "crd-group", 1},
		{"crd-gruop", "crd-group", 2},
		{"cr-cel", "crd-cel", 1},
		{"kitten", "sitting", 3},
		{strings.Repeat("a", 65), "a", 65},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q): got %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q): got %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}
