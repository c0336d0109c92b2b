package review

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	baselinepkg "github.com/kubectl-crdlint/kubectl-crdlint/pkg/baseline"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// TestBaseline: the findings a baseline records are suppressed, the rest
// stay; its entries no finding matches are counted (and listed when
// asked), those of files the run did not check are not; what a comment
// or the configuration silenced is not matched; a baseline written is
// accepted at once; a missing baseline is said, an unwritable one is a
// WriteError.
func TestBaseline(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	big := report.Finding{Rule: "cr-schema", Severity: report.Error, File: a, Line: 3, Message: "too big"}
	odd := report.Finding{Rule: "crd-empty-object", Severity: report.Warning, File: a, Line: 9, Message: "empty"}
	gone := report.Finding{Rule: "cr-schema", Severity: report.Error, File: a, Line: 5, Message: "fixed since"}
	other := report.Finding{Rule: "cr-schema", Severity: report.Error, File: b, Line: 1, Message: "not checked"}
	silenced := odd
	silenced.Suppressed = &report.Suppression{Kind: report.SuppressedInline, Reason: "why"}
	recorded := filepath.Join(dir, "baseline.yaml")
	bl, err := baselinepkg.New(recorded, []report.Finding{big, odd, gone, other}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := bl.WriteFile(); err != nil {
		t.Fatal(err)
	}
	accepted := func(f report.Finding) seen {
		s := seenOf([]report.Finding{f})[0]
		s.Kind, s.Reason = report.SuppressedBaseline, "accepted in "+recorded
		return s
	}
	tests := []struct {
		name    string
		o       Options
		in      []report.Finding
		want    []seen
		stale   int
		notices string
		err     string
	}{
		{name: "none", in: []report.Finding{big}, want: seenOf([]report.Finding{big})},
		{
			name: "matched, fresh and fixed", o: Options{Baseline: recorded, ListFixed: true},
			in:      []report.Finding{big, odd, {Rule: "cr-schema", Severity: report.Error, File: a, Line: 7, Message: "new"}},
			want:    sortedSeen([]seen{accepted(big), accepted(odd), {Rule: "cr-schema", File: a, Line: 7, Severity: report.Error}}),
			stale:   1,
			notices: "baseline entry fixed: a.yaml: cr-schema: fixed since\n",
		},
		{
			name: "silenced findings are not matched", o: Options{Baseline: recorded},
			in:    []report.Finding{big, silenced},
			want:  sortedSeen([]seen{accepted(big), seenOf([]report.Finding{silenced})[0]}),
			stale: 2,
		},
		{
			name: "missing", o: Options{Baseline: filepath.Join(dir, "none.yaml")},
			in:      []report.Finding{big},
			want:    seenOf([]report.Finding{big}),
			notices: "does not exist yet",
		},
		{
			name: "written and accepted", o: Options{WriteBaseline: filepath.Join(dir, "new.yaml")},
			in:      []report.Finding{big, silenced},
			want:    sortedSeen([]seen{{Rule: "cr-schema", File: a, Line: 3, Severity: report.Error, Kind: report.SuppressedBaseline, Reason: "accepted in " + filepath.Join(dir, "new.yaml")}, seenOf([]report.Finding{silenced})[0]}),
			notices: "wrote " + filepath.Join(dir, "new.yaml") + ": 1 finding\n",
		},
		{name: "unwritable", o: Options{WriteBaseline: filepath.Join(dir, "no", "such", "dir.yaml")}, in: []report.Finding{big}, err: "write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var notices strings.Builder
			tt.o.Notices = &notices
			r := reviewer(t, "", config.Flags{}, tt.o)
			res := report.Result{Findings: slices.Clone(tt.in)}
			err := baseline{}.run(r, &res, []string{a})
			if tt.err != "" {
				var we *WriteError
				if !errors.As(err, &we) {
					t.Fatalf("got %v, want a WriteError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := seenOf(res.Findings); !slices.Equal(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			if res.Summary.StaleBaseline != tt.stale {
				t.Errorf("stale: got %d, want %d", res.Summary.StaleBaseline, tt.stale)
			}
			if !strings.Contains(notices.String(), tt.notices) || (tt.notices == "") != (notices.Len() == 0) {
				t.Errorf("notices: got %q, want %q", notices.String(), tt.notices)
			}
		})
	}
	// An unreadable baseline is an error, not a WriteError.
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("version: 99\n"), 0o644)
	res := report.Result{Findings: []report.Finding{big}}
	var we *WriteError
	if err := (baseline{}).run(reviewer(t, "", config.Flags{}, Options{Baseline: bad}), &res, []string{a}); err == nil || errors.As(err, &we) {
		t.Errorf("unreadable baseline: got %v, want an error that is no WriteError", err)
	}
}
