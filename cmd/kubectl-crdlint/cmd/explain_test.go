package cmd

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	rulepages "github.com/kubectl-crdlint/kubectl-crdlint/docs/rules"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

func TestExplainValidate(t *testing.T) {
	tests := []struct {
		name    string
		opts    ExplainOptions
		wantErr string // "" for none
	}{
		{"known rule", ExplainOptions{Output: "markdown", args: []string{"crd-group"}}, ""},
		{"case and space", ExplainOptions{Output: "text", args: []string{" CRD-Group "}}, ""},
		{"json", ExplainOptions{Output: "json", args: []string{"yaml-syntax"}}, ""},
		{"typo", ExplainOptions{Output: "markdown", args: []string{"crd-grup"}}, `unknown rule "crd-grup": did you mean crd-group?`},
		{"part of an ID", ExplainOptions{Output: "markdown", args: []string{"structural"}}, `unknown rule "structural": did you mean crd-structural?`},
		{"several", ExplainOptions{Output: "markdown", args: []string{"cr-cell"}}, `unknown rule "cr-cell": did you mean cr-cel or crd-cel?`},
		{"three at most", ExplainOptions{Output: "markdown", args: []string{"crd"}}, `unknown rule "crd": did you mean cr-crd-rejected, cr-no-crd or crd-api-approval?`},
		{"nothing close", ExplainOptions{Output: "markdown", args: []string{"zzz"}}, `unknown rule "zzz" (see 'kubectl crdlint check --list-rules')`},
		{"no rule", ExplainOptions{Output: "markdown"}, "explain needs one rule ID"},
		{"two rules", ExplainOptions{Output: "markdown", args: []string{"crd-group", "crd-scope"}}, "explain needs one rule ID"},
		{"bad output", ExplainOptions{Output: "sarif", args: []string{"crd-group"}}, `invalid output format "sarif"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("got error %v, want none", err)
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Errorf("got error %v, want one starting %q", err, tt.wantErr)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Errorf("got a multi-line error %q, want one line", err)
			}
			if _, ok := err.(*UsageError); err != nil && !ok {
				t.Errorf("got %T, want a *UsageError (exit 2)", err)
			}
		})
	}
}

// TestExplainMain runs the command line: the page on stdout for a known
// rule, one line on stderr and exit 2 for an unknown one.
func TestExplainMain(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     []string // substrings
		notStdout  []string
		stderrLine string
	}{
		{
			name: "page", args: []string{"explain", "crd-empty-object"},
			stdout: []string{
				"# crd-empty-object\n",
				"## Why it matters",
				"## How to fix it",
				"## Failing example",
				"## Passing example",
				"(https://github.com/kubectl-crdlint/kubectl-crdlint/blob/main/pkg/lint/testdata/rules/crd-empty-object/empty-template.yaml)",
				"[All rules](https://github.com/kubectl-crdlint/kubectl-crdlint/blob/main/docs/rules.md)",
			},
			notStdout: []string{"<!--", "](../"},
		},
		{
			name: "json", args: []string{"explain", "-o", "json", "--no-color", "crd-scope"},
			stdout: []string{`"id": "crd-scope"`, `"helpUri": "https://github.com/kubectl-crdlint/kubectl-crdlint/blob/main/docs/rules/crd-scope.md"`},
		},
		{name: "unknown", args: []string{"explain", "crd-scop"}, code: 2, stderrLine: `error: unknown rule "crd-scop": did you mean crd-scope?`},
		{name: "missing", args: []string{"explain"}, code: 2, stderrLine: "error: explain needs one rule ID, e.g. 'kubectl crdlint explain crd-structural' (see 'kubectl crdlint check --list-rules')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			streams, _, out, errOut := genericiooptions.NewTestIOStreams()
			if code := Main(streams, tt.args); code != tt.code {
				t.Errorf("got exit %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tt.notStdout {
				if strings.Contains(out.String(), s) {
					t.Errorf("stdout has %q:\n%s", s, out)
				}
			}
			if got := strings.TrimSuffix(errOut.String(), "\n"); got != tt.stderrLine {
				t.Errorf("got stderr %q, want %q", got, tt.stderrLine)
			}
		})
	}
}

// TestExplainEveryRule: every rule of the rule set has a page the
// command prints, and its JSON form names the rule.
func TestExplainEveryRule(t *testing.T) {
	for _, r := range allRules {
		streams, _, out, errOut := genericiooptions.NewTestIOStreams()
		if code := Main(streams, []string{"explain", r.ID}); code != 0 || !strings.HasPrefix(out.String(), "# "+r.ID+"\n") {
			t.Errorf("explain %s: exit %d, stderr %q, stdout starts %.40q", r.ID, code, errOut, out)
		}
		streams, _, out, _ = genericiooptions.NewTestIOStreams()
		if code := Main(streams, []string{"explain", "-o", "json", r.ID}); code != 0 {
			t.Errorf("explain -o json %s: exit %d", r.ID, code)
			continue
		}
		var got struct {
			Rules []struct{ ID, Severity string }
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got.Rules) != 1 || got.Rules[0].ID != r.ID || got.Rules[0].Severity != r.Severity.String() {
			t.Errorf("explain -o json %s: got %s (%v)", r.ID, out, err)
		}
	}
}

// TestListRulesEveryRule: --list-rules lists every rule of the rule set,
// in text and JSON, and each rule's helpUri (SARIF's too) is its page.
func TestListRulesEveryRule(t *testing.T) {
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	if code := Main(streams, []string{"check", "--list-rules"}); code != 0 {
		t.Fatalf("check --list-rules: exit %d, stderr %q", code, errOut)
	}
	text := out.String()
	streams, _, out, errOut = genericiooptions.NewTestIOStreams()
	if code := Main(streams, []string{"check", "--list-rules", "-o", "json"}); code != 0 {
		t.Fatalf("check --list-rules -o json: exit %d, stderr %q", code, errOut)
	}
	var got struct {
		Rules []struct {
			ID       string   `json:"id"`
			HelpURI  string   `json:"helpUri"`
			Commands []string `json:"commands"`
		} `json:"rules"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Rules) != len(allRules) {
		t.Errorf("-o json lists %d rules, want %d", len(got.Rules), len(allRules))
	}
	for i, r := range allRules {
		if !strings.Contains(text, "\n"+r.ID+" ") {
			t.Errorf("--list-rules does not list %s", r.ID)
		}
		if i >= len(got.Rules) {
			continue
		}
		j := got.Rules[i]
		if j.ID != r.ID || j.HelpURI != report.RulesDocBase+r.ID+".md" || len(j.Commands) == 0 {
			t.Errorf("-o json rule %d: got %+v, want %s with its page and commands", i, j, r.ID)
		}
		if _, ok := rulepages.Page(r.ID); !ok {
			t.Errorf("%s: helpUri %s names no page", r.ID, r.HelpURI())
		}
	}
}
