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
// A fixture named pass-*.yaml shows its rule passing instead: the fixed
// version of the directory's first failing fixture. It must not trigger
// its directory's rule; like any fixture it declares every finding it
// does have.
//
// docs/rules.md and docs/rules/<rule>.md are generated from the catalogue
// (Rules, with its prose) and from these fixtures: each page's example is
// the directory's first failing fixture, its output as the linter reports
// it today, and the passing fixture. TestRulesDoc checks they are up to
// date and rewrites them with
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

var updateRules = flag.Bool("update-rules", false, "rewrite docs/rules.md and docs/rules/*.md from the rule catalogue and fixtures")

const (
	ruleFixtureDir = "testdata/rules"
	rulesDocPath   = "../../docs/rules.md"
	rulePagesDir   = "../../docs/rules"
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

			l := New(Options{Strict: strict, Catalog: crd.NewCatalog(false)})
			f := source.Parse(path, data)
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

// noFixture are the rules no fixture can trigger, and why, in words for
// the rule's page.
var noFixture = map[string]string{
	// crd-invalid is the classifier's fallback for a server error no other
	// rule covers. No known input should reach it (the differential tests
	// fail when one does), so a fixture for it would be a classifier bug to
	// fix, not a test.
	RuleCRDInvalid: "No example: no known CRD reaches this rule, and the differential tests against the server fail when one does.",
	// The server's custom resource create path has no known panic in
	// apiextensions-apiserver v0.37.2; the rule guards against one.
	RuleCRServerPanic: "No example: no known custom resource makes the server panic; the rule guards against one.",
	// The server checks kind and apiVersion against the CRD version the
	// object was looked up by; the catalogue looks CRs up by their own
	// group, version and kind, so they always match.
	RuleCRTypeMeta: "No example: crdlint finds a custom resource's CRD by the resource's own apiVersion and kind, so they always match; the rule is kept for the server's check.",
	// The update-* rules judge two revisions: the immutable command
	// produces them, and its scripts (cmd/kubectl-crdlint/testdata/script/
	// immutable.txtar) and pkg/immutable's tables test them.
	RuleUpdateCEL:       immutableOnly,
	RuleUpdateImmutable: immutableOnly,
	RuleUpdateInvalid:   immutableOnly,
	RuleUpdateUnpaired:  immutableOnly,
}

const immutableOnly = "Reported by `kubectl crdlint immutable OLD NEW`, which judges the update of each object from OLD to NEW; see [immutability](../immutability.md) for examples."

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
	for id := range ruleProse {
		if _, ok := ruleByID[id]; !ok {
			t.Errorf("ruleProse has prose for %q, which is no rule of the catalogue", id)
		}
	}
}

// TestRulesDoc keeps docs/rules.md and docs/rules/*.md equal to what the
// catalogue and the fixtures generate, and no page without its rule.
func TestRulesDoc(t *testing.T) {
	want := map[string]string{rulesDocPath: renderRulesIndex(Rules)}
	for _, r := range Rules {
		want[filepath.Join(rulePagesDir, r.ID+".md")] = renderRulePage(t, r)
	}
	pages, err := filepath.Glob(filepath.Join(rulePagesDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if *updateRules {
		if err := os.MkdirAll(rulePagesDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, p := range pages {
			if _, ok := want[p]; !ok {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			}
		}
		for p, text := range want {
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for _, p := range pages {
		if _, ok := want[p]; !ok {
			t.Errorf("%s is the page of no rule of the catalogue; regenerate the pages with\n\tgo test ./pkg/lint -run TestRulesDoc -update-rules", p)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(want)) {
		got, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%v (generate it with go test ./pkg/lint -run TestRulesDoc -update-rules)", err)
			continue
		}
		if string(got) != want[p] {
			t.Errorf("%s is out of date with the rule catalogue or its fixtures; regenerate it with\n\tgo test ./pkg/lint -run TestRulesDoc -update-rules\nfirst difference: %s", p, firstDiff(string(got), want[p]))
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

const generatedNote = "<!-- Generated from the rule catalogue (pkg/lint/rules.go) and the rule\n" +
	"     fixtures (pkg/lint/testdata/rules/) by\n" +
	"     go test ./pkg/lint -run TestRulesDoc -update-rules\n" +
	"     Do not edit by hand. -->\n"

// renderRulesIndex renders docs/rules.md: what rule IDs and severities
// mean, the table of rules linking their pages, and where our messages
// deliberately differ from the server's text.
func renderRulesIndex(rules []report.Rule) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Rules\n\n%s\n", generatedNote)
	w("`kubectl crdlint check` reports every finding with a stable rule ID. IDs are\n")
	w("part of the tool's interface (`--disable`, JSON, SARIF): they are never\n")
	w("renamed or reused. `kubectl crdlint check --list-rules` prints this list, and\n")
	w("`kubectl crdlint explain RULE` prints a rule's page.\n\n")
	w("Severities:\n\n")
	w("- **error**: the API server rejects the object (`kubectl apply` fails).\n")
	w("- **warning**: the server accepts the object, but something is off.\n\n")
	w("`--disable ID` (repeatable) silences a rule. `--strict` raises `%s` and\n", RuleUnknownField)
	w("`%s` to errors, as the server rejects them under\n", source.RuleDuplicate)
	w("`fieldValidation=Strict` (`kubectl apply --validate=strict`).\n")
	w("`--require-crds` makes `%s` an error. `--fail-on` chooses the\n", RuleCRNoCRD)
	w("severity that makes the command exit 1.\n\n")
	w("Each rule's page says what it checks, why it matters and how to fix it, with\n")
	w("a failing and a passing example taken from the rule's test fixtures under\n")
	w("[`pkg/lint/testdata/rules/`](../pkg/lint/testdata/rules/), and what crdlint\n")
	w("reports for the failing one.\n\n")
	w("| Rule | Severity | What it checks |\n")
	w("| --- | --- | --- |\n")
	for _, r := range rules {
		w("| [`%s`](rules/%s.md) | %s | %s |\n", r.ID, r.ID, docSeverity(r.ID, r.Severity), strings.ReplaceAll(r.Doc, "|", `\|`))
	}
	w("\n%s", messageDifferences)
	return b.String()
}

// messageDifferences lists where crdlint's text deliberately differs from
// the API server's raw error text. The meaning never changes: the
// differential tests compare every finding with the server's own errors.
const messageDifferences = "## How messages differ from the server's text\n\n" +
	"Findings keep the API server's words; crdlint changes only how they are\n" +
	"presented, never what they mean (the differential tests compare every\n" +
	"finding with the server's own errors). The deliberate differences:\n\n" +
	"- **The field path is not in the message.** The server writes\n" +
	"  `spec.group: Invalid value: \"example\": should be a domain with at least one dot`;\n" +
	"  crdlint reports the message `Invalid value: \"example\": should be a domain with at least one dot`\n" +
	"  with the field `spec.group`: in brackets at the end of a text line, as `field`\n" +
	"  in JSON, as the logical location in SARIF, and as the position\n" +
	"  `file:line:column` of the field in your file.\n" +
	"- **Paths name the fields you wrote, in one notation.** The server validates\n" +
	"  the internal form of a CRD, in which a `schema`, `subresources`,\n" +
	"  `additionalPrinterColumns` or `selectableFields` that all versions share\n" +
	"  is hoisted to `spec.validation`, `spec.subresources`, ... ; crdlint\n" +
	"  reports the path in your `apiextensions.k8s.io/v1` document\n" +
	"  (`spec.versions[0].schema.openAPIV3Schema...`), in fields and inside\n" +
	"  messages, and renames the internal spellings back\n" +
	"  (`spec.conversion.webhookClientConfig` is `spec.conversion.webhook.clientConfig`,\n" +
	"  `JSONPath` is `jsonPath`, `spec.version` is `spec.versions[0].name`). Every\n" +
	"  path is written as `kubectl explain` and the server's messages write them:\n" +
	"  `spec.versions[0].schema.openAPIV3Schema.properties[spec].type`.\n" +
	"- **A finding the server reports once is printed once**, even when the\n" +
	"  hoisted field it is about appears in several versions: at the first\n" +
	"  version, with `(all N versions share this schema)` appended.\n" +
	"- **`status.storedVersions` stays the server's field.** PrepareForCreate\n" +
	"  derives it from `spec.versions`, so the finding is positioned there while\n" +
	"  its `field` is the server's `status.storedVersions`.\n" +
	"- **The object itself has no field.** The server prints an error about the\n" +
	"  whole object with the path `<nil>`; crdlint leaves the field empty (JSON,\n" +
	"  SARIF) and positions the finding at the object.\n" +
	"- **Every text line names its object** after the position:\n" +
	"  `widgets.yaml:17:3: error cr-metadata: Widget shop/Too_Big: Invalid value: ...`\n" +
	"  (kind, then namespace/name as kubectl writes them). JSON keeps it apart, in\n" +
	"  `object`, and `message` stays the server's text.\n" +
	"- **CEL rules are quoted as their text.** Where the server prints the whole\n" +
	"  rule as a Go structure (`Invalid value: {\"Rule\":\"self.replicas >= self.minReplica\",\"Message\":...}`),\n" +
	"  crdlint quotes the rule's text as written in the CRD\n" +
	"  (`Invalid value: \"self.replicas >= self.minReplica\": compilation failed: ...`);\n" +
	"  any other Go structure the server would print as a value (a whole\n" +
	"  schema, a list of versions) is left out, the field naming it. Values are\n" +
	"  printed as YAML/JSON the user wrote, never as Go structures.\n" +
	"- **Dependent errors come after what they depend on.** The server's\n" +
	"  \"some validation rules were not checked because the object was invalid\"\n" +
	"  is reported after the errors that stopped the CEL rules, under its own rule\n" +
	"  ID so that it can be silenced apart from real CEL failures.\n" +
	"- **Hints follow the server's words** where the cause is not obvious (a key\n" +
	"  that YAML 1.1 reads as a boolean, a tab in the indentation), after the\n" +
	"  server's message, never instead of it.\n" +
	"- **Generic answers say why.** Where the server or kubectl would answer\n" +
	"  only `no matches for kind` (404) or `the server could not find the\n" +
	"  requested resource`, crdlint keeps those words and adds the reason:\n" +
	"  the CRD lacks or does not serve the version, the CRD itself is rejected,\n" +
	"  or `apiextensions.k8s.io/v1beta1` is no longer served.\n" +
	"- **Layout.** Trailing white space is trimmed; the lines after the first of\n" +
	"  a multi-line message (the CEL compiler's caret diagram) are indented below\n" +
	"  it in text output.\n"

// docSeverity is a rule's severity as its pages state it, with the flags
// that change it.
func docSeverity(id string, s report.Severity) string {
	switch id {
	case RuleUnknownField, source.RuleDuplicate:
		return fmt.Sprintf("**%s** (**error** with `--strict`)", s)
	case RuleCRNoCRD:
		return fmt.Sprintf("**%s** (**error** with `--require-crds`)", s)
	}
	return fmt.Sprintf("**%s**", s)
}

// fixtureFile is a rule fixture split for its page: the leading comment
// block (what the example shows), the documents, and whether it is linted
// with --strict.
type fixtureFile struct {
	path    string
	caption string
	docs    []string
	strict  bool
	data    []byte
}

var (
	wantCommentRE = regexp.MustCompile(`#\s*want:\s*`)
	markerRE      = regexp.MustCompile(` *# <- .*`)
)

func readFixture(t *testing.T, path string) fixtureFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ff := fixtureFile{path: path, data: data, strict: strings.HasPrefix(string(data), strictMarker+"\n")}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var caption []string
	for len(lines) > 0 && strings.HasPrefix(lines[0], "#") {
		if lines[0] != strictMarker {
			caption = append(caption, strings.TrimSpace(strings.TrimPrefix(lines[0], "#")))
		}
		lines = lines[1:]
	}
	ff.caption = strings.Join(caption, " ")
	var doc []string
	for _, l := range append(lines, "---") {
		if l != "---" {
			// "# want: x" is the harness's; on the page it points at x.
			doc = append(doc, wantCommentRE.ReplaceAllString(l, "# <- "))
			continue
		}
		if len(doc) > 0 {
			ff.docs = append(ff.docs, strings.Join(doc, "\n")+"\n")
		}
		doc = nil
	}
	return ff
}

// only returns the documents of f that other does not have too, all of
// them when every one is shared.
func (f fixtureFile) only(other fixtureFile) (docs []string, left bool) {
	for _, d := range f.docs {
		if !slices.Contains(other.docs, unmarked(d, other.docs)) {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		return f.docs, false
	}
	return docs, len(docs) < len(f.docs)
}

// unmarked returns d without its "# <- " markers when that makes it equal
// to one of docs: a failing document shared with the passing fixture
// differs from it only by its markers for other rules.
func unmarked(d string, docs []string) string {
	plain := markerRE.ReplaceAllString(d, "")
	for _, o := range docs {
		if plain == markerRE.ReplaceAllString(o, "") {
			return o
		}
	}
	return d
}

// lintOutput is what `kubectl crdlint check` prints for a fixture, its
// file named by its base name.
func lintOutput(t *testing.T, f fixtureFile) string {
	t.Helper()
	l := New(Options{Strict: f.strict, Catalog: crd.NewCatalog(false)})
	// Linted as shown, with "# <- " markers: only comments change, and a
	// message that quotes the line quotes what the page shows.
	parsed := source.Parse(filepath.Base(f.path), wantCommentRE.ReplaceAll(f.data, []byte("# <- ")))
	collect(l, parsed)
	fs, _ := l.File(parsed)
	fs = append(fs, Duplicates(l.opts.Catalog)...)
	var b strings.Builder
	if err := report.Render(&b, report.Text, report.Result{Findings: fs}, report.Options{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// fixtureLink is a fixture's path relative to docs/rules/.
func fixtureLink(path string) string {
	return "../../pkg/lint/" + filepath.ToSlash(path)
}

// renderRulePage renders docs/rules/<id>.md.
func renderRulePage(t *testing.T, r report.Rule) string {
	t.Helper()
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# %s\n\n%s\n", r.ID, generatedNote)
	verdict := "the API server rejects the object"
	if r.Severity == report.Warning {
		verdict = "the API server accepts the object, but something is off"
	}
	w("Severity: %s: %s.\n\n", docSeverity(r.ID, r.Severity), verdict)
	w("%s", r.Help())
	if note, ok := noFixture[r.ID]; ok {
		w("\n## Example\n\n%s\n", note)
		w("\n[All rules](../rules.md)\n")
		return b.String()
	}
	files, err := filepath.Glob(filepath.Join(ruleFixtureDir, r.ID, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var failing []string
	var pass string
	for _, f := range files {
		if isPassFixture(f) {
			pass = f
		} else {
			failing = append(failing, f)
		}
	}
	if len(failing) == 0 || pass == "" {
		t.Errorf("%s: want a failing and a passing fixture in %s/%s", r.ID, ruleFixtureDir, r.ID)
		return b.String()
	}
	w("\n## Failing example\n\n")
	bad, good := readFixture(t, failing[0]), readFixture(t, pass)
	badDocs, badLeft := bad.only(good)
	goodDocs, goodLeft := good.only(bad)
	check := "kubectl crdlint check"
	if bad.strict {
		check += " --strict"
	}

	w("%s ([`%s`](%s))\n\n", bad.caption, filepath.Base(bad.path), fixtureLink(bad.path))
	w("```yaml\n%s```\n\n", strings.Join(badDocs, "---\n"))
	w("`%s %s` reports", check, filepath.Base(bad.path))
	if badLeft || goodLeft {
		w(" (lines are those of the whole file, which also holds the documents both examples share)")
	}
	w(":\n\n```\n%s```\n\n", lintOutput(t, bad))
	w("## Passing example\n\n")
	w("%s ([`%s`](%s))\n\n", good.caption, filepath.Base(good.path), fixtureLink(good.path))
	w("```yaml\n%s```\n", strings.Join(goodDocs, "---\n"))
	if len(failing) > 1 {
		w("\nMore failing examples:")
		for _, f := range failing[1:] {
			w(" [`%s`](%s)", filepath.Base(f), fixtureLink(f))
		}
		w(".\n")
	}
	w("\n[All rules](../rules.md)\n")
	return b.String()
}

// collect adds a parsed file's CRDs to the linter's catalogue, as the
// input package's collection does for a run.
func collect(l *Linter, f *source.File) {
	l.opts.Catalog.AddFound(crd.FindCRDs(f), crd.Input)
}
