package action

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// GitHub's rule for input, output and step ids.
	idPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)
	// owner/repo[/path]@ref: a remote action pinned to a ref.
	usesPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[A-Za-z0-9_./-]+)?@[A-Za-z0-9_.-]+$`)
	// The branding colours GitHub accepts.
	brandingColors = map[string]bool{"white": true, "black": true, "yellow": true, "blue": true, "green": true, "orange": true, "red": true, "purple": true, "gray-dark": true}
	// The context values the action may read (and runner_test.go models).
	contextValues = map[string]bool{"github.action_path": true, "github.action_ref": true, "github.workspace": true, "runner.temp": true, "runner.os": true, "runner.arch": true}
	// Outputs of the actions the steps use, from their action.yml.
	usesOutputs = map[string][]string{
		"actions/cache/restore": {"cache-hit", "cache-primary-key", "cache-matched-key"},
		"actions/cache/save":    {},
		"actions/setup-go":      {"go-version", "cache-hit"},
	}
)

// TestActionMetadata checks action.yml for what GitHub requires of a
// composite action, and for what would only show as a broken run: an
// expression reading an undeclared input or a step that does not exist (or
// has not run yet), an input spliced into a script.
func TestActionMetadata(t *testing.T) {
	a := readAction(t)
	if a.Name == "" || a.Description == "" {
		t.Errorf("name %q, description %q: GitHub requires both", a.Name, a.Description)
	}
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", a.Runs.Using)
	}
	if len(a.Runs.Steps) == 0 {
		t.Errorf("runs.steps is empty")
	}
	if b := a.Branding; b != nil && (b.Icon == "" || !brandingColors[b.Color]) {
		t.Errorf("branding %+v: icon must be set and color one of GitHub's", *b)
	}
	for _, name := range sortedKeys(a.Inputs) {
		in := a.Inputs[name]
		if !idPattern.MatchString(name) {
			t.Errorf("input %q: not a valid id", name)
		}
		if strings.TrimSpace(in.Description) == "" {
			t.Errorf("input %s: no description", name)
		}
		if in.Required && in.Default != nil {
			t.Errorf("input %s: required with a default: the default never applies", name)
		}
	}

	// check validates every expression in s, read by the step at index at
	// (len(steps) for the action's outputs).
	check := func(where, s string, at int) {
		exprs, err := templates(s)
		if err != nil {
			t.Errorf("%s: %v", where, err)
		}
		for _, e := range exprs {
			checkExpression(t, a, where, e, at)
		}
	}

	ids := map[string]bool{}
	for i, s := range a.Runs.Steps {
		where := "step " + s.label(i)
		if s.ID != "" {
			if !idPattern.MatchString(s.ID) {
				t.Errorf("%s: id is not a valid id", where)
			}
			if ids[s.ID] {
				t.Errorf("%s: id used twice", where)
			}
			ids[s.ID] = true
		}
		switch {
		case (s.Run == "") == (s.Uses == ""):
			t.Errorf("%s: a step has either run or uses", where)
		case s.Run != "":
			if s.Shell == "" {
				t.Errorf("%s: a composite run step needs shell", where)
			}
			if len(s.With) > 0 {
				t.Errorf("%s: with belongs to uses steps", where)
			}
			// Inputs reach scripts through env only: an expression in the
			// script's text is script injection waiting for a path with a
			// quote in it.
			if strings.Contains(s.Run, "${{") {
				t.Errorf("%s: run contains ${{ }}; pass values through env", where)
			}
		case s.Uses != "":
			if !usesPattern.MatchString(s.Uses) {
				t.Errorf("%s: uses %q is not owner/repo@ref", where, s.Uses)
			}
			if s.Shell != "" || len(s.Env) > 0 || s.WorkingDirectory != "" {
				t.Errorf("%s: shell, env and working-directory belong to run steps", where)
			}
		}
		if s.If != "" {
			if strings.Contains(s.If, "${{") {
				check(where+" if", s.If, i)
			} else {
				checkExpression(t, a, where+" if", s.If, i)
			}
		}
		for _, k := range sortedKeys(s.With) {
			check(where+" with."+k, s.With[k], i)
		}
		for _, k := range sortedKeys(s.Env) {
			check(where+" env."+k, s.Env[k], i)
		}
		check(where+" working-directory", s.WorkingDirectory, i)
	}

	if len(a.Outputs) == 0 {
		t.Errorf("no outputs")
	}
	for _, name := range sortedKeys(a.Outputs) {
		o := a.Outputs[name]
		if !idPattern.MatchString(name) {
			t.Errorf("output %q: not a valid id", name)
		}
		if strings.TrimSpace(o.Description) == "" {
			t.Errorf("output %s: no description", name)
		}
		exprs, _ := templates(o.Value)
		if len(exprs) != 1 || !strings.HasPrefix(exprs[0], "steps.") {
			t.Errorf("output %s: value %q: a composite output is ${{ steps.ID.outputs.NAME }}", name, o.Value)
		}
		check("output "+name, o.Value, len(a.Runs.Steps))
	}

	// Every script the steps call exists and is a file the runner can read.
	for i, s := range a.Runs.Steps {
		for _, m := range regexp.MustCompile(`\$GITHUB_ACTION_PATH/([^"' ]+)`).FindAllStringSubmatch(s.Run, -1) {
			if _, err := os.Stat(filepath.Join(repoRoot, m[1])); err != nil {
				t.Errorf("step %s: %v", s.label(i), err)
			}
		}
	}
}

// checkExpression checks what one expression reads.
func checkExpression(t *testing.T, a *actionFile, where, expr string, at int) {
	t.Helper()
	refs, err := references(expr)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	for _, ref := range refs {
		parts := strings.Split(ref, ".")
		switch {
		case parts[0] == "inputs":
			if _, ok := a.Inputs[strings.Join(parts[1:], ".")]; len(parts) != 2 || !ok {
				t.Errorf("%s: %s is not a declared input", where, ref)
			}
		case parts[0] == "steps":
			if len(parts) != 4 || parts[2] != "outputs" {
				t.Errorf("%s: %s: only steps.ID.outputs.NAME is used", where, ref)
				continue
			}
			checkStepOutput(t, a, where, parts[1], parts[3], at)
		case !contextValues[ref]:
			t.Errorf("%s: %s is not a context value the action may read", where, ref)
		}
	}
}

// checkStepOutput checks that step id runs before index at and, for a uses
// step, that the action it uses has the output. What a run step's script
// writes is checked by running it (TestActionInstall).
func checkStepOutput(t *testing.T, a *actionFile, where, id, output string, at int) {
	t.Helper()
	for i, s := range a.Runs.Steps {
		if s.ID != id {
			continue
		}
		if i >= at {
			t.Errorf("%s: reads steps.%s, which runs later", where, id)
		}
		if s.Uses != "" {
			name, _, _ := strings.Cut(s.Uses, "@")
			outs, known := usesOutputs[name]
			if !known {
				t.Errorf("%s: outputs of %s are not known to this test", where, name)
			}
			found := false
			for _, o := range outs {
				found = found || o == output
			}
			if known && !found {
				t.Errorf("%s: %s has no output %s", where, name, output)
			}
		}
		return
	}
	t.Errorf("%s: no step has id %s", where, id)
}

// TestExpressions checks the stand-in evaluator itself on the forms the
// action uses, so that a wrong verdict here cannot hide a wrong if: there.
func TestExpressions(t *testing.T) {
	c := &exprContext{
		inputs: map[string]string{"cache": "true", "empty": ""},
		steps:  map[string]map[string]string{"cache": {"cache-hit": "true"}, "install": {"built": "false"}},
		github: map[string]string{"action_path": "/a"},
		runner: map[string]string{},
	}
	tests := []struct {
		expr string
		want bool
	}{
		{"inputs.cache == 'true'", true},
		{"inputs.cache == 'TRUE'", true}, // GitHub compares strings case-insensitively
		{"inputs.cache != 'true'", false},
		{"steps.cache.outputs.cache-hit != 'true'", false},
		{"steps.nope.outputs.x != 'true'", true}, // a step that did not run reads as ""
		{"inputs.cache == 'true' && steps.install.outputs.built == 'true'", false},
		{"inputs.empty || inputs.cache", true},
		{"!(inputs.cache == 'true')", false},
		{"inputs.empty", false},
		{"'it''s' == 'IT''S'", true},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			v, err := c.eval(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			if got := v.truthy(); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	// Status functions, after a step failed and before.
	for _, failed := range []bool{false, true} {
		c.failed = failed
		for expr, want := range map[string]bool{
			"always()":                            true,
			"success()":                           !failed,
			"failure()":                           failed,
			"!cancelled()":                        true,
			"!cancelled() && inputs.empty":        false,
			"failure() && inputs.cache == 'true'": failed,
		} {
			v, err := c.eval(expr)
			if err != nil || v.truthy() != want {
				t.Errorf("after a failure %v: %s = %v (%v), want %v", failed, expr, v, err, want)
			}
			if !hasStatusFunction(expr) {
				t.Errorf("%s: no status function found", expr)
			}
		}
	}
	c.failed = false
	if hasStatusFunction("inputs.cache == 'always()'") || hasStatusFunction("inputs.cache") {
		t.Errorf("a status function found where there is none")
	}
	for _, bad := range []string{"inputs.nope == 'x'", "secrets.token", "inputs.cache ==", "fromJSON(inputs.cache)", "always(inputs.cache)", "always("} {
		if _, err := c.eval(bad); err == nil {
			t.Errorf("%s: no error; the stand-in must refuse what it does not model", bad)
		}
	}
	got, err := c.expand("${{ github.action_path }}/go.mod")
	if err != nil || got != "/a/go.mod" {
		t.Errorf("expand: got %q, %v; want /a/go.mod", got, err)
	}
}
