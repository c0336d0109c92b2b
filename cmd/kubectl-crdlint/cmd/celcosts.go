package cmd

import (
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/check"
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
	lines, err := check.CELCosts(in)
	if err != nil {
		return inputError(err)
	}
	return lint.PrintCELCosts(o.Out, lines, o.Output == report.JSON)
}
