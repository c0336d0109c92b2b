package cmd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/version"
	baselinepkg "github.com/kubectl-crdlint/kubectl-crdlint/pkg/baseline"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

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
