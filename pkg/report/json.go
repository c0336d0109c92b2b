package report

import (
	"bufio"
	"bytes"
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
	// Skews: the objects some Kubernetes minors refuse and others accept.
	Skews []Skew `json:"kubernetesVersionSkews,omitempty"`
}

// RenderJSON writes the findings and summary as one indented JSON object.
// The findings are written one at a time: a run over ten thousand
// documents has megabytes of them, which encoding the whole object at
// once copies over and over as its buffer grows, and again to indent it.
func RenderJSON(w io.Writer, r Result, _ Options) error {
	r = prepare(r)
	// The object without its findings, whose first key is "findings":
	// they go between its "[" and "]".
	var skeleton bytes.Buffer
	if err := encodeIndented(&skeleton, "", jsonOutput{Findings: []Finding{}, Summary: r.Summary, Upgrades: r.Upgrades, Skews: r.Skews}); err != nil {
		return err
	}
	head, tail, ok := bytes.Cut(skeleton.Bytes(), []byte(`"findings": []`))
	if !ok || len(r.Findings) == 0 {
		_, err := w.Write(skeleton.Bytes())
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head)
	bw.WriteString(`"findings": [` + "\n")
	var one bytes.Buffer
	for i := range r.Findings {
		one.Reset()
		if err := encodeIndented(&one, "    ", &r.Findings[i]); err != nil {
			return err
		}
		bw.WriteString("    ")
		bw.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n")))
		if i < len(r.Findings)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("  ]")
	bw.Write(tail)
	return bw.Flush()
}

// encodeIndented writes v as RenderJSON's encoder would at a depth whose
// lines start with prefix.
func encodeIndented(w io.Writer, prefix string, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent(prefix, "  ")
	// CEL messages quote "<input>"; \u003cinput\u003e helps nobody.
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
