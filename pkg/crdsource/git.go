package crdsource

import (
	"context"
	"iter"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/gitrev"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Git is PATH at git revision REV of the working directory's repository
// (pkg/gitrev): the file, or a directory's files as a directory on disk
// gives them, each named REV:PATH/name.yaml.
type Git struct {
	Rev, Path string

	// dir: PATH is a directory at REV (NoCRD says so).
	dir bool
}

func (g *Git) String() string { return g.Rev + ":" + g.Path }

// Load reads the files at the revision.
func (g *Git) Load(context.Context) iter.Seq2[[]File, error] {
	return once(g.load)
}

func (g *Git) load() ([]File, error) {
	gfs, dir, err := gitrev.Read(g.Rev, g.Path, source.Extensions)
	if err != nil {
		return nil, &source.InputError{Err: err}
	}
	g.dir = dir
	fs := make([]File, len(gfs))
	for i, f := range gfs {
		// Read as the same file on disk is as an argument (Input): a
		// partial CRD, a template or a file of no objects is skipped.
		fs[i] = File{Name: g.Rev + ":" + f.Path, Data: f.Data, input: true}
		if fs[i].Data == nil {
			fs[i].Data = []byte{}
		}
	}
	return fs, nil
}
