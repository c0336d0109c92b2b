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

// TestLookupMessage: a kind no CRD defines is a missing CRD, to be given;
// a kind a built-in group does not have is no CRD's to add (a removed
// kind, a misspelt one, one sent in the wrong group).
func TestLookupMessage(t *testing.T) {
	tests := []struct {
		gvk  schema.GroupVersionKind
		want string
	}{
		{
			schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"},
			`no matches for kind "Widget" in version "example.com/v1": ` + noCRDHelp,
		},
		{
			schema.GroupVersionKind{Group: "policy", Version: "v1beta1", Kind: "PodSecurityPolicy"},
			`no matches for kind "PodSecurityPolicy" in version "policy/v1beta1": the API group "policy" is built into Kubernetes, and no CRD can add a kind to it: this kind was removed from it, or is misspelt`,
		},
		{
			schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Pod"},
			`no matches for kind "Pod" in version "apps/v1": the API group "apps" is built into Kubernetes, and no CRD can add a kind to it: this kind was removed from it, or is misspelt (Pod is a kind of the core API group)`,
		},
		{
			schema.GroupVersionKind{Version: "v1", Kind: "Deploymnet"},
			`no matches for kind "Deploymnet" in version "v1": the core API group is built into Kubernetes, and no CRD can add a kind to it: this kind was removed from it, or is misspelt`,
		},
	}
	for _, tt := range tests {
		if got := LookupMessage(&crd.LookupError{Reason: crd.NoCRD, GVK: tt.gvk}); got != tt.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.gvk, got, tt.want)
		}
	}
}
