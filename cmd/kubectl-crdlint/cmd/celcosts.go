package cmd

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// celCostLine is one expression's estimate, positioned like a finding.
type celCostLine struct {
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

// celCosts prints every CEL expression's estimated cost.
func (o *CheckOptions) celCosts(ctx context.Context) error {
	in, err := input.Open(o.paths, o.In)
	if err != nil {
		return inputError(err)
	}
	cache := crd.NewCostCache()
	var lines []celCostLine
	for _, p := range in.Files {
		f, _, err := in.Read(p)
		if err != nil {
			return inputError(err)
		}
		for _, d := range f.Documents {
			if !crd.IsCRD(d) {
				continue
			}
			// Any apiextensions version the library decodes: the
			// estimates say what a v1 CRD of the same schemas would cost.
			def := crd.Decode(d.JSON)
			if def.V1 == nil {
				continue
			}
			for _, c := range crd.CELCosts(def.V1, cache) {
				pos, _ := d.Locate(c.Field)
				lines = append(lines, celCostLine{
					File: d.File, Document: d.Index, Line: pos.Line, Column: pos.Column, Field: c.Field, Object: d.Object,
					Expression: c.Expression, Version: c.Version, Cost: c.Cost, VersionTotal: c.Total,
					RuleShare: percent(c.Cost, crd.RuleCostLimit), CRDShare: percent(c.Cost, crd.CRDCostLimit),
				})
			}
		}
	}
	if o.Output == report.JSON {
		if lines == nil {
			lines = []celCostLine{}
		}
		b, err := json.MarshalIndent(map[string]any{"celCosts": lines}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(o.Out, "%s\n", b)
		return err
	}
	for _, l := range lines {
		fmt.Fprintf(o.Out, "%s:%d:%d: cost %d: %.2f%% of the per-expression budget (%d), %.2f%% of the per-CRD budget (%d; version %s total %d) [%s]\n",
			l.File, l.Line, l.Column, l.Cost, l.RuleShare, crd.RuleCostLimit, l.CRDShare, crd.CRDCostLimit, l.Version, l.VersionTotal, l.Field)
	}
	if len(lines) == 0 {
		fmt.Fprintln(o.Out, "no CEL expressions found")
	}
	return nil
}

func percent(a, b uint64) float64 { return float64(a) * 100 / float64(b) }
