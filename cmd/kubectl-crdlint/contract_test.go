package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/cmd/kubectl-crdlint/cmd"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

var (
	// oneNotation is a field path as the server and kubectl explain write
	// it: names joined by dots, map keys and list indexes in brackets.
	oneNotation = regexp.MustCompile(`^$|^[^.\[\]]+(\.[^.\[\]]+|\[[^\]]*\])*$`)
	// dottedSchemaKey is a schema's property written the strict decoder's
	// way (properties.spec) instead of the server's (properties[spec]).
	dottedSchemaKey = regexp.MustCompile(`openAPIV3Schema.*\.(properties|patternProperties|definitions|dependencies)\.`)
	// structDump is a Go struct printed as a value (the server's internal
	// types marshalled with their Go field names).
	structDump = regexp.MustCompile(`\{"[A-Z][A-Za-z]*":`)
)

// TestFindingContract runs check over the test corpus and the examples
// and holds every finding to what a script may rely on: no <nil>, no Go
// struct dump, every field in one notation, no finding twice, and every
// text line naming its object.
func TestFindingContract(t *testing.T) {
	corpus := testutil.CorpusDir(t)
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"check", "--missing-crds", "warn", corpus, examples}

	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	if code := cmd.Main(streams, append(args, "-o", "json")); code != 1 {
		t.Fatalf("exit %d, want 1 (the corpus has invalid examples); stderr %s", code, errOut)
	}
	var res struct{ Findings []report.Finding }
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	// Not counting the corpus's clusterctl templates, skipped as
	// substitution templates.
	if len(res.Findings) < testutil.AtLeast(t, 800, 250) {
		t.Fatalf("only %d findings: is the corpus there?", len(res.Findings))
	}
	seen := map[string]bool{}
	for _, f := range res.Findings {
		where := fmt.Sprintf("%s:%d:%d %s", f.File, f.Line, f.Column, f.Rule)
		if strings.Contains(f.Message, "<nil>") || strings.Contains(f.Field, "<nil>") {
			t.Errorf("%s: <nil> in %q [%s]", where, f.Message, f.Field)
		}
		if structDump.MatchString(f.Message) {
			t.Errorf("%s: a Go struct dump in %q", where, f.Message)
		}
		if !oneNotation.MatchString(f.Field) || dottedSchemaKey.MatchString(f.Field) {
			t.Errorf("%s: field %q is not in the one notation", where, f.Field)
		}
		if f.Rule == "unknown-field" || f.Rule == "duplicate-field" {
			if dottedSchemaKey.MatchString(f.Message) {
				t.Errorf("%s: message %q names the field in another notation", where, f.Message)
			}
		}
		key := fmt.Sprintf("%s|%d|%d|%d|%s|%s|%s", f.File, f.Document, f.Line, f.Column, f.Rule, f.Field, f.Message)
		if seen[key] {
			t.Errorf("%s: printed twice: %s", where, f.Message)
		}
		seen[key] = true
	}

	streams, _, out, _ = genericiooptions.NewTestIOStreams()
	cmd.Main(streams, append(args, "--no-color"))
	lines := 0
	for _, line := range strings.Split(out.String(), "\n") {
		m := regexp.MustCompile(`^\S+:\d+:\d+: (error|warning) [a-z0-9-]+: (.*)$`).FindStringSubmatch(line)
		if m == nil {
			continue
		}
		lines++
		if !regexp.MustCompile(`^[A-Z][A-Za-z0-9]*[ :]`).MatchString(m[2]) && !strings.HasPrefix(m[2], "(") {
			t.Errorf("text line names no object: %s", line)
		}
	}
	if lines < len(res.Findings)/2 {
		t.Fatalf("only %d text lines for %d findings", lines, len(res.Findings))
	}
	t.Logf("%d findings, %d text lines: one notation, no <nil>, no struct dump, none twice", len(res.Findings), lines)
}
