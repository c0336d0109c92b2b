package ruleset_test

// docs/rules.md and docs/rules/<rule>.md are generated from the rule set
// (Rules, with each package's prose) and from the rules' fixtures, by
// running them:
//
//   - lint rules (CRDs, custom resources, YAML): pkg/lint/testdata/rules/
//     <rule>/, linted as pkg/lint's TestRuleFixtures lints them; the page
//     shows the first failing fixture, its findings and the pass-*.yaml
//     fixture.
//   - upgrade rules: pkg/upgrade/testdata/rules/<rule>/ (changes) and
//     pkg/upgrade/testdata/replay/<rule>/ (existing objects): OLD, NEW and
//     the objects in one file, run through `kubectl crdlint upgrade`; the
//     page shows the first failing fixture and the pass-*.yaml fixture
//     (the fix), each with what the command reports.
//   - configuration and suppression rules: testdata/rules/<rule>/ here,
//     run through `kubectl crdlint check`.
//
// A fixture that no longer produces its rule's finding fails the test, so
// a page cannot show an example that stopped working, and so does a
// passing fixture that produces it (or, for upgrade rules, any error): a
// page cannot show a fix that does not work. A rule without any
// fixture must say why in its NoExample. TestRulesDoc checks the pages are
// up to date, and rewrites them with
//
//	go test ./pkg/ruleset -run TestRulesDoc -update-rules

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

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/cmd/kubectl-crdlint/cmd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/ruleset"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

var updateRules = flag.Bool("update-rules", false, "rewrite docs/rules.md and docs/rules/*.md from the rule set and fixtures")

const (
	rulesDocPath = "../../docs/rules.md"
	rulePagesDir = "../../docs/rules"
	// The fixture directories, relative to this package.
	lintFixtures    = "../lint/testdata/rules"
	upgradeFixtures = "../upgrade/testdata/rules"
	replayFixtures  = "../upgrade/testdata/replay"
	checkFixtures   = "testdata/rules"
	// validateMarker, followed by a --validate value, as a lint fixture's
	// first line lints it with that field validation (default: Strict).
	validateMarker = "# validate: "
	passPrefix     = "pass-"
)

// TestRulesDoc keeps docs/rules.md and docs/rules/*.md equal to what the
// catalogue and the fixtures generate, and no page without its rule.
func TestRulesDoc(t *testing.T) {
	want := map[string]string{rulesDocPath: renderRulesIndex(ruleset.Rules)}
	for _, r := range ruleset.Rules {
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
			t.Errorf("%s is the page of no rule of the rule set; regenerate the pages with\n\tgo test ./pkg/ruleset -run TestRulesDoc -update-rules", p)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(want)) {
		got, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%v (generate it with go test ./pkg/ruleset -run TestRulesDoc -update-rules)", err)
			continue
		}
		if string(got) != want[p] {
			t.Errorf("%s is out of date with the rule set or its fixtures; regenerate it with\n\tgo test ./pkg/ruleset -run TestRulesDoc -update-rules\nfirst difference: %s", p, firstDiff(string(got), want[p]))
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

const generatedNote = "<!-- Generated from the rule set (pkg/ruleset) and the rules'\n" +
	"     fixtures by\n" +
	"     go test ./pkg/ruleset -run TestRulesDoc -update-rules\n" +
	"     Do not edit by hand. -->\n"

// renderRulesIndex renders docs/rules.md: what rule IDs and severities
// mean, a table of the rules of each group linking their pages, and where
// our messages deliberately differ from the server's text.
func renderRulesIndex(rules []report.Rule) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# Rules\n\n%s\n", generatedNote)
	w("Every finding of `kubectl crdlint` has a stable rule ID. IDs are part of the\n")
	w("tool's interface (`--disable`, `.crdlint.yaml`, JSON, SARIF): they are never\n")
	w("renamed or reused. `kubectl crdlint check --list-rules` prints this list\n")
	w("(`-o json` too), and `kubectl crdlint explain RULE` prints a rule's page.\n\n")
	w("Severities:\n\n")
	w("- **error**: the API server rejects the object (`kubectl apply` fails); for\n")
	w("  an upgrade, something that works today stops working or is lost.\n")
	w("- **warning**: the server accepts the object, but something is off; for an\n")
	w("  upgrade, clients may notice, but the server and the stored data do not.\n\n")
	w("`--disable ID` (repeatable) silences a rule. `--validate` says what the\n")
	w("server does with unknown fields, as kubectl's flag does: under `strict`,\n")
	w("kubectl apply's default, it refuses the object (`%s` is an error, and\n", lint.RuleUnknownField)
	w("nothing else of the object is checked, as the server's 400 ends the request);\n")
	w("under `warn` it drops the field with a warning; under `ignore` it drops it\n")
	w("silently (no `%s` nor `%s` finding). `--strict` is\n", lint.RuleUnknownField, source.RuleDuplicate)
	w("`--validate=strict`. `--require-crds` makes `%s` an error. `--fail-on` chooses the\n", lint.RuleCRNoCRD)
	w("severity that makes the command exit 1.\n\n")
	w("Each rule's page says what it checks, why it matters and how to fix it, with\n")
	w("examples taken from the rule's test fixtures and what crdlint reports for\n")
	w("them: for the linter's rules a failing and a passing example from\n")
	w("[`pkg/lint/testdata/rules/`](../pkg/lint/testdata/rules/), for the upgrade\n")
	w("rules a failing and a passing upgrade (OLD, NEW and existing objects) from\n")
	w("[`pkg/upgrade/testdata/`](../pkg/upgrade/testdata/).\n\n")
	for _, g := range ruleset.Groups {
		w("## %s\n\n", g.Title())
		w("| Rule | Severity | What it checks |\n")
		w("| --- | --- | --- |\n")
		for _, r := range rules {
			if ruleset.GroupOf(r.ID) == g {
				w("| [`%s`](rules/%s.md) | %s | %s |\n", r.ID, r.ID, docSeverity(r.ID, r.Severity), strings.ReplaceAll(r.Doc, "|", `\|`))
			}
		}
		w("\n")
	}
	w("%s", pathNotation)
	w("%s", messageDifferences)
	w("\n%s", readingDifferences)
	return b.String()
}

// readingDifferences lists where crdlint's reading of files deliberately
// differs from kubectl's (pkg/source; its TestReadsAsKubectl* and
// FuzzReadsAsKubectl compare the two on everything else).
const readingDifferences = "## How reading differs from kubectl's\n\n" +
	"crdlint reads a file as `kubectl create -f` and `kubectl apply -f` do\n" +
	"(cli-runtime's resource builder: the same text decoding, `---` splitting,\n" +
	"YAML-or-JSON decoding and flattening of lists), so that it judges the\n" +
	"objects kubectl would send: pkg/source's differential tests read the\n" +
	"corpus, hostile inputs and fuzzed ones with both and compare the objects\n" +
	"and the errors. The deliberate differences:\n\n" +
	"- **It reads on after a problem.** kubectl stops at the first document it\n" +
	"  cannot decode and reads nothing after it; crdlint reports that error at\n" +
	"  its line and column, with kubectl's words (`json: offset 193: ...` is\n" +
	"  kept, `yaml: line 3:` becomes the position; a key JSON cannot have is\n" +
	"  printed as YAML, `[x]`, not as kubectl's Go value), and reads on from the next\n" +
	"  `---`, so that one run reports every problem. In a JSON stream whose\n" +
	"  first two values decoded, nothing tells where the next value starts,\n" +
	"  and reading stops as kubectl's does. Where kubectl refuses a whole\n" +
	"  List, crdlint reports the item at fault (`list-invalid`).\n" +
	"- **What is not an object is skipped and counted.** A document without a\n" +
	"  string `apiVersion` and `kind` is no Kubernetes object to crdlint\n" +
	"  (tool configuration, data), where kubectl refuses one without `kind`\n" +
	"  (`Object 'Kind' is missing`) and, with a cluster, looks one without\n" +
	"  `apiVersion` up by its kind.\n" +
	"- **Text after a document's root is an error.** kubectl's YAML parser\n" +
	"  stops after a document's root node and drops what follows it on the\n" +
	"  same document (`{a: 1} junk`); crdlint reports it as `yaml-syntax`.\n" +
	"- **Bounds kubectl does not have.** A document whose YAML aliases would\n" +
	"  expand beyond 1,000,000 nodes or 16 MiB (`yaml-alias-budget`), or\n" +
	"  that is over 64 MiB (`document-too-large`), is refused unread, so that\n" +
	"  one hostile file cannot exhaust the machine; kubectl would expand and\n" +
	"  read it, given the memory (the server refuses an object over 3 MiB\n" +
	"  anyway, `object-over-request-limit`).\n" +
	"- **A warning where kubectl 1.33 says nothing.** A file that starts as JSON\n" +
	"  and is not JSON from some point on is read on as YAML, as kubectl 1.33\n" +
	"  and later read it, with a `json-read-as-yaml` warning, because kubectl\n" +
	"  1.32 and earlier refuse it.\n" +
	"- **Metadata kubectl cannot decode.** kubectl refuses an object whose\n" +
	"  `metadata` does not decode as ObjectMeta (`labels: {version: 1}`: a\n" +
	"  number where a string belongs) before sending it. crdlint reports it\n" +
	"  for custom resources and CRDs as the server's decoding error\n" +
	"  (`cr-decode`, `crd-decode`), not for objects of built-in kinds, which it\n" +
	"  does not validate.\n"

// pathNotation is the grammar of every finding's field and of the paths
// messages quote (source.JoinPath writes it, source.ParseField reads it).
const pathNotation = "## Field paths\n\n" +
	"Every finding's `field` (in text output the path in brackets at the end of\n" +
	"the line, in JSON `field`, in SARIF the logical location), and every path\n" +
	"its message quotes (`unknown field \"...\"`, `... in body ...`), is written in\n" +
	"one notation: the server's, made unambiguous.\n\n" +
	"```\n" +
	"path    = [ first { step } ]\n" +
	"first   = name | bracket\n" +
	"step    = \".\" name | bracket\n" +
	"bracket = \"[\" name \"]\" | \"[\" quoted \"]\"\n" +
	"name    = one or more characters, none of  . / [ ] \" ' ` ? \\\n" +
	"          white space or control characters\n" +
	"quoted  = a JSON string\n" +
	"```\n\n" +
	"- Names are joined by `.`: `spec.replicas`.\n" +
	"- List items are `[N]`: `spec.versions[0]`.\n" +
	"- A map key is in brackets where the server's `field.Path` writes one\n" +
	"  (`properties[spec]`, `metadata.annotations[owner]`), after a dot where the\n" +
	"  server's schema validation and pruning name it like a field\n" +
	"  (`spec.selector.matchLabels.app`).\n" +
	"- A name or key that is not a plain name (empty, or holding `.`, `/`, `[`,\n" +
	"  `]`, white space, a quote, `?`, `\\` or a control character) is a bracket\n" +
	"  holding a JSON string, escaped as `encoding/json` escapes it (HTML\n" +
	"  characters as they are): `metadata.labels[\"edge.harbor.dev/canary\"]`,\n" +
	"  `data[\"\"]`. A message quotes a path as the server quotes one, with Go's\n" +
	"  `%q`: `unknown field \"spec.labels[\\\"a.b\\\"]\"`.\n\n" +
	"The server's libraries write such keys raw, so that their paths can be\n" +
	"read more than one way; crdlint writes the key the document has:\n\n" +
	"| the server says | crdlint says |\n" +
	"| --- | --- |\n" +
	"| `metadata.annotations[api-approved.kubernetes.io]` (`field.Path`) | `metadata.annotations[\"api-approved.kubernetes.io\"]` |\n" +
	"| `spec.selector.matchLabels.app.kubernetes.io/name in body must be of type string` (schema validation) | `spec.selector.matchLabels[\"app.kubernetes.io/name\"] in body must be of type string` |\n" +
	"| `unknown field \"status.conditionStatus.(conditions[?type == 'Ready'])\"` (pruning) | `unknown field \"status.conditionStatus[\\\"(conditions[?type == 'Ready'])\\\"]\"` |\n" +
	"| `unknown field \"spec.versions[0].schema.openAPIV3Schema.properties.spec.foo\"` (strict decoding) | `unknown field \"spec.versions[0].schema.openAPIV3Schema.properties[spec].foo\"` |\n\n" +
	"A value the decoder cannot take (`crd-decode`, `cr-decode`) is named by the\n" +
	"Go fields that lead to it, without list indexes or map keys\n" +
	"(`Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.properties.maximum`):\n" +
	"the message keeps those words, and the finding's field is the value's path\n" +
	"(`spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[threshold].maximum`),\n" +
	"positioned at the value itself.\n\n" +
	"The notation says which key each step is, not whether a bracket indexes a\n" +
	"list or keys a map: the document says that (`kubectl crdlint` finds `[0]` in\n" +
	"either).\n\n"

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
	"  path is written as `kubectl explain` and the server's messages write them,\n" +
	"  `spec.versions[0].schema.openAPIV3Schema.properties[spec].type`, with the\n" +
	"  keys that are not plain names quoted ([Field paths](#field-paths)).\n" +
	"- **A finding the server reports once is printed once**, even when the\n" +
	"  hoisted field it is about appears in several versions: at the first\n" +
	"  version, with `(all N versions share this schema)` appended.\n" +
	"- **`status.storedVersions` stays the server's field.** PrepareForCreate\n" +
	"  derives it from `spec.versions`, so the finding is positioned there while\n" +
	"  its `field` is the server's `status.storedVersions`; the message says so,\n" +
	"  `(the server derives status.storedVersions from the version with storage: true)`,\n" +
	"  and is listed after the error about the storage version it follows from.\n" +
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
	"  ID so that it can be silenced apart from real CEL failures: it is\n" +
	"  positioned at the last of the object's other errors and listed after\n" +
	"  them in every output.\n" +
	"- **kubectl's YAML library prints a bad key as a Go value**\n" +
	"  (`invalid map key: map[interface {}]interface {}{\".Name\":interface {}(nil)}`);\n" +
	"  crdlint shows the key as YAML and says what it is\n" +
	"  (`invalid map key: {.Name: null} (a mapping: a key must be a string, a\n" +
	"  number or a boolean)`).\n" +
	"- **Hints follow the server's words** where the cause is not obvious (a key\n" +
	"  that YAML 1.1 reads as a boolean, a tab in the indentation), after the\n" +
	"  server's message, never instead of it.\n" +
	"- **Generic answers say why.** Where the server or kubectl would answer\n" +
	"  only `no matches for kind` (404) or `the server could not find the\n" +
	"  requested resource`, crdlint keeps those words and adds the reason:\n" +
	"  the CRD lacks or does not serve the version, the CRD itself is rejected\n" +
	"  (with its first error, `... would be rejected by the server: spec.scope: Unsupported value: ...`,\n" +
	"  and how many more there are), or `apiextensions.k8s.io/v1beta1` is no\n" +
	"  longer served.\n" +
	"- **A rule that \"contributed\" says how much.** When a schema's rules cost\n" +
	"  more than the per-CRD budget together, the server names the costliest\n" +
	"  ones (`contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`);\n" +
	"  crdlint appends each one's estimate in `crd-cel-cost`'s words,\n" +
	"  `(estimated cost 9840002 is 10% of the per-CRD budget 100000000)`.\n" +
	"- **Layout.** Trailing white space is trimmed; the lines after the first of\n" +
	"  a multi-line message (the CEL compiler's caret diagram) are indented below\n" +
	"  it in text output.\n"

// docSeverity is a rule's severity as its pages state it, with the flags
// that change it.
func docSeverity(id string, s report.Severity) string {
	switch id {
	case lint.RuleUnknownField:
		return fmt.Sprintf("**error** (**%s** with `--validate=warn`, none with `--validate=ignore`)", s)
	case source.RuleDuplicate:
		return fmt.Sprintf("**%s** (none with `--validate=ignore`)", s)
	case lint.RuleCRNoCRD:
		return fmt.Sprintf("**%s** (**error** with `--require-crds`)", s)
	}
	return fmt.Sprintf("**%s**", s)
}

// fixtureFile is a rule fixture split for its page: the leading comment
// block (what the example shows), the documents, and the field validation
// it is linted with.
type fixtureFile struct {
	path     string
	caption  string
	docs     []string
	validate fieldvalidation.Directive
	data     []byte
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
	ff := fixtureFile{path: path, data: data, validate: fieldvalidation.Default}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if v, ok := strings.CutPrefix(lines[0], validateMarker); ok {
		d, err := fieldvalidation.Parse(v)
		if err != nil {
			t.Fatalf("%s: %s%s: %v", path, validateMarker, v, err)
		}
		ff.validate = d
		lines = lines[1:]
	}
	var caption []string
	for len(lines) > 0 && strings.HasPrefix(lines[0], "#") {
		caption = append(caption, strings.TrimSpace(strings.TrimPrefix(lines[0], "#")))
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

// lintOutput is what `kubectl crdlint check` prints for a lint fixture,
// its file named by its base name.
func lintOutput(t *testing.T, f fixtureFile) string {
	t.Helper()
	cat := crd.NewCatalog(f.validate.Refuses())
	l := lint.New(lint.Options{Validate: f.validate, Catalog: cat})
	// Linted as shown, with "# <- " markers: only comments change, and a
	// message that quotes the line quotes what the page shows.
	parsed := source.ParseInput(filepath.Base(f.path), wantCommentRE.ReplaceAll(f.data, []byte("# <- ")))
	cat.AddFound(crd.FindCRDs(parsed), crd.Input)
	fs, _ := l.File(parsed)
	fs = append(fs, lint.Duplicates(cat)...)
	var b strings.Builder
	if err := report.Render(&b, report.Text, report.Result{Findings: fs}, report.Options{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// fixtureLink is a fixture's path (relative to this package) relative to
// docs/rules/.
func fixtureLink(path string) string {
	return filepath.ToSlash(filepath.Join("../../pkg/ruleset", path))
}

// verdicts say what a rule's severity means on its page.
func verdict(r report.Rule) string {
	upgrade := ruleset.GroupOf(r.ID) == ruleset.Upgrade
	switch {
	case r.ID == lint.RuleUnknownField:
		return "the API server refuses the object under kubectl apply's default field validation, and accepts it without the field under `warn`"
	case upgrade && r.Severity == report.Error:
		return "something that works today stops working or is lost"
	case upgrade:
		return "clients may notice, but the server and the stored data do not"
	case r.Severity == report.Error:
		return "the API server rejects the object"
	}
	return "the API server accepts the object, but something is off"
}

// renderRulePage renders docs/rules/<id>.md.
func renderRulePage(t *testing.T, r report.Rule) string {
	t.Helper()
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# %s\n\n%s\n", r.ID, generatedNote)
	w("Severity: %s: %s.\n\n", docSeverity(r.ID, r.Severity), verdict(r))
	var cmds []string
	for _, c := range r.Commands {
		cmds = append(cmds, "`kubectl crdlint "+c+"`")
	}
	w("Reported by %s.\n\n", strings.Join(cmds, ", "))
	w("%s", r.Help())
	dirs := fixtureDirs(r.ID)
	switch {
	case r.NoExample != "":
		if len(dirs) > 0 {
			t.Errorf("%s: has fixtures in %v but says it has no example (%s): remove one or the other", r.ID, dirs, r.NoExample)
		}
		w("\n## Example\n\n%s\n", r.NoExample)
	case len(dirs) != 1:
		t.Errorf("%s: want fixtures in one of %s, %s, %s, %s/%s (or a NoExample reason in the rule set), found %v",
			r.ID, lintFixtures, upgradeFixtures, replayFixtures, checkFixtures, r.ID, dirs)
	case strings.HasPrefix(dirs[0], lintFixtures):
		renderLintExamples(t, &b, r, dirs[0])
	case strings.HasPrefix(dirs[0], checkFixtures):
		renderCheckExamples(t, &b, r, dirs[0])
	default:
		renderUpgradeExample(t, &b, r, dirs[0])
	}
	w("\n[All rules](../rules.md)\n")
	return b.String()
}

// fixtureDirs lists the fixture directories of a rule.
func fixtureDirs(id string) []string {
	var out []string
	for _, d := range []string{lintFixtures, upgradeFixtures, replayFixtures, checkFixtures} {
		if fi, err := os.Stat(filepath.Join(d, id)); err == nil && fi.IsDir() {
			out = append(out, filepath.Join(d, id))
		}
	}
	return out
}

// failingAndPassing splits a fixture directory's files.
func failingAndPassing(t *testing.T, dir, pattern string) (failing []string, pass string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), passPrefix) {
			pass = f
		} else {
			failing = append(failing, f)
		}
	}
	return failing, pass
}

func moreExamples(b *strings.Builder, failing []string) {
	if len(failing) > 1 {
		b.WriteString("\nMore failing examples:")
		for _, f := range failing[1:] {
			fmt.Fprintf(b, " [`%s`](%s)", filepath.Base(f), fixtureLink(f))
		}
		b.WriteString(".\n")
	}
}

// reports fails the test unless a command's text output has a finding of
// the rule: the example must show what the page is about.
func reports(t *testing.T, id, output string) {
	t.Helper()
	if !regexp.MustCompile(`(?m) (error|warning) ` + regexp.QuoteMeta(id) + `: `).MatchString(output) {
		t.Errorf("%s: the example reports no %s finding any more:\n%s", id, id, output)
	}
}

func renderLintExamples(t *testing.T, b *strings.Builder, r report.Rule, dir string) {
	t.Helper()
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	failing, pass := failingAndPassing(t, dir, "*.yaml")
	if len(failing) == 0 || pass == "" {
		t.Errorf("%s: want a failing and a passing fixture in %s", r.ID, dir)
		return
	}
	w("\n## Failing example\n\n")
	bad, good := readFixture(t, failing[0]), readFixture(t, pass)
	badDocs, badLeft := bad.only(good)
	goodDocs, goodLeft := good.only(bad)
	check := "kubectl crdlint check"
	if bad.validate != fieldvalidation.Default {
		check += " --validate=" + bad.validate.String()
	}
	out := lintOutput(t, bad)
	reports(t, r.ID, out)
	w("%s ([`%s`](%s))\n\n", bad.caption, filepath.Base(bad.path), fixtureLink(bad.path))
	w("```yaml\n%s```\n\n", strings.Join(badDocs, "---\n"))
	w("`%s %s` reports", check, filepath.Base(bad.path))
	if badLeft || goodLeft {
		w(" (lines are those of the whole file, which also holds the documents both examples share)")
	}
	w(":\n\n```\n%s```\n\n", out)
	w("## Passing example\n\n")
	w("%s ([`%s`](%s))\n\n", good.caption, filepath.Base(good.path), fixtureLink(good.path))
	w("```yaml\n%s```\n", strings.Join(goodDocs, "---\n"))
	moreExamples(b, failing)
}

// runCommand runs kubectl crdlint with args in dir, without colour, and
// returns what it printed.
func runCommand(t *testing.T, dir string, args ...string) string {
	t.Helper()
	// The fixtures are read relative to this package's directory: come
	// back to it.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := os.Chdir(wd); err != nil {
			t.Fatal(err)
		}
	}()
	t.Setenv("NO_COLOR", "1")
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	code := cmd.Main(streams, args)
	if errOut.Len() > 0 || code > 1 {
		t.Errorf("kubectl crdlint %s: exit %d, stderr:\n%s", strings.Join(args, " "), code, errOut)
	}
	return out.String()
}

// shown is a fixture's text as its page shows it: the harness's
// "# want:" annotations point at what they expect.
func shown(data []byte) []byte {
	return wantCommentRE.ReplaceAll(data, []byte("# <- "))
}

// checkFixture is a configuration or suppression fixture: a
// .crdlint.yaml (for config-invalid, run with --config against
// testdata/widgets.yaml) or a manifest with suppression comments.
func checkOutput(t *testing.T, id, path string) (args []string, out string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	name := filepath.Base(path)
	if err := os.WriteFile(filepath.Join(tmp, name), shown(data), 0o644); err != nil {
		t.Fatal(err)
	}
	args = []string{"check", "--no-config", name}
	if id == "config-invalid" {
		widgets, err := os.ReadFile("testdata/widgets.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, "widgets.yaml"), widgets, 0o644); err != nil {
			t.Fatal(err)
		}
		args = []string{"check", "--config", name, "widgets.yaml"}
	}
	return args, runCommand(t, tmp, args...)
}

func renderCheckExamples(t *testing.T, b *strings.Builder, r report.Rule, dir string) {
	t.Helper()
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	failing, pass := failingAndPassing(t, dir, "*.yaml")
	if len(failing) == 0 || pass == "" {
		t.Errorf("%s: want a failing and a passing fixture in %s", r.ID, dir)
		return
	}
	bad, good := readFixture(t, failing[0]), readFixture(t, pass)
	args, out := checkOutput(t, r.ID, bad.path)
	reports(t, r.ID, out)
	if _, passOut := checkOutput(t, r.ID, good.path); strings.Contains(passOut, " "+r.ID+": ") {
		t.Errorf("%s: the passing example %s reports it:\n%s", r.ID, good.path, passOut)
	}
	w("\n## Failing example\n\n")
	w("%s ([`%s`](%s))\n\n", bad.caption, filepath.Base(bad.path), fixtureLink(bad.path))
	w("```yaml\n%s```\n\n", strings.Join(bad.docs, "---\n"))
	w("`kubectl crdlint %s` reports:\n\n```\n%s```\n\n", strings.Join(args, " "), out)
	w("## Passing example\n\n")
	w("%s ([`%s`](%s))\n\n", good.caption, filepath.Base(good.path), fixtureLink(good.path))
	w("```yaml\n%s```\n", strings.Join(good.docs, "---\n"))
	moreExamples(b, failing)
}

// upgradeFixture is an upgrade fixture split: its caption, OLD, NEW and
// the existing objects, as the page shows them.
type upgradeFixture struct {
	caption          string
	old, new, object string
}

var oldNewRE = regexp.MustCompile(`(?m)^# (OLD|NEW)[^\n]*\n`)

func splitUpgradeFixture(t *testing.T, path string) upgradeFixture {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	var cur []string
	for _, l := range strings.Split(strings.TrimSuffix(string(shown(data)), "\n"), "\n") {
		if l == "---" {
			docs = append(docs, strings.Join(cur, "\n")+"\n")
			cur = nil
			continue
		}
		cur = append(cur, l)
	}
	docs = append(docs, strings.Join(cur, "\n")+"\n")
	if len(docs) < 2 {
		t.Fatalf("%s: want OLD and NEW documents", path)
	}
	var f upgradeFixture
	// The caption is the comment above "# OLD".
	first := docs[0]
	if loc := oldNewRE.FindStringIndex(first); loc != nil {
		var caption []string
		for _, l := range strings.Split(first[:loc[0]], "\n") {
			if c, ok := strings.CutPrefix(l, "#"); ok {
				caption = append(caption, strings.TrimSpace(c))
			}
		}
		f.caption = strings.Join(caption, " ")
		first = first[loc[0]:]
	}
	f.old = oldNewRE.ReplaceAllString(first, "")
	f.new = oldNewRE.ReplaceAllString(docs[1], "")
	if len(docs) > 2 {
		f.object = strings.Join(docs[2:], "---\n")
	}
	return f
}

// upgradeOutput runs an upgrade fixture as its page shows it: OLD in
// old.yaml, NEW in new.yaml and the objects in objects.yaml, through
// `kubectl crdlint upgrade`. args are the command line as the page writes
// it.
func upgradeOutput(t *testing.T, f upgradeFixture) (args, out string) {
	t.Helper()
	tmp := t.TempDir()
	run := []string{"upgrade", "--no-config", "old.yaml", "new.yaml"}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("old.yaml", f.old)
	write("new.yaml", f.new)
	if f.object != "" {
		write("objects.yaml", f.object)
		run = append(run, "objects.yaml")
	}
	out = runCommand(t, tmp, run...)
	return run[0] + " " + strings.Join(run[2:], " "), out
}

// renderUpgradeFixture writes an upgrade fixture's OLD, NEW, objects and
// what the command reports for them.
func renderUpgradeFixture(b *strings.Builder, path string, f upgradeFixture, args, out string) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("%s ([`%s`](%s))\n\n", f.caption, filepath.Base(path), fixtureLink(path))
	w("OLD (`old.yaml`):\n\n```yaml\n%s```\n\n", f.old)
	w("NEW (`new.yaml`):\n\n```yaml\n%s```\n\n", f.new)
	if f.object != "" {
		w("Existing objects (`objects.yaml`):\n\n```yaml\n%s```\n\n", f.object)
	}
	w("`kubectl crdlint %s` reports:\n\n```\n%s```\n", args, out)
}

func renderUpgradeExample(t *testing.T, b *strings.Builder, r report.Rule, dir string) {
	t.Helper()
	failing, pass := failingAndPassing(t, dir, "*.yaml")
	if len(failing) == 0 || pass == "" {
		t.Errorf("%s: want a failing and a passing fixture in %s", r.ID, dir)
		return
	}
	bad, good := splitUpgradeFixture(t, failing[0]), splitUpgradeFixture(t, pass)
	args, out := upgradeOutput(t, bad)
	reports(t, r.ID, out)
	passArgs, passOut := upgradeOutput(t, good)
	// The passing example is the fix: the command lets it through.
	if strings.Contains(passOut, " "+r.ID+": ") || regexp.MustCompile(`(?m) error [a-z-]+: `).MatchString(passOut) {
		t.Errorf("%s: the passing example %s reports it or an error:\n%s", r.ID, pass, passOut)
	}
	b.WriteString("\n## Failing example\n\n")
	renderUpgradeFixture(b, failing[0], bad, args, out)
	b.WriteString("\n## Passing example\n\n")
	renderUpgradeFixture(b, pass, good, passArgs, passOut)
	moreExamples(b, failing)
}
