package config_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// A command finds and loads the file, merges the flags the user set, and
// asks the settings about paths and findings.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, ".crdlint.yaml"), []byte(`
failOn: warning
exclude: ["charts/*/templates/**"]
rules:
  crd-empty-object: off
overrides:
  - files: ["vendor/**"]
    rules: {crd-no-pruning: off}
`), 0o644)
	catalogue := []report.Rule{
		{ID: "crd-empty-object", Severity: report.Warning},
		{ID: "crd-no-pruning", Severity: report.Warning},
		{ID: "crd-structural", Severity: report.Error},
	}

	path, _ := config.Find(dir) // "" without a file; --config names one
	cfg, problems, err := config.Load(path, catalogue)
	if err != nil {
		panic(err) // unreadable: exit 2
	}
	fmt.Println("problems in the file:", len(problems))

	flags := pflag.NewFlagSet("check", pflag.ContinueOnError)
	flags.Bool("strict", false, "")
	_ = flags.Parse([]string{"--strict"})
	fromFlags, _ := config.FlagsFrom(flags)
	s, _ := config.Resolve(cfg, fromFlags)
	fmt.Println("validate:", s.Validate, "failOn:", s.FailOn)

	fmt.Println("template excluded:", s.Excluded(filepath.Join(dir, "charts/app/templates/x.yaml"), false))
	_, off := s.RuleSeverity("crd-no-pruning", filepath.Join(dir, "vendor/a.yaml"))
	lvl, _ := s.Level("crd-empty-object", filepath.Join(dir, "crds/a.yaml"))
	fmt.Println("crd-no-pruning off in vendor:", off, "- crd-empty-object:", lvl)
	// Output:
	// problems in the file: 0
	// validate: strict failOn: warning
	// template excluded: true
	// crd-no-pruning off in vendor: true - crd-empty-object: off
}
