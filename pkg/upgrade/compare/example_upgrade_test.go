package compare

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/crdtest"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

const exampleDir = "../../../examples/upgrade"

// TestExampleUpgrade keeps examples/upgrade honest: widget-v1.yaml to
// widget-v2.yaml reports what widget-v2.yaml's header says, with the
// objects of objects.yaml as Options.Present, and the full output is the
// golden file testdata/example-upgrade.json.
func TestExampleUpgrade(t *testing.T) {
	old := crdtest.Read(t, filepath.Join(exampleDir, "widget-v1.yaml"))
	new := crdtest.Read(t, filepath.Join(exampleDir, "widget-v2.yaml"))
	data, err := os.ReadFile(filepath.Join(exampleDir, "objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var objects []map[string]any
	for _, d := range source.Parse("objects.yaml", data).Documents {
		var o map[string]any
		if err := json.Unmarshal(d.JSON, &o); err != nil {
			t.Fatal(err)
		}
		objects = append(objects, o)
	}
	if len(objects) < 5 {
		t.Fatalf("%d objects in objects.yaml", len(objects))
	}
	present := func(version string, p DataPath) bool {
		for _, o := range objects {
			if o["apiVersion"] == "example.org/"+version && Has(o, p) {
				return true
			}
		}
		return false
	}
	cs := Revisions(old.CRD, new.CRD, Options{Present: present})
	checkPaths(t, old, new, cs)
	var got []string
	for _, c := range cs {
		got = append(got, c.Rule)
	}
	want := []string{RuleCELRuleAdded, RuleFieldRemoved, RuleBoundTightened, RuleEnumRemoved, RuleRequiredAdded, RuleVersionUnserved}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("rules %q, want %q", got, want)
	}
	// Without the objects, tls.secretName is only a warning.
	for _, c := range Revisions(old.CRD, new.CRD, Options{}) {
		if c.Rule == RuleRequiredAdded {
			t.Errorf("without objects: %s at %s", c.Rule, c.Path)
		}
	}
	b, err := json.MarshalIndent(cs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/example-upgrade.json", string(b)+"\n")
}
