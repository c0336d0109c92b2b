package crdsource

import (
	"context"
	"io"
	"iter"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/gitrev"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Path is a file or directory of CRDs named by --crd or the
// configuration's crds:. Its files come without their text, which a run
// reads when a custom resource first needs them; only their being there
// and readable is checked, so that a bad path is a usage error before any
// output (input.CRDPaths.Expand: stdin refused, a directory's kustomize
// patches and kustomizations left out).
type Path struct {
	Path string
	// Label names the source in errors: "--crd config/crd",
	// ".crdlint.yaml:3:5: crds: config/crd".
	Label string
	// Paths, shared by a run's sources, reads each kustomization once
	// (nil: the source's own).
	Paths *input.CRDPaths
}

func (p *Path) String() string { return p.Label }

// Load checks the files and hands them over, unread.
func (p *Path) Load(context.Context) iter.Seq2[[]File, error] {
	return once(p.load)
}

func (p *Path) load() ([]File, error) {
	paths := p.Paths
	if paths == nil {
		paths = input.NewCRDPaths()
	}
	names, texts, err := paths.Expand(p.Path, p.Label)
	if err != nil {
		return nil, err
	}
	fs := make([]File, len(names))
	for i := range names {
		fs[i] = File{Name: names[i], Data: texts[i]}
	}
	return fs, nil
}

// Input is a command's argument of CRDs read as its inputs are
// (input.Open): a file, a directory's files (every one: the decoding
// says what each holds), or stdin ("-"). upgrade's OLD and NEW.
type Input struct {
	Path  string
	Stdin io.Reader
}

func (s *Input) String() string { return s.Path }

// Load reads every file.
func (s *Input) Load(context.Context) iter.Seq2[[]File, error] {
	return once(s.load)
}

func (s *Input) load() ([]File, error) {
	in, err := input.Open([]string{s.Path}, s.Stdin, nil)
	if err != nil {
		return nil, err
	}
	fs := make([]File, 0, len(in.Files))
	for i, p := range in.Files {
		if in.Skip[i] == source.SkipVendored {
			// Another project's copy, as every walk leaves it out.
			continue
		}
		data, err := in.Bytes(p)
		if err != nil {
			return nil, err
		}
		if data == nil {
			data = []byte{} // read: an empty file
		}
		fs = append(fs, File{Name: in.Name(p), Data: data, input: true})
	}
	return fs, nil
}

// once is the Load of a source that reads its files together: one batch,
// or the error.
func once(load func() ([]File, error)) iter.Seq2[[]File, error] {
	return func(yield func([]File, error) bool) {
		fs, err := load()
		if err != nil {
			yield(nil, err)
			return
		}
		yield(fs, nil)
	}
}

// Arg is the source a revision argument names (upgrade's OLD and NEW):
// REV:PATH, a file or directory at a git revision (unless a file of that
// name is on disk), else a file, a directory or stdin.
func Arg(arg string, stdin io.Reader) Source {
	if rev, path, ok := gitrev.Split(arg); ok {
		return &Git{Rev: rev, Path: path}
	}
	return &Input{Path: arg, Stdin: stdin}
}
