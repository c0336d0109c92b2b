package bench

import (
	"testing"
	"time"
)

// TestMedianRow: the minors scenario's alternating single runs join into
// one row of their medians, the peak of all processes included.
func TestMedianRow(t *testing.T) {
	rows := []Row{
		tree(row("x", 3*time.Second, 300, 10), 900),
		tree(row("x", 1*time.Second, 100, 10), 700),
		tree(row("x", 2*time.Second, 200, 10), 800),
	}
	for i := range rows {
		rows[i].Docs, rows[i].Invalid = 10, 4
	}
	got := medianRow(rows)
	if got.Wall != 2*time.Second || got.MaxRSSKiB != 200 || got.TreeRSSKiB != 800 || got.Runs != 3 || got.Docs != 10 || got.Invalid != 4 || got.Note != "" {
		t.Errorf("medianRow = %+v", got)
	}
	rows[1].Invalid = 5
	if got := medianRow(rows); got.Note != "runs disagree on counts" {
		t.Errorf("runs that disagree: note %q", got.Note)
	}
}
