package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// testdata is absolute: most tests here run in a fixture repository.
var testdata, _ = filepath.Abs("testdata")

// fixture extracts testdata/repos/NAME.txtar into a new temporary
// directory, marks it as a repository root (a .git directory: where
// configuration discovery stops) and makes it the working directory for
// the rest of the test, as a user running kubectl crdlint at the root of
// a clone. A missing archive fails the test.
func fixture(t *testing.T, name string) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join(testdata, "repos", name+".txtar"))
	if err != nil {
		t.Fatalf("fixture repository: %v", err)
	}
	if len(ar.Files) == 0 {
		t.Fatalf("fixture repository %s holds no files", name)
	}
	dir := t.TempDir()
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	testutil.WriteFiles(t, dir, files)
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return dir
}

// runMain runs a command line in-process, as the binary would: exit
// code, stdout and stderr.
func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	code = Main(streams, args)
	return code, out.String(), errOut.String()
}

// jsonResult is what check -o json prints.
type jsonResult struct {
	Findings []report.Finding `json:"findings"`
	Summary  report.Summary   `json:"summary"`
}

// checkJSON runs check -o json with args and decodes its output; stderr
// must be empty.
func checkJSON(t *testing.T, args ...string) (int, jsonResult) {
	t.Helper()
	code, out, errOut := runMain(t, append([]string{"check", "-o", "json"}, args...)...)
	if errOut != "" {
		t.Fatalf("check %s: exit %d, stderr:\n%s", strings.Join(args, " "), code, errOut)
	}
	var res jsonResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("check %s: exit %d, output is not JSON (%v):\n%s", strings.Join(args, " "), code, err, out)
	}
	return code, res
}

// brief is a finding in one line, for comparing lists in tables: "file
// rule severity", and the kind of suppression when suppressed.
func brief(f report.Finding) string {
	s := fmt.Sprintf("%s %s %s", f.File, f.Rule, f.Severity)
	if f.Suppressed != nil {
		s += " suppressed:" + string(f.Suppressed.Kind)
	}
	return s
}

func briefs(fs []report.Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, brief(f))
	}
	return out
}
