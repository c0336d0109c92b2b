package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// Merge joins one run judged by several minors: what they say alike once,
// what differs once per wording with its minors, each minor's counts, the
// objects only some refuse, and upgrade's per-CRD counts.
func TestMerge(t *testing.T) {
	obj := ObjectRef{APIVersion: "example.com/v1", Kind: "Widget", Name: "a"}
	schema := Finding{File: "w.yaml", Line: 3, Column: 5, Document: 0, Object: obj, Rule: "cr-schema", Severity: Error, Message: "Required value", Field: "spec.size"}
	celOld := Finding{File: "w.yaml", Line: 7, Column: 7, Object: obj, Rule: "cr-cel", Severity: Error, Message: `Invalid value: "object": must have a port`, Field: "spec.ref"}
	celNew := celOld
	celNew.Message = "Invalid value: must have a port"
	compile := Finding{File: "w.yaml", Line: 9, Column: 1, Object: ObjectRef{APIVersion: "example.com/v1", Kind: "Gadget", Name: "b"}, Rule: "cr-cel", Severity: Error, Message: "compilation failed: ERROR: <input>:1:16: undeclared reference to 'distinct' (in container '')"}
	minors := []string{"1.33", "1.34", "1.35"}
	up := func(create int) UpgradeSummary {
		return UpgradeSummary{CRD: "widgets.example.com", Objects: 4, WouldFailCreate: create}
	}
	same := UpgradeSummary{CRD: "gadgets.example.com", Objects: 2}
	results := []Result{
		{Findings: []Finding{schema, celOld, compile}, Upgrades: []UpgradeSummary{up(1), same}},
		{Findings: []Finding{schema, celOld}, Upgrades: []UpgradeSummary{up(1), same}},
		{Findings: []Finding{schema, celNew}, Upgrades: []UpgradeSummary{up(2), same}},
	}
	got := Merge(minors, results)

	type line struct {
		rule, msg string
		minors    Minors
	}
	var lines []line
	for _, f := range got.Findings {
		lines = append(lines, line{f.Rule, f.Message, f.KubernetesVersions})
	}
	want := []line{
		{"cr-schema", schema.Message, "1.33,1.34,1.35"},
		{"cr-cel", celOld.Message, "1.33,1.34"},
		{"cr-cel", compile.Message, "1.33"},
		{"cr-cel", celNew.Message, "1.35"},
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("findings:\n got %+v\nwant %+v", lines, want)
	}

	wantSums := []MinorSummary{{"1.33", 3, 0}, {"1.34", 2, 0}, {"1.35", 2, 0}}
	if !reflect.DeepEqual(got.Summary.Minors, wantSums) {
		t.Errorf("per-minor counts = %+v, want %+v", got.Summary.Minors, wantSums)
	}

	// Widget a is refused by every minor (in other words by 1.35): no
	// skew. Gadget b only by 1.33.
	if len(got.Skews) != 1 {
		t.Fatalf("skews = %+v, want Gadget b's alone", got.Skews)
	}
	if k := got.Skews[0].Text(); k != "w.yaml:9: Gadget b: rejected by 1.33 (undeclared reference to 'distinct'), accepted by 1.34–1.35" {
		t.Errorf("skew = %q", k)
	}

	// The CRD every minor counted alike once, without minors; the other
	// once per count, naming its minors.
	wantUp := []UpgradeSummary{up(1), up(2), same}
	wantUp[0].KubernetesVersions, wantUp[1].KubernetesVersions = "1.33,1.34", "1.35"
	if !reflect.DeepEqual(got.Upgrades, wantUp) {
		t.Errorf("upgrades:\n got %+v\nwant %+v", got.Upgrades, wantUp)
	}
	var b bytes.Buffer
	if err := RenderText(&b, got, Options{SummaryLine: true}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"widgets.example.com: update accepted; 4 objects replayed: 1 would fail create (1.33–1.34)\n",
		"widgets.example.com: update accepted; 4 objects replayed: 2 would fail create (1.35)\n",
		"gadgets.example.com: update accepted; 2 objects replayed: none broken\n",
	} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, b.String())
		}
	}
}
