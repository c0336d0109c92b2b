package config

import (
	"testing"
)

// TestUnknownRuleSuggestion: an unknown ID under rules: is suggested the
// IDs explain, --disable and crdlint:ignore comments would suggest
// (editdist.Closest): a near miss, an ID differing only in case (which
// is not accepted), a part of an ID, up to three, or none.
func TestUnknownRuleSuggestion(t *testing.T) {
	const tail = " (kubectl crdlint check --list-rules lists them)"
	tests := []struct {
		name, id, want string
	}{
		{"a near miss", "crd-empty-objects", `unknown rule "crd-empty-objects" (did you mean "crd-empty-object"?)` + tail},
		{"only the case differs", "CRD-Empty-Object", `unknown rule "CRD-Empty-Object" (did you mean "crd-empty-object"?)` + tail},
		{"a part of an ID", "structural", `unknown rule "structural" (did you mean "crd-structural"?)` + tail},
		{"several, closest first", "cr-cell", `unknown rule "cr-cell" (did you mean "cr-cel" or "crd-cel"?)` + tail},
		{"three at most", "crd", `unknown rule "crd" (did you mean "cr-crd-rejected", "cr-no-crd" or "crd-api-approval"?)` + tail},
		{"nothing close", "zzz", `unknown rule "zzz"` + tail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, yaml := range []string{
				"rules:\n  " + tt.id + ": off\n",
				"overrides:\n  - files: [x]\n    rules: {" + tt.id + ": off}\n",
			} {
				_, fs := Parse("c.yaml", []byte(yaml), catalogue())
				if len(fs) != 1 || fs[0].Message != tt.want {
					t.Errorf("%q: got %v, want one finding %q", yaml, fs, tt.want)
				}
			}
		})
	}
}
