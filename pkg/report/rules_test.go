package report

import "testing"

func TestRulePageForTerminal(t *testing.T) {
	in := "# x\n\n<!-- note\n  more -->\n\nText [a](../rules.md) [b](../../pkg/lint/testdata/rules/x/a.yaml) [c](https://example.com/).\n"
	want := "# x\n\nText [a](https://github.com/kubectl-crdlint/kubectl-crdlint/blob/main/docs/rules.md) [b](https://github.com/kubectl-crdlint/kubectl-crdlint/blob/main/pkg/lint/testdata/rules/x/a.yaml) [c](https://example.com/).\n"
	if got := RulePageForTerminal(in); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if got := RulePageForTerminal("unterminated <!-- comment"); got != "unterminated <!-- comment" {
		t.Errorf("got %q, want the text unchanged", got)
	}
}
