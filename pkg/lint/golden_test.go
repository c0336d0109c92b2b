package lint

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden/* from the current output")

// TestGoldenOutputs renders the findings of every rule fixture in every
// output format and compares them with testdata/golden: line and column
// of each rule, in each format, are pinned.
func TestGoldenOutputs(t *testing.T) {
	var res report.Result
	res.Rules = Rules
	for _, path := range fixtureFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		validate := fixtureValidation(t, data)
		l := New(Options{Validate: validate, Catalog: crd.NewCatalog(validate.Refuses())})
		f := source.Parse(filepath.ToSlash(path), data)
		collect(l, f)
		fs, sum := l.File(f)
		fs = append(fs, Duplicates(l.opts.Catalog)...)
		res.Findings = append(res.Findings, fs...)
		res.Summary.Files++
		res.Summary.Add(sum)
	}
	for _, format := range report.Formats() {
		t.Run(string(format), func(t *testing.T) {
			var buf bytes.Buffer
			if err := report.Render(&buf, format, res, report.Options{SummaryLine: true, ToolVersion: "v0.0.0-test"}); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", "rules."+string(format)+".golden")
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./pkg/lint -run TestGoldenOutputs -update-golden)", err)
			}
			if got := buf.String(); got != string(want) {
				t.Errorf("%s output differs from %s:\n%s", format, golden, firstDiff(got, string(want)))
			}
		})
	}
}
