package review

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/version"
	baselinepkg "github.com/kubectl-crdlint/kubectl-crdlint/pkg/baseline"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// baseline applies the Baseline file: the findings it records are
// suppressed (kind "baseline"), and its entries that no finding matches
// any more are counted as fixed (Summary.StaleBaseline). With
// WriteBaseline it records the findings instead, and then accepts them as
// the baseline would, so that the run that records them passes.
//
// It matches what would be reported: findings a comment or the
// configuration silenced are neither recorded nor matched.
type baseline struct{ perRun }

func (baseline) run(r *Reviewer, res *report.Result, files []string) error {
	o := r.o
	var live, done []report.Finding
	for _, f := range res.Findings {
		if f.Suppressed == nil {
			live = append(live, f)
		} else {
			done = append(done, f)
		}
	}
	var b *baselinepkg.Baseline
	if o.WriteBaseline != "" {
		var err error
		if b, err = writeBaseline(o.WriteBaseline, files, live); err != nil {
			return &WriteError{err}
		}
		n := "1 finding"
		if len(live) != 1 {
			n = fmt.Sprintf("%d findings", len(live))
		}
		fmt.Fprintf(o.Notices, "wrote %s: %s\n", o.WriteBaseline, n)
	} else {
		path := o.Baseline
		if path == "" {
			return nil
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			// Named before the first --write-baseline: nothing is
			// baselined yet, which every finding being new says.
			fmt.Fprintf(o.Notices, "warning: baseline %s does not exist yet: every finding is new (record them with --write-baseline %s)\n", path, path)
			return nil
		}
		var err error
		if b, err = baselinepkg.Read(path); err != nil {
			return err
		}
	}
	fresh, baselined, stale := b.Only(files).Match(live)
	for _, f := range baselined {
		done = append(done, f.Marked())
	}
	res.Findings = append(done, fresh...)
	res.Summary.StaleBaseline = len(stale)
	if o.ListFixed {
		// Text readers are told which; scripts read the count.
		for _, e := range stale {
			fmt.Fprintf(o.Notices, "baseline entry fixed: %s\n", e)
		}
	}
	return nil
}

// WriteError is a baseline that could not be written: the path the user
// named is at fault, not an input, which a caller may tell apart (cmd
// calls it a usage error).
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// writeBaseline records the live findings of a run over files in path.
// An existing baseline keeps its entries about files the run did not
// check, so that a partial run (a pre-commit hook's) does not forget the
// rest, unless those files are gone; one that cannot be read (another
// format version, whose error says to rewrite it) is replaced.
func writeBaseline(path string, files []string, live []report.Finding) (*baselinepkg.Baseline, error) {
	b, err := baselinepkg.Read(path)
	if err != nil {
		if b, err = baselinepkg.New(path, live, version.Get().Version); err != nil {
			return nil, err
		}
	} else {
		b = b.Update(files, live, version.Get().Version)
		dir := filepath.Dir(path)
		b.Entries = slices.DeleteFunc(b.Entries, func(e baselinepkg.Entry) bool {
			_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(e.File)))
			return errors.Is(err, fs.ErrNotExist)
		})
	}
	return b, b.WriteFile()
}
