package compare

// Rule fixtures: ../testdata/rules/<rule-id>/<case>.yaml holds OLD (the first
// document) and NEW (the second); further documents are existing custom
// resources, from which the harness builds Options.Present. Each line
// where a change is expected to be positioned carries a trailing comment
//
//	    maximum: 5 # want: upgrade-bound-tightened
//
// in OLD for what the change's path finds in OLD (InOld), in NEW
// otherwise. The harness compares the multiset of (line, rule) of the
// changes, their paths located in the file with pkg/source, with the
// annotations exactly: nothing expected may be missing and nothing else may
// appear. Every fixture must expect its directory's rule, but for the
// directory "none", whose fixtures expect no change at all, and for
// pass-<case>.yaml, the fix a rule's page shows, which must not. Every
// rule has both. <case>.json is the golden form of the changes (messages,
// values, CEL details): go test ./pkg/upgrade/compare -update rewrites it.
// pkg/upgrade's tests run each fixture as the command runs it, too, which
// is why the fixtures are pkg/upgrade's (beside its replay fixtures), and
// the rule pages (docs/rules/) link to them there.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/crdtest"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

const rulesDir = "../testdata/rules"

// passPrefix names the fixtures of a rule's directory that show its fix:
// they must not produce the rule, where every other fixture must.
const passPrefix = "pass-"

var wantRE = regexp.MustCompile(`#\s*want:(.*)$`)

type lineRule struct {
	line int
	rule string
}

// fixture is one rule fixture read and decoded.
type fixture struct {
	path     string
	old, new *crdtest.File
	objects  []map[string]any
	want     map[lineRule]int
}

func readFixture(t testing.TB, path string) *fixture {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := source.Parse(path, data)
	if len(f.Findings) > 0 {
		t.Fatalf("%s: %v", path, f.Findings)
	}
	if len(f.Documents) < 2 {
		t.Fatalf("%s: %d documents, want OLD and NEW", path, len(f.Documents))
	}
	fx := &fixture{path: path, want: map[lineRule]int{}}
	crds := make([]*crdtest.File, 2)
	for i, d := range f.Documents[:2] {
		crd, err := crdtest.Decode(d.JSON)
		if err != nil {
			t.Fatalf("%s: document %d: %v", path, i, err)
		}
		crds[i] = &crdtest.File{Path: path, CRD: crd, Doc: d, Stored: crdtest.StoredJSON(t, crd)}
	}
	fx.old, fx.new = crds[0], crds[1]
	for _, d := range f.Documents[2:] {
		var obj map[string]any
		if err := json.Unmarshal(d.JSON, &obj); err != nil {
			t.Fatalf("%s: document %d: %v", path, d.Index, err)
		}
		fx.objects = append(fx.objects, obj)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if m := wantRE.FindStringSubmatch(l); m != nil {
			for _, r := range strings.Fields(m[1]) {
				fx.want[lineRule{i + 1, r}]++
			}
		}
	}
	return fx
}

// present answers Options.Present from the fixture's objects: an object
// of the version (apiVersion group/version) has a value at the field.
func (fx *fixture) present() func(string, DataPath) bool {
	if len(fx.objects) == 0 {
		return nil
	}
	return func(version string, p DataPath) bool {
		for _, o := range fx.objects {
			if o["apiVersion"] == fx.old.CRD.Spec.Group+"/"+version && Has(o, p) {
				return true
			}
		}
		return false
	}
}

func TestRuleFixtures(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(rulesDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	covered, passing := map[string]bool{}, map[string]bool{}
	for _, dir := range dirs {
		rule := filepath.Base(dir)
		if _, ok := severity[rule]; !ok && rule != "none" {
			t.Errorf("%s: no rule %s in Rules", dir, rule)
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if len(files) == 0 {
			t.Errorf("%s: no fixtures", dir)
		}
		for _, path := range files {
			name := rule + "/" + strings.TrimSuffix(filepath.Base(path), ".yaml")
			t.Run(name, func(t *testing.T) {
				fx := readFixture(t, path)
				for _, c := range []*crdtest.File{fx.old, fx.new} {
					if cs := Revisions(c.CRD, c.CRD.DeepCopy(), Options{}); len(cs) > 0 {
						t.Errorf("comparing a fixture CRD with itself: %+v", cs)
					}
				}
				before := fx.old.CRD.DeepCopy()
				cs := Revisions(fx.old.CRD, fx.new.CRD, Options{Present: fx.present()})
				if !equalCRD(before, fx.old.CRD) {
					t.Errorf("Revisions modified OLD")
				}
				checkPaths(t, fx.old, fx.new, cs)
				got := map[lineRule]int{}
				for _, c := range cs {
					if s, ok := severity[c.Rule]; !ok || s != c.Severity {
						t.Errorf("%s: severity %v, rule not in Rules or with another severity", c.Rule, c.Severity)
					}
					doc := fx.new.Doc
					if c.InOld {
						doc = fx.old.Doc
					}
					pos, exact := doc.Locate(c.Path)
					if !exact {
						t.Errorf("%s: path %s (inOld=%t) not found in the file", c.Rule, c.Path, c.InOld)
					}
					got[lineRule{pos.Line, c.Rule}]++
				}
				for k, n := range fx.want {
					if got[k] != n {
						t.Errorf("line %d: want %d × %s, got %d", k.line, n, k.rule, got[k])
					}
				}
				for k, n := range got {
					if fx.want[k] == 0 {
						t.Errorf("line %d: unexpected %d × %s: %s", k.line, n, k.rule, messages(cs, k.rule))
					}
				}
				has := slices.ContainsFunc(cs, func(c Change) bool { return c.Rule == rule })
				switch {
				case rule == "none":
					if len(cs) > 0 {
						t.Errorf("want no change, got %d", len(cs))
					}
				case strings.HasPrefix(filepath.Base(path), passPrefix):
					if has {
						t.Errorf("the passing fixture has %s changes: %s", rule, messages(cs, rule))
					} else {
						passing[rule] = true
					}
				case !has:
					t.Errorf("no %s change", rule)
				default:
					covered[rule] = true
				}
				b, err := json.MarshalIndent(cs, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				golden(t, strings.TrimSuffix(path, ".yaml")+".json", string(b)+"\n")
			})
		}
	}
	for _, r := range Rules {
		if !covered[r.ID] {
			t.Errorf("rule %s has no fixture under %s that reports it", r.ID, rulesDir)
		}
		if !passing[r.ID] {
			t.Errorf("rule %s has no %s*.yaml fixture under %s/%s that shows its fix", r.ID, passPrefix, rulesDir, r.ID)
		}
	}
}

func messages(cs []Change, rule string) string {
	var out []string
	for _, c := range cs {
		if c.Rule == rule {
			out = append(out, c.Path+": "+c.Message)
		}
	}
	return strings.Join(out, "; ")
}

func equalCRD(a, b *apiextensionsv1.CustomResourceDefinition) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
