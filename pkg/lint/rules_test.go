package lint

// Rule fixtures, the rule catalogue and docs/rules.md.
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
// default (under strict, error for unknown-field and duplicate-field). Every
// fixture must expect at least one finding of the rule its directory names.
//
// Each fixture is linted on its own, as the command lints its inputs: its
// CRDs are collected into a fresh catalogue first, so custom resources in
// the same file are validated against them. A fixture whose first line is
// exactly "# strict" is linted with Options{Strict: true}; the others with
// the default options.
//
// The annotation is taken from the raw text of a line, so it must be a real
// YAML comment: never write it inside a block scalar (| or >), where it
// would be content. A finding positioned on such a line needs another
// trigger.
//
// docs/rules.md is generated from the catalogue by renderRulesDoc;
// TestRulesDoc checks it is up to date and rewrites it with
//
//	go test ./pkg/lint -run TestRulesDoc -update-rules

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

var updateRules = flag.Bool("update-rules", false, "rewrite docs/rules.md from the rule catalogue")

const (
	ruleFixtureDir = "testdata/rules"
	rulesDocPath   = "../../docs/rules.md"
	// strictMarker, as a fixture's first line, lints it with Strict.
	strictMarker = "# strict"
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

// expectedSeverity is the severity a finding of rule must have.
func expectedSeverity(rule string, strict bool) report.Severity {
	if strict && (rule == RuleUnknownField || rule == source.RuleDuplicate) {
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
			strict := strings.HasPrefix(string(data), strictMarker+"\n")
			want := fixtureWants(t, data)
			expects := slices.ContainsFunc(slices.Collect(maps.Keys(want)), func(k ruleKey) bool { return k.rule == dirRule })
			switch pass := isPassFixture(path); {
			case pass && expects:
				t.Errorf("%s expects a %s finding: a passing fixture must not trigger the rule its directory names", path, dirRule)
			case !pass && !expects:
				t.Errorf("%s expects no %s finding: a fixture must trigger the rule its directory names (name it %s%s if it shows the rule passing)", path, dirRule, passPrefix, filepath.Base(path))
			}

			l := New(Options{Strict: strict, Catalog: crd.NewCatalog()})
			f := source.Parse(path, data)
			l.Collect(f)
			findings, _ := l.File(f)
			got := map[ruleKey]int{}
			messages := map[ruleKey][]string{}
			for _, fd := range findings {
				k := ruleKey{fd.Line, fd.Rule}
				got[k]++
				messages[k] = append(messages[k], fmt.Sprintf("%d:%d %s %s [%s]", fd.Line, fd.Column, fd.Severity, fd.Message, fd.Field))
				if fd.File != path {
					t.Errorf("finding names file %q, want %q: %+v", fd.File, path, fd)
				}
				if ws := expectedSeverity(fd.Rule, strict); fd.Severity != ws {
					t.Errorf("%s:%d: %s has severity %s, want %s (strict=%v)", path, fd.Line, fd.Rule, fd.Severity, ws, strict)
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

// noFixture are the rules no fixture can trigger, and why.
var noFixture = map[string]string{
	// crd-invalid is the classifier's fallback for a server error no other
	// rule covers. No known input should reach it (the differential tests
	// fail when one does), so a fixture for it would be a classifier bug to
	// fix, not a test.
	RuleCRDInvalid: "classifier fallback, unreachable by design",
	// The server's custom resource create path has no known panic in
	// apiextensions-apiserver v0.37.2; the rule guards against one.
	RuleCRServerPanic: "no known custom resource makes the server panic",
	// The server checks kind and apiVersion against the CRD version the
	// object was looked up by; the catalogue looks CRs up by their own
	// group, version and kind, so they always match.
	RuleCRTypeMeta: "the catalogue lookup by the object's own GVK makes it unreachable",
	// The update-* rules judge two revisions: the immutable command
	// produces them, and its scripts (cmd/kubectl-crdlint/testdata/script/
	// immutable.txtar) and pkg/immutable's tables test them.
	RuleUpdateCEL:       "produced by the immutable command, not by check",
	RuleUpdateImmutable: "produced by the immutable command, not by check",
	RuleUpdateInvalid:   "produced by the immutable command, not by check",
	RuleUpdateUnpaired:  "produced by the immutable command, not by check",
}

// ruleIDRE is what a rule ID may look like: it doubles as a Markdown anchor.
var ruleIDRE = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

func TestRulesCatalogue(t *testing.T) {
	doc, err := os.ReadFile(rulesDocPath)
	if err != nil {
		t.Fatalf("%v (generate it with go test ./pkg/lint -run TestRulesDoc -update-rules)", err)
	}
	headings := map[string]bool{}
	for _, l := range strings.Split(string(doc), "\n") {
		if id, ok := strings.CutPrefix(l, "## "); ok {
			headings[strings.TrimSpace(id)] = true
		}
	}

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
		if len(files) == 0 {
			t.Errorf("%s/%s has no .yaml fixture", ruleFixtureDir, e.Name())
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
		if r.Severity != report.Warning && r.Severity != report.Error {
			t.Errorf("rule %q: severity %v, want warning or error", r.ID, r.Severity)
		}
		if !headings[r.ID] {
			t.Errorf("rule %q has no \"## %s\" heading in docs/rules.md (regenerate it with -update-rules)", r.ID, r.ID)
		}
		if why, ok := noFixture[r.ID]; ok {
			if dirs[r.ID] {
				t.Errorf("%s/%s exists, but %s is in noFixture (%s): remove one or the other", ruleFixtureDir, r.ID, r.ID, why)
			}
			continue
		}
		if !dirs[r.ID] {
			t.Errorf("rule %q has no fixture directory %s/%s", r.ID, ruleFixtureDir, r.ID)
		}
	}
	for d := range dirs {
		if _, ok := ruleByID[d]; !ok {
			t.Errorf("fixture directory %s/%s names no rule of the catalogue", ruleFixtureDir, d)
		}
	}
	for h := range headings {
		if _, ok := ruleByID[h]; !ok {
			t.Errorf("docs/rules.md has a heading %q that is no rule of the catalogue", h)
		}
	}
}

func TestRulesDoc(t *testing.T) {
	want := renderRulesDoc(Rules)
	if *updateRules {
		if err := os.MkdirAll(filepath.Dir(rulesDocPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(rulesDocPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(rulesDocPath)
	if err != nil {
		t.Fatalf("%v (generate it with go test ./pkg/lint -run TestRulesDoc -update-rules)", err)
	}
	if string(got) != want {
		t.Errorf("docs/rules.md is out of date with the rule catalogue; regenerate it with\n\tgo test ./pkg/lint -run TestRulesDoc -update-rules\nfirst difference: %s", firstDiff(string(got), want))
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

// renderRulesDoc renders docs/rules.md from the catalogue: one "## <id>"
// section per rule, so that SARIF's helpUri (docs/rules.md#<id>) lands on
// it.
func renderRulesDoc(rules []report.Rule) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Rules\n\n")
	w("<!-- Generated from the rule catalogue in pkg/lint/rules.go by\n")
	w("     go test ./pkg/lint -run TestRulesDoc -update-rules\n")
	w("     Do not edit by hand. -->\n\n")
	w("`kubectl crdlint check` reports every finding with a stable rule ID. IDs are\n")
	w("part of the tool's interface (`--disable`, JSON, SARIF): they are never\n")
	w("renamed or reused. `kubectl crdlint check --list-rules` prints this list.\n\n")
	w("Severities:\n\n")
	w("- **error**: the API server rejects the object (`kubectl apply` fails).\n")
	w("- **warning**: the server accepts the object, but something is off.\n\n")
	w("`--disable ID` (repeatable) silences a rule. `--strict` raises `%s` and\n", RuleUnknownField)
	w("`%s` to errors, as the server rejects them under\n", source.RuleDuplicate)
	w("`fieldValidation=Strict` (`kubectl apply --validate=strict`).\n")
	w("`--require-crds` makes `%s` an error. `--fail-on` chooses the\n", RuleCRNoCRD)
	w("severity that makes the command exit 1.\n\n")
	w("Most rules link to example manifests that trigger them, under\n")
	w("[`pkg/lint/testdata/rules/`](../pkg/lint/testdata/rules/); the comment\n")
	w("`# want: <id>` marks the line each finding is reported on.\n\n")

	w("| Rule | Severity |\n")
	w("| --- | --- |\n")
	for _, r := range rules {
		w("| [`%s`](#%s) | %s |\n", r.ID, r.ID, docSeverity(r.ID, r.Severity))
	}
	for _, r := range rules {
		w("\n## %s\n\n", r.ID)
		w("Severity: %s\n\n", docSeverity(r.ID, r.Severity))
		w("%s\n", r.Doc)
		if _, none := noFixture[r.ID]; !none {
			w("\nExamples: [`pkg/lint/testdata/rules/%s/`](../pkg/lint/testdata/rules/%s/)\n", r.ID, r.ID)
		}
	}
	return b.String()
}

func docSeverity(id string, s report.Severity) string {
	switch id {
	case RuleUnknownField, source.RuleDuplicate:
		return fmt.Sprintf("**%s** (**error** with `--strict`)", s)
	case RuleCRNoCRD:
		return fmt.Sprintf("**%s** (**error** with `--require-crds`)", s)
	}
	return fmt.Sprintf("**%s**", s)
}
