package lint

// Rule fixtures, the rule set and docs/rules.md.
//
// Every rule of the catalogue (Rules) has a directory
// testdata/rules/<rule-id>/ of YAML fixtures that trigger it, but for the
// few in noFixture, which say why. A fixture says which findings it expects
// with a trailing comment on each line where one is positioned:
//
//	  scope: Global # want: crd-scope
//	  conversion: # want: crd-conversion crd-conversion
//
// "# want:" is followed by one or more rule IDs separated by blanks; an ID
// written n times expects n findings of that rule on that line. The
// harness lints the file with New(...).File and compares the multiset of
// (line, rule) of the findings with the multiset of the annotations
// exactly: every expected finding must be there and no other finding may
// appear, on any line. Each finding's severity must also be its rule's
// default (error for unknown-field under Strict). Every
// fixture must expect at least one finding of the rule its directory names.
//
// Each fixture is linted on its own, as the command lints its inputs: its
// CRDs are collected into a fresh catalogue first, so custom resources in
// the same file are validated against them. A fixture whose first line is
// "# validate: warn" (or another --validate value) is linted with that
// field validation; the others with the command's default, Strict.
//
// The annotation is taken from the raw text of a line, so it must be a real
// YAML comment: never write it inside a block scalar (| or >), where it
// would be content. A finding positioned on such a line needs another
// trigger.
//
// A fixture named pass-*.yaml shows its rule passing instead: the fixed
// version of the directory's first failing fixture. It must not trigger
// its directory's rule; like any fixture it declares every finding it
// does have.
//
// docs/rules.md and docs/rules/<rule>.md show these fixtures: each lint
// rule's page has its directory's first failing fixture, what the linter
// reports for it, and the passing fixture. pkg/ruleset's TestRulesDoc
// generates the pages of every rule and checks they are up to date:
//
//	go test ./pkg/ruleset -run TestRulesDoc -update-rules

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

const (
	ruleFixtureDir = "testdata/rules"
	// validateMarker, followed by a directive, as a fixture's first line
	// lints it with that field validation (kubectl's --validate); a
	// fixture without one is linted with the default, Strict.
	validateMarker = "# validate: "
	// passPrefix starts the name of a fixture that shows its rule passing:
	// the fixed version of the rule's first failing fixture.
	passPrefix = "pass-"
)

var wantRE = regexp.MustCompile(`#\s*want:(.*)$`)

// ruleKey is one expected or reported finding: a line and a rule ID.
type ruleKey struct {
	line int
	rule string
}

// fixtureWants reads the "# want:" annotations of a fixture.
func fixtureWants(t *testing.T, data []byte) map[ruleKey]int {
	t.Helper()
	want := map[ruleKey]int{}
	for i, l := range strings.Split(string(data), "\n") {
		m := wantRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		ids := strings.Fields(m[1])
		if len(ids) == 0 {
			t.Errorf("line %d: empty # want: annotation", i+1)
		}
		for _, id := range ids {
			if _, ok := ruleByID[id]; !ok {
				t.Errorf("line %d: # want: names unknown rule %q", i+1, id)
			}
			want[ruleKey{i + 1, id}]++
		}
	}
	return want
}

// isPassFixture reports whether a fixture shows its rule passing.
func isPassFixture(path string) bool {
	return strings.HasPrefix(filepath.Base(path), passPrefix)
}

// fixtureFiles lists testdata/rules/*/*.yaml.
func fixtureFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(ruleFixtureDir, "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no fixtures in %s", ruleFixtureDir)
	}
	return files
}

// fixtureValidation is the field validation a fixture is linted with.
func fixtureValidation(t *testing.T, data []byte) fieldvalidation.Directive {
	t.Helper()
	first, _, _ := strings.Cut(string(data), "\n")
	v, ok := strings.CutPrefix(first, validateMarker)
	if !ok {
		return fieldvalidation.Default
	}
	d, err := fieldvalidation.Parse(v)
	if err != nil {
		t.Fatalf("%s%s: %v", validateMarker, v, err)
	}
	return d
}

// expectedSeverity is the severity a finding of rule must have.
func expectedSeverity(rule string, v fieldvalidation.Directive) report.Severity {
	if rule == RuleUnknownField && v.Refuses() {
		return report.Error
	}
	return ruleByID[rule].Severity
}

// rulesOnLine renders the rules of a line as a sorted list, "[a a b]".
func rulesOnLine(m map[ruleKey]int, line int) string {
	var ids []string
	for k, n := range m {
		if k.line == line {
			for range n {
				ids = append(ids, k.rule)
			}
		}
	}
	slices.Sort(ids)
	return "[" + strings.Join(ids, " ") + "]"
}

func TestRuleFixtures(t *testing.T) {
	for _, path := range fixtureFiles(t) {
		dirRule := filepath.Base(filepath.Dir(path))
		t.Run(dirRule+"/"+filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			validate := fixtureValidation(t, data)
			want := fixtureWants(t, data)
			expects := slices.ContainsFunc(slices.Collect(maps.Keys(want)), func(k ruleKey) bool { return k.rule == dirRule })
			switch pass := isPassFixture(path); {
			case pass && expects:
				t.Errorf("%s expects a %s finding: a passing fixture must not trigger the rule its directory names", path, dirRule)
			case !pass && !expects:
				t.Errorf("%s expects no %s finding: a fixture must trigger the rule its directory names (name it %s%s if it shows the rule passing)", path, dirRule, passPrefix, filepath.Base(path))
			}

			l := New(Options{Validate: validate, Catalog: crd.NewCatalog(validate.Refuses())})
			f := source.ParseInput(path, data) // as a command reads it
			collect(l, f)
			findings, _ := l.File(f)
			findings = append(findings, Duplicates(l.opts.Catalog)...)
			got := map[ruleKey]int{}
			messages := map[ruleKey][]string{}
			for _, fd := range findings {
				k := ruleKey{fd.Line, fd.Rule}
				got[k]++
				messages[k] = append(messages[k], fmt.Sprintf("%d:%d %s %s [%s]", fd.Line, fd.Column, fd.Severity, fd.Message, fd.Field))
				if fd.File != path {
					t.Errorf("finding names file %q, want %q: %+v", fd.File, path, fd)
				}
				if ws := expectedSeverity(fd.Rule, validate); fd.Severity != ws {
					t.Errorf("%s:%d: %s has severity %s, want %s (--validate=%s)", path, fd.Line, fd.Rule, fd.Severity, ws, validate)
				}
			}

			lines := map[int]bool{}
			for k := range want {
				lines[k.line] = true
			}
			for k := range got {
				lines[k.line] = true
			}
			for _, line := range slices.Sorted(maps.Keys(lines)) {
				g, w := rulesOnLine(got, line), rulesOnLine(want, line)
				if g == w {
					continue
				}
				var detail []string
				for k, ms := range messages {
					if k.line == line {
						detail = append(detail, ms...)
					}
				}
				slices.Sort(detail)
				t.Errorf("%s:%d: got %s, want %s%s", path, line, g, w, indentLines(detail))
			}
		})
	}
}

func indentLines(ls []string) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString("\n\t" + l)
	}
	return b.String()
}

// ruleIDRE is what a rule ID may look like: it doubles as a file name and
// a Markdown anchor.
var ruleIDRE = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

var relativeLinkRE = regexp.MustCompile(`\]\((?:[^h)]|h[^t])[^)]*\)`)

func TestRulesCatalogue(t *testing.T) {
	dirs := map[string]bool{}
	ents, err := os.ReadDir(ruleFixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			t.Errorf("%s/%s: only rule directories belong in %s", ruleFixtureDir, e.Name(), ruleFixtureDir)
			continue
		}
		files, _ := filepath.Glob(filepath.Join(ruleFixtureDir, e.Name(), "*.yaml"))
		var failing, passing int
		for _, f := range files {
			if isPassFixture(f) {
				passing++
			} else {
				failing++
			}
		}
		if failing == 0 {
			t.Errorf("%s/%s has no failing .yaml fixture", ruleFixtureDir, e.Name())
		}
		if passing != 1 {
			t.Errorf("%s/%s has %d passing fixtures (%s*.yaml), want 1: the rule's page shows it", ruleFixtureDir, e.Name(), passing, passPrefix)
		}
		dirs[e.Name()] = true
	}

	for i, r := range Rules {
		if !ruleIDRE.MatchString(r.ID) {
			t.Errorf("rule %q: ID must be lower-case words joined by '-'", r.ID)
		}
		if i > 0 && Rules[i-1].ID >= r.ID {
			t.Errorf("Rules not sorted by ID or has a duplicate: %q then %q", Rules[i-1].ID, r.ID)
		}
		if strings.TrimSpace(r.Doc) == "" || strings.Contains(r.Doc, "\n") {
			t.Errorf("rule %q: Doc must be one non-empty line, got %q", r.ID, r.Doc)
		}
		if strings.TrimSpace(r.Why) == "" || strings.TrimSpace(r.Fix) == "" {
			t.Errorf("rule %q: no prose in ruleProse (why it matters, how to fix it)", r.ID)
		}
		// The prose also goes into SARIF and JSON, where a relative link
		// resolves against nothing.
		if m := relativeLinkRE.FindString(r.Why + r.Fix); m != "" {
			t.Errorf("rule %q: prose has a relative link %q; link absolutely", r.ID, m)
		}
		if r.Severity != report.Warning && r.Severity != report.Error {
			t.Errorf("rule %q: severity %v, want warning or error", r.ID, r.Severity)
		}
		if why := r.NoExample; why != "" {
			if dirs[r.ID] {
				t.Errorf("%s/%s exists, but %s has no example (%s): remove one or the other", ruleFixtureDir, r.ID, r.ID, why)
			}
			continue
		}
		if !dirs[r.ID] {
			t.Errorf("rule %q has no fixture directory %s/%s", r.ID, ruleFixtureDir, r.ID)
		}
	}
	for d := range dirs {
		if _, ok := ruleByID[d]; !ok {
			t.Errorf("fixture directory %s/%s names no rule of the rule set", ruleFixtureDir, d)
		}
	}
	for id := range ruleProse {
		if _, ok := ruleByID[id]; !ok {
			t.Errorf("ruleProse has prose for %q, which is no rule of the rule set", id)
		}
	}
}

// firstDiff describes the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl || i >= len(g) || i >= len(w) {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, gl, wl)
		}
	}
	return "none"
}

// collect adds a parsed file's CRDs to the linter's catalogue, as the
// input package's collection does for a run.
func collect(l *Linter, f *source.File) {
	l.opts.Catalog.AddFound(crd.FindCRDs(f), crd.Input)
}
