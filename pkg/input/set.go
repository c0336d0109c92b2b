package input

import (
	"fmt"
	"io"
	"os"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Set is the files a command was given, expanded: each argument in turn,
// a directory's files in lexical order. Stdin, pipes and other inputs that
// cannot be read twice are read when the set is opened, because CRDs are
// collected from the inputs before anything is judged.
type Set struct {
	// Files are the expanded paths, in order; "-" is stdin.
	Files []string
	// Arg is, for each of Files, the index of the argument it came from.
	Arg []int
	// Skip is, for each of Files, why it is not manifests (a Helm
	// template, a kustomization or one of its patches), or "".
	Skip []string

	cached map[string][]byte
}

// Open expands paths and reads what cannot be read twice. Errors are
// *source.InputError: the command exits 2.
func Open(paths []string, stdin io.Reader) (*Set, error) {
	s := &Set{cached: map[string][]byte{}}
	r := newRepo()
	for a, p := range paths {
		files, err := source.Expand([]string{p})
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			s.Files = append(s.Files, f)
			s.Arg = append(s.Arg, a)
			s.Skip = append(s.Skip, r.skip(f))
		}
	}
	for _, p := range s.Files {
		if _, done := s.cached[p]; done {
			if p == "-" {
				return nil, inputErrorf("- (stdin) may be given only once")
			}
			continue
		}
		if p == "-" {
			data, err := io.ReadAll(io.LimitReader(stdin, source.MaxFileSize+1))
			if err != nil {
				return nil, inputErrorf("read %s: %v", source.StdinPath, err)
			}
			if len(data) > source.MaxFileSize {
				return nil, inputErrorf("read %s: larger than %d MiB", source.StdinPath, source.MaxFileSize>>20)
			}
			s.cached[p] = data
			continue
		}
		if st, err := os.Stat(p); err == nil && !st.Mode().IsRegular() {
			data, err := source.ReadBytes(p)
			if err != nil {
				return nil, err
			}
			s.cached[p] = data
		}
	}
	return s, nil
}

func inputErrorf(format string, a ...any) error {
	return &source.InputError{Err: fmt.Errorf(format, a...)}
}

// Name is how a path is named in reports.
func (s *Set) Name(p string) string {
	if p == "-" {
		return source.StdinPath
	}
	return p
}

// Bytes returns an input's content: what Open read, or the file now.
func (s *Set) Bytes(p string) ([]byte, error) {
	if data, ok := s.cached[p]; ok {
		return data, nil
	}
	return source.ReadBytes(p)
}

// Read returns an input parsed.
func (s *Set) Read(p string) (*source.File, []byte, error) {
	data, err := s.Bytes(p)
	if err != nil {
		return nil, nil, err
	}
	return source.Parse(s.Name(p), data), data, nil
}

// OpenCRDs opens the paths of --crd like Open, refusing stdin, and makes
// sure each regular file can be opened, so that a bad path is a usage
// error before any output, without reading it yet: the files are read
// when a custom resource first needs the catalogue.
func OpenCRDs(paths []string) (*Set, error) {
	for _, p := range paths {
		if p == "-" {
			return nil, inputErrorf("--crd cannot read stdin; give a file or directory")
		}
	}
	s, err := Open(paths, nil)
	if err != nil {
		return nil, err
	}
	for _, p := range s.Files {
		if _, ok := s.cached[p]; ok {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			_, err = source.ReadBytes(p) // the reader's one-line wording
			return nil, err
		}
		f.Close()
	}
	return s, nil
}
