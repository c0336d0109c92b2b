package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"
)

// TestRenderJSONEqualsWhole: the findings written one at a time give the
// bytes of the whole object encoded at once, with and without findings,
// suppressions, Via and upgrade summaries, and with the characters JSON
// escapes or HTML escaping would.
func TestRenderJSONEqualsWhole(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	texts := []string{"", "plain", `quote " and \ back`, "<input> & tags", "tab\there", "ünïcode ✓", "line\nbreak"}
	pick := func() string { return texts[rng.Intn(len(texts))] }
	for _, n := range []int{0, 1, 2, 50, 3000} {
		for _, upgrades := range []bool{false, true} {
			var r Result
			for i := 0; i < n; i++ {
				f := Finding{Rule: "rule-" + pick(), Severity: Severity(rng.Intn(3)), Message: pick(), Field: pick(), File: pick(), Document: rng.Intn(9), Line: rng.Intn(999), Column: rng.Intn(99), Object: ObjectRef{Kind: pick(), Name: pick()}, Via: pick()}
				if rng.Intn(4) == 0 {
					f.Suppressed = &Suppression{Kind: SuppressedInline, Reason: pick()}
				}
				r.Findings = append(r.Findings, f)
			}
			if upgrades {
				r.Upgrades = []UpgradeSummary{{CRD: "widgets.example.com", Objects: 3}}
			}
			var got bytes.Buffer
			if err := RenderJSON(&got, r, Options{}); err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			p := prepare(r)
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(jsonOutput{Findings: p.Findings, Summary: p.Summary, Upgrades: p.Upgrades}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("%d findings, upgrades %t: streamed output differs:\n%s", n, upgrades, firstDiff(got.Bytes(), want.Bytes()))
			}
		}
	}
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return fmt.Sprintf("got  %q\nwant %q", a[lo:min(len(a), i+80)], b[lo:min(len(b), i+80)])
}
