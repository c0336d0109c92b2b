package report

import (
	"encoding/json"
	"io"
)

// jsonOutput is the top level of the JSON contract. Keys may be added,
// never renamed or removed: scripts depend on them.
type jsonOutput struct {
	Findings []Finding `json:"findings"`
	Summary  Summary   `json:"summary"`
	// Upgrades: kubectl crdlint upgrade's per-CRD counts.
	Upgrades []UpgradeSummary `json:"upgrades,omitempty"`
}

// RenderJSON writes the findings and summary as one indented JSON object.
func RenderJSON(w io.Writer, r Result, _ Options) error {
	r = prepare(r)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// CEL messages quote "<input>"; \u003cinput\u003e helps nobody.
	enc.SetEscapeHTML(false)
	return enc.Encode(jsonOutput{Findings: r.Findings, Summary: r.Summary, Upgrades: r.Upgrades})
}
