package upgrade

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/compare"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/replay"
)

// crdYAML is a CRD of kind in example.org serving versions, the last of
// them the storage version.
func crdYAML(kind string, versions ...string) string {
	plural := strings.ToLower(kind) + "s"
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %[1]s.example.org
spec:
  group: example.org
  scope: Namespaced
  names: {plural: %[1]s, singular: %[2]s, kind: %[3]s, listKind: %[3]sList}
  versions:
`, plural, strings.ToLower(kind), kind)
	for i, v := range versions {
		fmt.Fprintf(&b, `  - name: %s
    served: true
    storage: %t
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string}
`, v, i == len(versions)-1)
	}
	return b.String()
}

// readCRDs takes the CRDs of a stream, failing the test on any finding.
func readCRDs(t *testing.T, path string, docs ...string) []CRD {
	t.Helper()
	crds, fs, _ := FileCRDs(source.Parse(path, []byte(strings.Join(docs, "---\n"))), lint.New(lint.Options{}), path == "old.yaml")
	if len(fs) > 0 {
		t.Fatalf("%s: %v", path, fs)
	}
	return crds
}

// v1beta1CRD is a CRD as written before Kubernetes 1.22: one version,
// one schema, preserveUnknownFields left to its default (true).
const v1beta1CRD = `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.org
spec:
  group: example.org
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  version: v1
  validation:
    openAPIV3Schema:
      type: object
      properties:
        spec:
          type: object
          properties:
            size: {type: integer}
`

func TestFileCRDs(t *testing.T) {
	for _, tt := range []struct {
		name      string
		docs      []string
		old       bool     // the file is OLD's
		wantCRDs  []string // names of the CRDs taken
		wantSum   report.Summary
		wantRules []string
	}{
		{
			name:      "a v1beta1 CRD of OLD is taken as the v1 CRD it is stored as",
			docs:      []string{v1beta1CRD},
			old:       true,
			wantCRDs:  []string{"widgets.example.org"},
			wantSum:   report.Summary{Files: 1, Documents: 1, CRDs: 1},
			wantRules: []string{RuleOldV1beta1},
		},
		{
			name:      "a v1beta1 CRD of NEW is refused, as check refuses it",
			docs:      []string{v1beta1CRD},
			wantSum:   report.Summary{Files: 1, Documents: 1, CRDs: 1},
			wantRules: []string{"crd-api-removed"},
		},
		{
			name:     "one CRD",
			docs:     []string{crdYAML("Widget", "v1")},
			wantCRDs: []string{"widgets.example.org"},
			wantSum:  report.Summary{Files: 1, Documents: 1, CRDs: 1},
		},
		{
			name:     "CRDs in order, other objects skipped",
			docs:     []string{crdYAML("Widget", "v1"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", crdYAML("Gadget", "v1")},
			wantCRDs: []string{"widgets.example.org", "gadgets.example.org"},
			wantSum:  report.Summary{Files: 1, Documents: 3, CRDs: 2, Skipped: 1, SkippedBy: map[string]int{"not a CRD": 1}},
		},
		{
			name:    "a mapping without apiVersion and kind",
			docs:    []string{"name: values\n"},
			wantSum: report.Summary{Files: 1, Documents: 1, Skipped: 1, SkippedBy: map[string]int{lint.SkipNotObject: 1}},
		},
		{
			name:      "a scalar is reported",
			docs:      []string{"just text\n"},
			wantSum:   report.Summary{Files: 1, Documents: 1},
			wantRules: []string{"document-not-object"},
		},
		{
			name:      "a CRD that does not decode is reported and left out",
			docs:      []string{strings.Replace(crdYAML("Widget", "v1"), "  versions:\n", "  versions: {}\n  x:\n", 1)},
			wantSum:   report.Summary{Files: 1, Documents: 1, CRDs: 1},
			wantRules: []string{"crd-decode"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := source.Parse("crds.yaml", []byte(strings.Join(tt.docs, "---\n")))
			crds, fs, sum := FileCRDs(f, lint.New(lint.Options{}), tt.old)
			var names []string
			for _, c := range crds {
				names = append(names, c.Def.Name())
			}
			if !slices.Equal(names, tt.wantCRDs) {
				t.Errorf("CRDs %q, want %q", names, tt.wantCRDs)
			}
			if sum.Files != tt.wantSum.Files || sum.Documents != tt.wantSum.Documents || sum.CRDs != tt.wantSum.CRDs ||
				sum.Skipped != tt.wantSum.Skipped || !maps.Equal(sum.SkippedBy, tt.wantSum.SkippedBy) {
				t.Errorf("summary %+v, want %+v", sum, tt.wantSum)
			}
			var rules []string
			for _, f := range fs {
				rules = append(rules, f.Rule)
			}
			if !slices.Equal(rules, tt.wantRules) {
				t.Errorf("rules %q, want %q (%v)", rules, tt.wantRules, fs)
			}
		})
	}
}

func TestJudgePairs(t *testing.T) {
	widget, gadget, gizmo := crdYAML("Widget", "v1"), crdYAML("Gadget", "v1"), crdYAML("Gizmo", "v1")
	for _, tt := range []struct {
		name      string
		old, new  []string
		oldName   string
		wantPairs []string
		want      []string // FILE: MESSAGE of the findings
	}{
		{
			name:      "paired by name in NEW's order",
			old:       []string{widget, gadget},
			new:       []string{gadget, widget},
			wantPairs: []string{"gadgets.example.org", "widgets.example.org"},
		},
		{
			name:      "NEW only",
			old:       []string{widget},
			new:       []string{widget, gadget},
			wantPairs: []string{"widgets.example.org"},
			want:      []string{"new.yaml: OLD has no CRD gadgets.example.org: applying NEW installs it, there is nothing to upgrade"},
		},
		{
			name:      "NEW only, OLD from the cluster",
			old:       []string{widget},
			new:       []string{gadget, widget},
			oldName:   "the cluster",
			wantPairs: []string{"widgets.example.org"},
			want:      []string{"new.yaml: the cluster has no CRD gadgets.example.org: applying NEW installs it, there is nothing to upgrade"},
		},
		{
			name:      "OLD only",
			old:       []string{gizmo, widget},
			new:       []string{widget},
			wantPairs: []string{"widgets.example.org"},
			want:      []string{"old.yaml: NEW has no CRD gizmos.example.org: applying NEW leaves it as it is (deleting it would delete all its objects)"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ps, fs := Judge(lint.New(lint.Options{}), readCRDs(t, "old.yaml", tt.old...), readCRDs(t, "new.yaml", tt.new...), JudgeOptions{OldName: tt.oldName})
			var pairs []string
			for _, p := range ps.List {
				if p.Old.Def.Name() != p.New.Def.Name() {
					t.Errorf("OLD %s paired with NEW %s", p.Old.Def.Name(), p.New.Def.Name())
				}
				pairs = append(pairs, p.New.Def.Name())
			}
			if !slices.Equal(pairs, tt.wantPairs) {
				t.Errorf("pairs %q, want %q", pairs, tt.wantPairs)
			}
			var got []string
			for _, f := range fs {
				if f.Rule != RuleCRDUnpaired || f.Severity != report.Warning || f.Field != "metadata.name" || f.Line == 0 {
					t.Errorf("unexpected finding %+v", f)
				}
				got = append(got, f.File+": "+f.Message)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestJudgeStoredVersions: --stored-versions decides whether removing a
// version is the server's refusal, reported once under the comparison's
// rule, and the summary says the update is refused.
func TestJudgeStoredVersions(t *testing.T) {
	for _, tt := range []struct {
		name        string
		stored      []string
		wantRules   []string // of Judge's findings, then of Report's
		wantRefused bool
	}{
		{"storage version only", nil, []string{compare.RuleVersionRemoved}, false},
		{"removed version stored", []string{"v1beta1", "v1"}, []string{compare.RuleStoredVersionRemoved}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			old := readCRDs(t, "old.yaml", crdYAML("Widget", "v1beta1", "v1"))
			new := readCRDs(t, "new.yaml", crdYAML("Widget", "v1"))
			ps, fs := Judge(lint.New(lint.Options{}), old, new, JudgeOptions{StoredVersions: tt.stored})
			changes, sums := ps.Report()
			var rules []string
			for _, f := range append(fs, changes...) {
				rules = append(rules, f.Rule)
			}
			if !slices.Equal(rules, tt.wantRules) {
				t.Errorf("rules %q, want %q", rules, tt.wantRules)
			}
			if len(sums) != 1 || sums[0].CRD != "widgets.example.org" || sums[0].UpdateRefused != tt.wantRefused {
				t.Errorf("summaries %+v, want one of widgets.example.org with UpdateRefused %t", sums, tt.wantRefused)
			}
		})
	}
}

func TestPairsReplay(t *testing.T) {
	ps, _ := Judge(lint.New(lint.Options{}), readCRDs(t, "old.yaml", crdYAML("Widget", "v1")), readCRDs(t, "new.yaml", crdYAML("Widget", "v1")), JudgeOptions{})
	objects := strings.Join([]string{
		"apiVersion: example.org/v1\nkind: Widget\nmetadata: {name: w, namespace: ns}\nspec: {size: small}\n",
		"apiVersion: example.org/v1\nkind: Gadget\nmetadata: {name: g, namespace: ns}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
		"name: values\n",
	}, "---\n")
	for _, tt := range []struct {
		name     string
		replay   func(*source.File) ([]report.Finding, report.Summary)
		wantSum  report.Summary
		wantMsgs []string
	}{
		{
			name:   "files",
			replay: ps.File,
			wantSum: report.Summary{Documents: 4, CustomResources: 2, Skipped: 2,
				SkippedBy: map[string]int{crd.SkipBuiltin: 1, lint.SkipNotObject: 1}},
			wantMsgs: []string{"no CRD of OLD defines kind Gadget.example.org: the object is not replayed"},
		},
		{
			name:     "stored",
			replay:   func(f *source.File) ([]report.Finding, report.Summary) { return ps.Stored(f, []string{"v1"}) },
			wantSum:  report.Summary{Documents: 4, CustomResources: 3},
			wantMsgs: []string{"no CRD of OLD defines kind Gadget.example.org: the object is not replayed"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs, sum := tt.replay(source.Parse("objects.yaml", []byte(objects)))
			if sum.Documents != tt.wantSum.Documents || sum.CustomResources != tt.wantSum.CustomResources ||
				sum.Skipped != tt.wantSum.Skipped || !maps.Equal(sum.SkippedBy, tt.wantSum.SkippedBy) {
				t.Errorf("summary %+v, want %+v", sum, tt.wantSum)
			}
			var msgs []string
			for _, f := range fs {
				if f.Rule != replay.RuleObjectNotReplayed || f.File != "objects.yaml" || f.Line == 0 {
					t.Errorf("unexpected finding %+v", f)
				}
				msgs = append(msgs, f.Message)
			}
			if !slices.Equal(msgs, tt.wantMsgs) {
				t.Errorf("messages %q, want %q", msgs, tt.wantMsgs)
			}
		})
	}
	if _, sums := ps.Report(); len(sums) != 1 || sums[0].Objects != 2 {
		t.Errorf("summaries %+v, want the Widget replayed twice", sums)
	}
}

// TestJudgeValidate: the CRD update is a request with --validate's field
// validation: NEW with an unknown field (a leftover spec.version) is a
// refused update under Strict, kubectl apply's default, an accepted one
// with a warning under Warn, and nothing under Ignore; a repeated key in
// an object file follows the same directive.
func TestJudgeValidate(t *testing.T) {
	newYAML := strings.Replace(crdYAML("Widget", "v1"), "  scope: Namespaced\n", "  scope: Namespaced\n  version: v1\n", 1)
	objects := "apiVersion: example.org/v1\nkind: Widget\nmetadata: {name: w, namespace: ns}\nspec: {size: small, size: big}\n"
	for _, tt := range []struct {
		validate    fieldvalidation.Directive
		want        []string // rule severity, of Judge's findings then of the objects' file
		wantRefused bool
	}{
		{fieldvalidation.Strict, []string{"unknown-field error", "duplicate-field warning"}, true},
		{fieldvalidation.Warn, []string{"unknown-field warning", "duplicate-field warning"}, false},
		{fieldvalidation.Ignore, nil, false},
	} {
		t.Run(tt.validate.String(), func(t *testing.T) {
			l := lint.New(lint.Options{Validate: tt.validate})
			old := readCRDs(t, "old.yaml", crdYAML("Widget", "v1"))
			crds, fs, _ := FileCRDs(source.Parse("new.yaml", []byte(newYAML)), l, false)
			if len(fs) > 0 {
				t.Fatalf("new.yaml: %v", fs)
			}
			ps, fs := Judge(l, old, crds, JudgeOptions{Validate: tt.validate})
			more, _ := ps.File(source.Parse("objects.yaml", []byte(objects)))
			var got []string
			for _, f := range append(fs, more...) {
				got = append(got, f.Rule+" "+f.Severity.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings %q, want %q", got, tt.want)
			}
			if _, sums := ps.Report(); len(sums) != 1 || sums[0].UpdateRefused != tt.wantRefused {
				t.Errorf("summaries %+v, want UpdateRefused %t", sums, tt.wantRefused)
			}
		})
	}
}

// TestCountBreaking: a CRD's breaking changes are the comparison's
// errors reported on it after review; not its warnings, not what was
// suppressed, not the replay's findings, not another CRD's.
func TestCountBreaking(t *testing.T) {
	crd := func(name string) report.ObjectRef {
		return report.ObjectRef{Kind: "CustomResourceDefinition", Name: name}
	}
	widgets, gadgets := crd("widgets.example.org"), crd("gadgets.example.org")
	tests := []struct {
		name string
		f    report.Finding
		want int
	}{
		{"comparison error", report.Finding{Rule: compare.RuleFieldRemoved, Severity: report.Error, Object: widgets}, 1},
		{"comparison warning", report.Finding{Rule: compare.RuleFieldRemoved, Severity: report.Warning, Object: widgets}, 0},
		{"suppressed", report.Finding{Rule: compare.RuleFieldRemoved, Severity: report.Error, Object: widgets, Suppressed: &report.Suppression{}}, 0},
		{"server's verdict on the update", report.Finding{Rule: "crd-invalid", Severity: report.Error, Object: widgets}, 0},
		{"object", report.Finding{Rule: replay.RuleObjectDataLost, Severity: report.Error, Object: report.ObjectRef{Kind: "Widget", Name: "widgets.example.org"}}, 0},
		{"another CRD", report.Finding{Rule: compare.RuleFieldRemoved, Severity: report.Error, Object: gadgets}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sums := []report.UpgradeSummary{{CRD: widgets.Name, BreakingChanges: 7}}
			CountBreaking(sums, []report.Finding{tt.f})
			if got := sums[0].BreakingChanges; got != tt.want {
				t.Errorf("got %d breaking changes, want %d", got, tt.want)
			}
		})
	}
}

// A change found in a v1beta1 OLD is positioned where the document
// writes it: the top-level validation, unless the version has its own.
func TestInV1beta1(t *testing.T) {
	d := source.Parse("old.yaml", []byte(v1beta1CRD)).Documents[0]
	perVersion := source.Parse("old.yaml", []byte(strings.Replace(v1beta1CRD, "  version: v1\n", "  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema: {type: object, properties: {spec: {type: object}}}\n", 1))).Documents[0]
	v1 := source.Parse("old.yaml", []byte(crdYAML("Widget", "v1"))).Documents[0]
	for _, tt := range []struct {
		name string
		d    *source.Document
		path string
		want string
	}{
		{"top-level schema", d, "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size]", "spec.validation.openAPIV3Schema.properties[spec].properties[size]"},
		{"subresources", d, "spec.versions[0].subresources.status", "spec.subresources.status"},
		{"columns", d, "spec.versions[0].additionalPrinterColumns[0]", "spec.additionalPrinterColumns[0]"},
		{"a version's own schema", perVersion, "spec.versions[0].schema.openAPIV3Schema.properties[spec]", "spec.versions[0].schema.openAPIV3Schema.properties[spec]"},
		{"not moved by the conversion", d, "spec.versions[0].served", "spec.versions[0].served"},
		{"a v1 document", v1, "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[nope]", "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[nope]"},
	} {
		if got := inV1beta1(tt.d, tt.path); got != tt.want {
			t.Errorf("%s: inV1beta1(%s) = %s, want %s", tt.name, tt.path, got, tt.want)
		}
	}
	if pos, exact := d.Locate(inV1beta1(d, "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size]")); !exact || pos.Line != 17 {
		t.Errorf("size found at %+v (exact %v), want line 17", pos, exact)
	}
}

// Objects of the configuration's configKinds are tool configuration, as
// check skips them, not objects without a CRD to replay; built-in kinds
// are counted as check counts them too.
func TestFileConfigKinds(t *testing.T) {
	crds := readCRDs(t, "new.yaml", crdYAML("Widget", "v1"))
	objs := source.Parse("objects.yaml", []byte("apiVersion: example.org/v1\nkind: Widget\nmetadata: {name: a, namespace: default}\n---\n"+
		"apiVersion: tools.example.com/v1\nkind: Settings\nmetadata: {name: s}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"))
	for _, tt := range []struct {
		name     string
		config   *crd.ConfigKinds
		skipped  map[string]int
		findings int
	}{
		{"without configKinds", nil, map[string]int{crd.SkipBuiltin: 1}, 1},
		{"with configKinds", crd.NewConfigKinds([]schema.GroupKind{{Group: "tools.example.com", Kind: "Settings"}}), map[string]int{crd.SkipBuiltin: 1, crd.SkipConfig: 1}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ps, _ := Judge(lint.New(lint.Options{}), crds, crds, JudgeOptions{ConfigKinds: tt.config})
			fs, sum := ps.File(objs)
			if len(fs) != tt.findings || !reflect.DeepEqual(sum.SkippedBy, tt.skipped) {
				t.Errorf("findings %v, skipped %v; want %d findings, skipped %v", fs, sum.SkippedBy, tt.findings, tt.skipped)
			}
		})
	}
}
