package upgrade

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/compare"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/upgrade/replay"
)

const upgradeDoc = "../../docs/upgrade.md"

// TestRules: in each list IDs unique, sorted, prefixed, each with a
// severity, a doc line and prose; every ID documented in docs/upgrade.md's
// rule table with its severity; and every ID the packages' source names
// is in Rules.
func TestRules(t *testing.T) {
	for name, rules := range map[string][]report.Rule{"Rules": Rules, "compare.Rules": compare.Rules, "replay.Rules": replay.Rules} {
		if !slices.IsSortedFunc(rules, func(a, b report.Rule) int { return strings.Compare(a.ID, b.ID) }) {
			t.Errorf("%s is not sorted by ID", name)
		}
	}
	if got, want := len(Rules), len(compare.Rules)+len(replay.Rules)+2; got != want {
		t.Errorf("%d rules, want %d: the comparison's, the replay's, %s and %s", got, want, RuleCRDUnpaired, RuleOldV1beta1)
	}
	all := Rules
	seen := map[string]bool{}
	for _, r := range all {
		if seen[r.ID] {
			t.Errorf("%s: duplicate", r.ID)
		}
		seen[r.ID] = true
		if !strings.HasPrefix(r.ID, "upgrade-") {
			t.Errorf("%s: no upgrade- prefix", r.ID)
		}
		if r.Severity != report.Error && r.Severity != report.Warning {
			t.Errorf("%s: severity %v", r.ID, r.Severity)
		}
		if !strings.HasPrefix(r.Doc, "upgrade: ") || strings.Contains(r.Doc, "\n") {
			t.Errorf("%s: doc must be one line starting with \"upgrade: \"", r.ID)
		}
		if r.Why == "" || r.Fix == "" {
			t.Errorf("%s: no Why or Fix in prose", r.ID)
		}
	}
	doc, err := os.ReadFile(upgradeDoc)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(r.ID) + "` \\| " + r.Severity.String() + " \\|")
		if !row.Match(doc) {
			t.Errorf("%s: no row \"| `%s` | %s |\" in %s", r.ID, r.ID, r.Severity, upgradeDoc)
		}
	}
	// Every rule ID written in the packages' code is in Rules.
	ids := regexp.MustCompile(`"(upgrade-[a-z-]+)"`)
	for _, f := range []string{"prose.go", "pairs.go", "compare/rules.go", "compare/compare.go", "compare/schema.go", "compare/cel.go", "replay/replay.go"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ids.FindAllStringSubmatch(string(src), -1) {
			if !seen[m[1]] {
				t.Errorf("%s names %s, which is not in Rules", f, m[1])
			}
		}
	}
}
