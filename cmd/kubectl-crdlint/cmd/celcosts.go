package cmd

import (
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// celCosts prints every CEL expression's estimated cost.
func (o *CheckOptions) celCosts() error {
	in, err := input.Open(o.paths, o.In, o.exclude())
	if err != nil {
		return inputError(err)
	}
	cache := crd.NewCostCache()
	var lines []lint.CELCostLine
	for _, p := range in.Files {
		f, _, err := in.Read(p)
		if err != nil {
			return inputError(err)
		}
		lines = append(lines, lint.CELCostLines(f, cache)...)
	}
	return lint.PrintCELCosts(o.Out, lines, o.Output == report.JSON)
}
