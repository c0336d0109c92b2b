package bench

import (
	"encoding/json"
	"fmt"
)

// Each parser reads one tool's JSON output and returns how many documents
// the tool checked and in how many it found at least one error. Warnings
// do not make a document invalid: the peers have no warnings, and the
// question is which documents the API server (or the tool's idea of it)
// would reject.

// ParseCrdlint reads `kubectl-crdlint check -o json`.
func ParseCrdlint(out []byte) (docs, invalid int, err error) {
	var r struct {
		Findings []struct {
			Severity string `json:"severity"`
			File     string `json:"file"`
			Document int    `json:"document"`
		} `json:"findings"`
		Summary struct {
			Documents int `json:"documents"`
			Skipped   int `json:"skipped"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return 0, 0, fmt.Errorf("crdlint output: %w", err)
	}
	bad := map[string]bool{}
	for _, f := range r.Findings {
		if f.Severity == "error" {
			bad[fmt.Sprintf("%s\x00%d", f.File, f.Document)] = true
		}
	}
	return r.Summary.Documents - r.Summary.Skipped, len(bad), nil
}

// ParseKubeconform reads `kubeconform -output json -summary`. Documents in
// error (no schema, unparsable) count as invalid, as kubeconform's exit
// code does.
func ParseKubeconform(out []byte) (docs, invalid int, err error) {
	var r struct {
		Summary *struct {
			Valid   int `json:"valid"`
			Invalid int `json:"invalid"`
			Errors  int `json:"errors"`
			Skipped int `json:"skipped"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return 0, 0, fmt.Errorf("kubeconform output: %w", err)
	}
	if r.Summary == nil {
		return 0, 0, fmt.Errorf("kubeconform output has no summary (run it with -summary)")
	}
	s := r.Summary
	return s.Valid + s.Invalid + s.Errors, s.Invalid + s.Errors, nil
}

// ParseKubectlValidate reads `kubectl-validate -o json`: for each file, one
// status object per document, "Success" or "Failure".
func ParseKubectlValidate(out []byte) (docs, invalid int, err error) {
	var r map[string][]struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return 0, 0, fmt.Errorf("kubectl-validate output: %w", err)
	}
	for _, statuses := range r {
		for _, s := range statuses {
			docs++
			if s.Status != "Success" {
				invalid++
			}
		}
	}
	return docs, invalid, nil
}
