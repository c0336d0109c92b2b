package crdsource

import (
	"context"
	"fmt"
	"iter"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Source is one place CRDs come from.
type Source interface {
	// Load gives the source's files in order, as many at a time as it
	// reads together (a directory's files, a cluster's page), or an
	// error, which ends it: a loop the caller owns, which may stop early.
	Load(ctx context.Context) iter.Seq2[[]File, error]
	// String names the source in errors, as the user gave it.
	String() string
}

// File is a file of CRDs as a source gives it.
type File struct {
	// Name is how reports name it: its path, its URL, REV:PATH, or
	// cluster/RESOURCE/NAME.
	Name string
	// Data is its text; nil for a file on disk not read yet, which a run
	// reads when a custom resource first needs its CRDs (Read).
	Data []byte

	// parsed is a cluster's object, rendered and parsed already.
	parsed *source.File
	// input: a command's argument, parsed as its inputs are
	// (source.ParseInput); other sources' files are parsed as kubectl
	// reads a file (source.Parse).
	input bool
}

// Read returns the file's text, reading it from disk when Load did not.
func (f File) Read() ([]byte, error) {
	if f.Data != nil {
		return f.Data, nil
	}
	return source.ReadBytes(f.Name)
}

// Parse returns the file parsed, and its text.
func (f File) Parse() (*source.File, []byte, error) {
	data, err := f.Read()
	if err != nil {
		return nil, nil, err
	}
	switch {
	case f.parsed != nil:
		return f.parsed, data, nil
	case f.input:
		return source.ParseInput(f.Name, data), data, nil
	}
	return source.Parse(f.Name, data), data, nil
}

// Load reads the sources' files, in order: the URLs among them are
// fetched first, all at once (fetchURLs). Files on disk come without
// their text (File.Read).
func Load(ctx context.Context, srcs ...Source) ([]File, error) {
	if err := fetchURLs(ctx, srcs); err != nil {
		return nil, err
	}
	var out []File
	for _, s := range srcs {
		for fs, err := range s.Load(ctx) {
			if err != nil {
				return nil, err
			}
			out = append(out, fs...)
		}
	}
	return out, nil
}

// NoCRD is the input error for a source of which none of the n files
// read holds a CustomResourceDefinition.
func NoCRD(s Source, n int) error {
	err := fmt.Errorf("%s: no CustomResourceDefinition found", s)
	if g, ok := s.(*Git); ok && g.dir {
		what := "1 file"
		if n != 1 {
			what = fmt.Sprintf("%d files", n)
		}
		err = fmt.Errorf("%s: no CustomResourceDefinition in the %s under %s at git revision %s", s, what, g.Path, g.Rev)
	}
	return &source.InputError{Err: err}
}
