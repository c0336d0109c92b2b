package lint

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// CELCostLine is one expression's estimate, positioned like a finding
// (`check --cel-costs`).
type CELCostLine struct {
	File       string           `json:"file"`
	Document   int              `json:"document"`
	Line       int              `json:"line"`
	Column     int              `json:"column"`
	Field      string           `json:"field"`
	Object     report.ObjectRef `json:"object"`
	Expression string           `json:"expression"`
	Version    string           `json:"version"`
	Cost       uint64           `json:"cost"`
	// RuleShare and CRDShare are percentages of the per-expression and
	// per-CRD budgets (the CRD share counts this expression alone).
	RuleShare    float64 `json:"ruleBudgetPercent"`
	CRDShare     float64 `json:"crdBudgetPercent"`
	VersionTotal uint64  `json:"versionTotal"`
}

// CELCostLines estimates every CEL expression of a file's CRDs with the
// server's estimator, sharing cache's compilations.
func CELCostLines(f *source.File, cache *engine.CostCache) []CELCostLine {
	var lines []CELCostLine
	for _, d := range f.Documents {
		if !crd.IsCRD(d) {
			continue
		}
		// Any apiextensions version the library decodes: the estimates
		// say what a v1 CRD of the same schemas would cost.
		obj := crd.Decode(d.JSON).Object()
		if obj == nil {
			continue
		}
		for _, c := range engine.CELCosts(obj, cache) {
			r := d.Resolve(c.Field)
			lines = append(lines, CELCostLine{
				File: d.File, Document: d.Index, Line: r.At.Line, Column: r.At.Column, Field: r.Field(), Object: d.Object,
				Expression: c.Expression, Version: c.Version, Cost: c.Cost, VersionTotal: c.Total,
				RuleShare: percent(c.Cost, engine.RuleCostLimit), CRDShare: percent(c.Cost, engine.CRDCostLimit),
			})
		}
	}
	return lines
}

func percent(a, b uint64) float64 { return float64(a) * 100 / float64(b) }

// PrintCELCosts prints the estimates, one line each, or as JSON.
func PrintCELCosts(w io.Writer, lines []CELCostLine, asJSON bool) error {
	if asJSON {
		if lines == nil {
			lines = []CELCostLine{}
		}
		b, err := json.MarshalIndent(map[string]any{"celCosts": lines}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	for _, l := range lines {
		if _, err := fmt.Fprintf(w, "%s:%d:%d: cost %d: %.2f%% of the per-expression budget (%d), %.2f%% of the per-CRD budget (%d; version %s total %d) [%s]\n",
			l.File, l.Line, l.Column, l.Cost, l.RuleShare, engine.RuleCostLimit, l.CRDShare, engine.CRDCostLimit, l.Version, l.VersionTotal, l.Field); err != nil {
			return err
		}
	}
	if len(lines) == 0 {
		_, err := fmt.Fprintln(w, "no CEL expressions found")
		return err
	}
	return nil
}
