package ruleset_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	rulepages "github.com/kubectl-crdlint/kubectl-crdlint/docs/rules"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/ruleset"
)

// ruleConstRE is a rule ID declared as a constant: Rule... = "id".
var ruleConstRE = regexp.MustCompile(`\bRule[A-Za-z0-9]*\s*=\s*"([a-z0-9-]+)"`)

// TestEveryDeclaredRuleIsCatalogued: every rule ID a package declares in
// its non-test code is in the rule set and has a page, so that no
// finding a command emits is missing from --list-rules, explain, --disable
// or SARIF.
func TestEveryDeclaredRuleIsCatalogued(t *testing.T) {
	declared := map[string]string{}
	for _, root := range []string{"../../pkg", "../../cmd", "../../internal"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range ruleConstRE.FindAllStringSubmatch(string(src), -1) {
				declared[m[1]] = path
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(declared) < 100 {
		t.Fatalf("found %d rule constants, fewer than the rule set's rules: the pattern no longer finds them", len(declared))
	}
	for id, path := range declared {
		if _, ok := ruleset.Lookup(id); !ok {
			t.Errorf("%s declares rule %s, which is not in the rule set", path, id)
		}
		if _, ok := rulepages.Page(id); !ok {
			t.Errorf("%s declares rule %s, which has no page docs/rules/%s.md", path, id, id)
		}
	}
}

func TestCatalogue(t *testing.T) {
	if !slices.IsSortedFunc(ruleset.Rules, func(a, b report.Rule) int { return strings.Compare(a.ID, b.ID) }) {
		t.Error("Rules not sorted by ID")
	}
	seen := map[string]bool{}
	groups := map[ruleset.Group]int{}
	for _, r := range ruleset.Rules {
		if seen[r.ID] {
			t.Errorf("%s: twice", r.ID)
		}
		seen[r.ID] = true
		groups[ruleset.GroupOf(r.ID)]++
		if r.Severity != report.Error && r.Severity != report.Warning {
			t.Errorf("%s: severity %v", r.ID, r.Severity)
		}
		if strings.TrimSpace(r.Doc) == "" || strings.Contains(r.Doc, "\n") {
			t.Errorf("%s: Doc must be one line", r.ID)
		}
		if strings.TrimSpace(r.Why) == "" || strings.TrimSpace(r.Fix) == "" {
			t.Errorf("%s: no prose (why it matters, how to fix it)", r.ID)
		}
		// The prose goes into SARIF and JSON too, where a relative link
		// resolves against nothing.
		if m := regexp.MustCompile(`\]\((?:[^h)]|h[^t])[^)]*\)`).FindString(r.Why + r.Fix); m != "" {
			t.Errorf("%s: prose has a relative link %q; link absolutely", r.ID, m)
		}
		if len(r.Commands) == 0 {
			t.Errorf("%s: no command reports it", r.ID)
		}
		if r, ok := ruleset.Lookup(r.ID); !ok || r.ID == "" {
			t.Errorf("%s: Lookup does not find it", r.ID)
		}
	}
	for _, g := range ruleset.Groups {
		if groups[g] == 0 {
			t.Errorf("group %q has no rule", g.Title())
		}
	}
	if got, want := rulepages.IDs(), ruleset.IDs(); !slices.Equal(got, want) {
		t.Errorf("pages %v, want one per rule %v", got, want)
	}
}
