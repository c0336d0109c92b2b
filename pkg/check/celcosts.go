package check

import (
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// CELCosts estimates the cost of every CEL expression of the CRDs in the
// inputs (check --cel-costs), with one cost cache for them all: CRDs
// repeat the same types, with their rules, many times.
func CELCosts(in *input.Set) ([]lint.CELCostLine, error) {
	cache := engine.NewCostCache()
	var lines []lint.CELCostLine
	for i, p := range in.Files {
		if in.Skip[i] == source.SkipVendored {
			continue // another project's copy, as check skips it
		}
		f, _, err := in.Read(p)
		if err != nil {
			return nil, err
		}
		lines = append(lines, lint.CELCostLines(f, cache)...)
	}
	return lines, nil
}
