package lint

import (
	"bytes"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
)

// TestMissingNotes: a missing CRD is said as the policy says; other
// notes whatever it is, and only errors count.
func TestMissingNotes(t *testing.T) {
	notes := []crd.Note{
		{Pos: "a.yaml:1:1", Label: "skipped", Msg: "Pod is built in"},
		crd.Unserved("a.yaml:5:1", &crd.LookupError{Reason: crd.NoCRD, GVK: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}}),
		{Pos: "a.yaml:9:1", Label: "error", Msg: "cannot decode"},
	}
	tests := []struct {
		m    Missing
		want string
		errs int
	}{
		{MissingError, "a.yaml:1:1: skipped: Pod is built in\na.yaml:5:1: error: no matches for kind \"Widget\" in version \"example.com/v1\": no CRD given defines it (give it with --crd FILE|DIR, or crds: in .crdlint.yaml, which kubectl crdlint config init writes)\na.yaml:9:1: error: cannot decode\n", 2},
		{MissingWarn, "a.yaml:1:1: skipped: Pod is built in\na.yaml:5:1: warning: no matches for kind \"Widget\" in version \"example.com/v1\": no CRD given defines it (give it with --crd FILE|DIR, or crds: in .crdlint.yaml, which kubectl crdlint config init writes)\na.yaml:9:1: error: cannot decode\n", 1},
		{MissingIgnore, "a.yaml:1:1: skipped: Pod is built in\na.yaml:9:1: error: cannot decode\n", 1},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if errs := tt.m.Notes(&b, notes); errs != tt.errs || b.String() != tt.want {
			t.Errorf("%s: got %d errors and\n%s\nwant %d and\n%s", tt.m, errs, b.String(), tt.errs, tt.want)
		}
	}
}
