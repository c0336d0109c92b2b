package upgrade

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

const upgradeDoc = "../../docs/upgrade.md"

// TestRulesCatalogue: IDs unique, sorted, prefixed, each with a severity
// and a doc line; every ID documented in docs/upgrade.md's rule table with
// its severity; and every ID the package's source names is in the
// catalogue.
func TestRulesCatalogue(t *testing.T) {
	for name, rules := range map[string][]report.Rule{"Rules": Rules, "ReplayRules": ReplayRules} {
		if !slices.IsSortedFunc(rules, func(a, b report.Rule) int { return strings.Compare(a.ID, b.ID) }) {
			t.Errorf("%s is not sorted by ID", name)
		}
	}
	all := append(slices.Clone(Rules), ReplayRules...)
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
	// Every rule ID written in the package's code is in the catalogue.
	ids := regexp.MustCompile(`"(upgrade-[a-z-]+)"`)
	for _, f := range []string{"rules.go", "compare.go", "schema.go", "cel.go", "replay.go"} {
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
