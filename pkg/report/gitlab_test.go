package report

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

func loadGitLabSchema(t *testing.T) *spec.Schema {
	t.Helper()
	data, err := os.ReadFile("testdata/schema/gitlab-codeclimate.json")
	if err != nil {
		t.Fatal(err)
	}
	var s spec.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("gitlab-codeclimate.json: %v", err)
	}
	return &s
}

// gitlabProblems checks a report as GitLab reads it: a JSON array whose
// every entry passes GitLab's schema, plus what GitLab's documentation
// asks beyond the schema.
func gitlabProblems(t *testing.T, s *spec.Schema, data []byte) []string {
	t.Helper()
	var entries []any
	if err := json.Unmarshal(data, &entries); err != nil {
		return []string{"not a JSON array: " + err.Error()}
	}
	var problems []string
	fingerprints := map[string]bool{}
	for i, e := range entries {
		if err := validate.AgainstSchema(s, e, strfmt.Default); err != nil {
			problems = append(problems, "entry "+strconv.Itoa(i)+": "+err.Error())
			continue
		}
		m, _ := e.(map[string]any)
		switch m["severity"] {
		case "info", "minor", "major", "critical", "blocker":
		default:
			problems = append(problems, "entry "+strconv.Itoa(i)+": severity not one of info, minor, major, critical, blocker")
		}
		if name, _ := m["check_name"].(string); name == "" {
			problems = append(problems, "entry "+strconv.Itoa(i)+": no check_name")
		}
		fp, _ := m["fingerprint"].(string)
		if fingerprints[fp] {
			problems = append(problems, "entry "+strconv.Itoa(i)+": repeated fingerprint (GitLab would keep only the last)")
		}
		fingerprints[fp] = true
		loc, _ := m["location"].(map[string]any)
		path, _ := loc["path"].(string)
		if path == "" || strings.HasPrefix(path, "./") || strings.Contains(path, `\`) {
			problems = append(problems, "entry "+strconv.Itoa(i)+": location.path "+path+" is not a repository path")
		}
		lines, _ := loc["lines"].(map[string]any)
		if begin, _ := lines["begin"].(float64); begin < 1 {
			problems = append(problems, "entry "+strconv.Itoa(i)+": lines.begin below 1")
		}
	}
	return problems
}

func TestGitLabSchema(t *testing.T) {
	s := loadGitLabSchema(t)
	tests := []struct {
		name string
		r    Result
	}{
		{"fixture", fixture()},
		{"empty", empty()},
		{"identical findings", Result{Findings: []Finding{
			{Rule: "r", Severity: Error, Message: "m", File: "a.yaml", Line: 1},
			{Rule: "r", Severity: Error, Message: "m", File: "a.yaml", Line: 2},
			{Rule: "r", Severity: Error, Message: "m", File: "a.yaml", Line: 3},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := render(t, GitLab, tt.r, Options{})
			if p := gitlabProblems(t, s, out); len(p) > 0 {
				t.Errorf("report breaks GitLab's rules:\n%s\n%s", strings.Join(p, "\n"), out)
			}
		})
	}
}

// TestGitLabSchemaRejects shows the check can fail: each entry breaks one
// rule.
func TestGitLabSchemaRejects(t *testing.T) {
	s := loadGitLabSchema(t)
	good := `{"description":"d","check_name":"c","fingerprint":"f","severity":"major","location":{"path":"a.yaml","lines":{"begin":1}}}`
	tests := []struct{ name, report string }{
		{"not an array", good},
		{"no fingerprint", `[{"description":"d","check_name":"c","severity":"major","location":{"path":"a.yaml","lines":{"begin":1}}}]`},
		{"no location", `[{"description":"d","check_name":"c","fingerprint":"f","severity":"major"}]`},
		{"begin not an integer", `[{"description":"d","check_name":"c","fingerprint":"f","severity":"major","location":{"path":"a.yaml","lines":{"begin":"1"}}}]`},
		{"description not a string", `[{"description":1,"check_name":"c","fingerprint":"f","severity":"major","location":{"path":"a.yaml","lines":{"begin":1}}}]`},
		{"unknown severity", `[{"description":"d","check_name":"c","fingerprint":"f","severity":"error","location":{"path":"a.yaml","lines":{"begin":1}}}]`},
		{"repeated fingerprint", "[" + good + "," + good + "]"},
		{"line 0", `[{"description":"d","check_name":"c","fingerprint":"f","severity":"major","location":{"path":"a.yaml","lines":{"begin":0}}}]`},
		{"dot path", `[{"description":"d","check_name":"c","fingerprint":"f","severity":"major","location":{"path":"./a.yaml","lines":{"begin":1}}}]`},
	}
	if p := gitlabProblems(t, s, []byte("["+good+"]")); len(p) > 0 {
		t.Fatalf("the good entry fails: %v", p)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p := gitlabProblems(t, s, []byte(tt.report)); len(p) == 0 {
				t.Errorf("got no problem, want one")
			}
		})
	}
}

func TestGitLabLeavesOutSuppressed(t *testing.T) {
	var entries []gitlabIssue
	if err := json.Unmarshal(render(t, GitLab, fixture(), Options{}), &entries); err != nil {
		t.Fatal(err)
	}
	var want int
	for _, f := range fixture().Findings {
		if f.Suppressed == nil {
			want++
		}
	}
	if len(entries) != want {
		t.Errorf("got %d entries, want %d (the findings that are not suppressed)", len(entries), want)
	}
}
