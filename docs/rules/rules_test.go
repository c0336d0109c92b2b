package rules_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/docs/rules"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/ruleset"
)

// TestEveryRuleHasAPage: the embedded pages are the catalogue's, one each.
// (pkg/ruleset's TestRulesDoc checks their content.)
func TestEveryRuleHasAPage(t *testing.T) {
	var want []string
	for _, r := range ruleset.Rules {
		want = append(want, r.ID)
		page, ok := rules.Page(r.ID)
		if !ok {
			t.Errorf("%s: no page", r.ID)
			continue
		}
		if !strings.HasPrefix(string(page), "# "+r.ID+"\n") {
			t.Errorf("%s: page does not start with its title: %.40q", r.ID, page)
		}
	}
	if got := rules.IDs(); !slices.Equal(got, want) {
		t.Errorf("got pages %v, want one per rule %v", got, want)
	}
}

func TestPageRefusesOtherNames(t *testing.T) {
	for _, id := range []string{"", "..", "../rules", "x/../crd-group", "crd-group.md", "no-such-rule", "/crd-group"} {
		if _, ok := rules.Page(id); ok {
			t.Errorf("Page(%q): got a page, want none", id)
		}
	}
}

func ExamplePage() {
	page, ok := rules.Page("crd-scope")
	if !ok {
		fmt.Println("no page")
		return
	}
	title, _, _ := strings.Cut(string(page), "\n")
	fmt.Println(title)
	// Output: # crd-scope
}
