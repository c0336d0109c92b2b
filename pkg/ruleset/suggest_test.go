package ruleset

import "testing"

// TestFind: rule lookup as explain takes its argument, and the
// suggestions for a mistyped one.
func TestFind(t *testing.T) {
	tests := []struct {
		arg, id, err string
	}{
		{"crd-group", "crd-group", ""},
		{" CRD-Group ", "crd-group", ""},
		{"crd-grup", "", `unknown rule "crd-grup": did you mean crd-group?`},
		{"structural", "", `unknown rule "structural": did you mean crd-structural?`},
		{"cr-cell", "", `unknown rule "cr-cell": did you mean cr-cel or crd-cel?`},
		{"crd", "", `unknown rule "crd": did you mean cr-crd-rejected, cr-no-crd or crd-api-approval?`},
		{"zzz", "", `unknown rule "zzz" (see 'kubectl crdlint check --list-rules')`},
	}
	for _, tt := range tests {
		r, err := Find(tt.arg)
		switch {
		case tt.err == "" && (err != nil || r.ID != tt.id):
			t.Errorf("Find(%q): got %q, %v; want %s", tt.arg, r.ID, err, tt.id)
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("Find(%q): got error %v, want %q", tt.arg, err, tt.err)
		}
	}
}
