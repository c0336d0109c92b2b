package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/pathtest"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// contractRuns are the reports the contract tests read: the corpus (the
// repository's, or the one CRDLINT_CORPUS names), the examples, the rule
// fixtures, and the upgrade example.
func contractRuns(t *testing.T) []struct {
	name string
	args []string
} {
	root := testutil.RepoRoot(t)
	corpus := testutil.CorpusDir(t)
	up := filepath.Join(root, "examples", "upgrade")
	return []struct {
		name string
		args []string
	}{
		{"corpus", []string{"check", filepath.Join(corpus, "crds"), filepath.Join(corpus, "crs")}},
		{"examples", []string{"check", filepath.Join(root, "examples")}},
		{"rule fixtures", []string{"check", filepath.Join(root, "pkg", "lint", "testdata", "rules")}},
		{"upgrade example", []string{"upgrade", filepath.Join(up, "widget-v1.yaml"), filepath.Join(up, "widget-v2.yaml"), filepath.Join(up, "objects.yaml")}},
	}
}

// runReport runs the command with args in format, without the cache.
func runReport(t *testing.T, format report.Format, args []string) []byte {
	t.Helper()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	full := append(append([]string{}, args...), "-o", string(format))
	if args[0] == "check" {
		full = append(full, "--no-cache")
	}
	if code := Main(streams, full); code != ExitClean && code != ExitFindings {
		t.Fatalf("%v: exit %d: %s", full, code, errOut)
	}
	return out.Bytes()
}

// TestReportContractCorpus holds every JSON report of the corpus, the
// examples and the rule fixtures to the notation of docs/rules.md ("Field
// paths"): every field, and every path a message quotes, reads with
// source.ParseField and is written back the same (canonical); and every
// crd-decode and cr-decode finding sits on the value its field names.
func TestReportContractCorpus(t *testing.T) {
	var fields, quoted, decodes int
	for _, run := range contractRuns(t) {
		t.Run(run.name, func(t *testing.T) {
			var res struct{ Findings []report.Finding }
			if err := json.Unmarshal(runReport(t, report.JSON, run.args), &res); err != nil {
				t.Fatal(err)
			}
			files := map[string]*source.File{}
			for _, f := range res.Findings {
				at := fmt.Sprintf("%s:%d:%d %s", f.File, f.Line, f.Column, f.Rule)
				if f.Field != "" {
					fields++
					checkCanonical(t, at+" field", f.Field)
				}
				for _, p := range pathtest.Paths(f.Field, f.Message) {
					quoted++
					checkCanonical(t, at+" message "+f.Message, p)
				}
				if f.Rule != lint.RuleCRDDecode && f.Rule != lint.RuleCRDecode {
					continue
				}
				decodes++
				file := files[f.File]
				if file == nil {
					data, err := os.ReadFile(f.File)
					if err != nil {
						t.Fatal(err)
					}
					file = source.Parse(f.File, data)
					files[f.File] = file
				}
				d := documentOf(file, f)
				if d == nil {
					t.Errorf("%s: no document %d for %v", at, f.Document, f.Object)
					continue
				}
				r := d.Resolve(f.Field)
				if !r.Exact || r.Value != (source.Pos{Line: f.Line, Column: f.Column}) {
					t.Errorf("%s: field %s is at its value %d:%d (exact %v), want the finding there", at, f.Field, r.Value.Line, r.Value.Column, r.Exact)
				}
			}
		})
	}
	t.Logf("%d fields, %d paths in messages, %d decoding errors checked", fields, quoted, decodes)
	if fields < 100 || quoted < 10 || decodes < 4 {
		t.Errorf("checked %d fields, %d paths in messages, %d decoding errors: want at least 100, 10, 4", fields, quoted, decodes)
	}
}

func checkCanonical(t *testing.T, what, p string) {
	t.Helper()
	segs, err := source.ParseField(p)
	if err != nil {
		t.Errorf("%s: %q is not in the notation: %v", what, p, err)
		return
	}
	if j := source.JoinPath(segs); j != p {
		t.Errorf("%s: %q is written %q in the notation", what, p, j)
	}
}

// documentOf is the document of file a finding is about.
func documentOf(file *source.File, f report.Finding) *source.Document {
	for _, d := range file.Documents {
		if d.Index == f.Document && (f.Object.Kind == "" || d.Object == f.Object) {
			return d
		}
	}
	return nil
}

// listed is a finding as an output lists it: its object (file and
// object, as the format names it), rule and severity, and whether it is
// the server's note that CEL rules were not checked (cr-cel-skipped, or
// an upgrade outcome in its words).
type listed struct {
	object, rule, severity string
	note                   bool
}

func isNote(rule, msg string) bool {
	return rule == lint.RuleCRCELSkipped || strings.Contains(msg, "some validation rules were not checked because the object was invalid")
}

var textLineRE = regexp.MustCompile(`^(.+?):\d+:\d+: (error|warning) (\S+): (.*)$`)

// subjectOf is the object a message of text, SARIF or GitHub output
// starts with ("Widget shop/w: ..."): the text before its first ": ".
func subjectOf(msg string) string {
	s, _, _ := strings.Cut(msg, ": ")
	return s
}

// TestSkippedRulesListedLastCorpus: in text, JSON and SARIF output of the
// corpus, the examples, the rule fixtures and the upgrade example, the
// server's "some validation rules were not checked because the object was
// invalid" (cr-cel-skipped, an upgrade outcome) comes after every other
// error of its object.
func TestSkippedRulesListedLastCorpus(t *testing.T) {
	parse := map[report.Format]func(t *testing.T, out []byte) []listed{
		report.Text: func(t *testing.T, out []byte) []listed {
			var l []listed
			sc := bufio.NewScanner(bytes.NewReader(out))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				if m := textLineRE.FindStringSubmatch(sc.Text()); m != nil {
					l = append(l, listed{m[1] + " " + subjectOf(m[4]), m[3], m[2], isNote(m[3], m[4])})
				}
			}
			return l
		},
		report.JSON: func(t *testing.T, out []byte) []listed {
			var res struct{ Findings []report.Finding }
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatal(err)
			}
			var l []listed
			for _, f := range res.Findings {
				l = append(l, listed{fmt.Sprintf("%s#%d %s", f.File, f.Document, f.Object), f.Rule, f.Severity.String(), isNote(f.Rule, f.Message)})
			}
			return l
		},
		report.SARIF: func(t *testing.T, out []byte) []listed {
			var log struct {
				Runs []struct {
					Results []struct {
						RuleID  string `json:"ruleId"`
						Level   string `json:"level"`
						Message struct{ Text string }
						Locs    []struct {
							Physical struct {
								Artifact struct{ URI string } `json:"artifactLocation"`
							} `json:"physicalLocation"`
						} `json:"locations"`
					}
				}
			}
			if err := json.Unmarshal(out, &log); err != nil {
				t.Fatal(err)
			}
			var l []listed
			for _, r := range log.Runs[0].Results {
				l = append(l, listed{r.Locs[0].Physical.Artifact.URI + " " + subjectOf(r.Message.Text), r.RuleID, r.Level, isNote(r.RuleID, r.Message.Text)})
			}
			return l
		},
	}
	for _, run := range contractRuns(t) {
		for _, format := range []report.Format{report.Text, report.JSON, report.SARIF} {
			t.Run(run.name+"/"+string(format), func(t *testing.T) {
				l := parse[format](t, runReport(t, format, run.args))
				skipped := 0
				for i, s := range l {
					if !s.note {
						continue
					}
					skipped++
					for _, later := range l[i+1:] {
						if later.object == s.object && later.severity == "error" && !later.note {
							t.Errorf("%s: %s (rules not checked) listed before %s of the same object", s.object, s.rule, later.rule)
						}
					}
				}
				if (run.name == "corpus" || run.name == "upgrade example") && skipped == 0 {
					t.Errorf("no note that rules were not checked in the %s: the test checks nothing", run.name)
				}
			})
		}
	}
}
