package input

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

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

	// labels name the arguments of a set of CRD sources, for errors.
	labels []string

	cached map[string][]byte
}

// SkipExcluded is why a file named on the command line is not read: the
// configuration's exclude: or --exclude. (Files a directory walk finds
// are left out silently.)
const SkipExcluded = "excluded"

// Exclude answers whether a path is excluded; isDir tells a directory.
type Exclude func(path string, isDir bool) bool

// Open expands paths and reads what cannot be read twice. exclude (nil:
// none) leaves files out. Errors are *source.InputError: the command
// exits 2, as it does when the paths hold no file to read at all or stdin
// is empty: a run never passes while checking nothing.
func Open(paths []string, stdin io.Reader, exclude Exclude) (*Set, error) {
	s := &Set{cached: map[string][]byte{}}
	r := newRepo()
	excluded := 0
	expanded := make([][]string, len(paths))
	for a, p := range paths {
		files, err := source.Expand([]string{p})
		if err != nil {
			return nil, err
		}
		expanded[a] = files
		r.Inputs(files)
	}
	for a, p := range paths {
		for _, f := range expanded[a] {
			skip := r.skip(f)
			if exclude != nil && f != "-" && exclude(f, false) {
				if f != p {
					excluded++
					continue
				}
				skip = SkipExcluded
			}
			s.Files = append(s.Files, f)
			s.Arg = append(s.Arg, a)
			s.Skip = append(s.Skip, skip)
		}
	}
	if len(paths) > 0 && len(s.Files) == 0 {
		msg := fmt.Sprintf("no input: no %s files in %s", strings.Join(source.Extensions, ", "), strings.Join(paths, ", "))
		if excluded > 0 {
			msg += fmt.Sprintf(" (%d excluded)", excluded)
		}
		return nil, inputErrorf("%s", msg)
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
			if len(bytes.TrimSpace(data)) == 0 {
				return nil, inputErrorf("no input: stdin is empty (did the command writing to the pipe fail?)")
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

// Given reports whether p's content was given to the set — stdin, a
// pipe, a URL's content, a rendered kustomization — rather than read
// from a file that can be read again: what a run made up or cannot read
// twice is not cached between runs.
func (s *Set) Given(p string) bool {
	_, ok := s.cached[p]
	return ok
}

// Read returns an input parsed.
func (s *Set) Read(p string) (*source.File, []byte, error) {
	data, err := s.Bytes(p)
	if err != nil {
		return nil, nil, err
	}
	return source.ParseInput(s.Name(p), data), data, nil
}

// CRDSource is one place CRDs come from: a file or directory (Path), or
// a URL's fetched content (Data, named Path). Label names it in errors:
// "--crd config/crd", ".crdlint.yaml:3:5: config/crd".
type CRDSource struct {
	Path, Label string
	Data        []byte
}

// OpenCRDs opens the CRD sources (--crd, the configuration's crds:) like
// Open, refusing stdin, and makes sure each regular file can be opened,
// so that a bad path is a usage error before any output, without reading
// it yet: the files are read when a custom resource first needs the
// catalogue. Kustomize patches, kustomizations, test assertions and
// snapshots found in a directory are left out, as Open skips them
// (notCRDSource).
func OpenCRDs(srcs []CRDSource) (*Set, error) {
	s := &Set{cached: map[string][]byte{}}
	r := newRepo()
	for a, src := range srcs {
		s.labels = append(s.labels, src.Label)
		if src.Data != nil {
			s.Add(src.Path, a, src.Data)
			continue
		}
		if src.Path == "-" {
			return nil, inputErrorf("%s: CRDs cannot be read from stdin; give a file or directory", src.Label)
		}
		files, err := source.Expand([]string{src.Path})
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, inputErrorf("%s: no %s files there", src.Label, strings.Join(source.Extensions, ", "))
		}
		for _, p := range files {
			if p != src.Path {
				if notCRDSource[r.skip(p)] {
					continue
				}
			}
			if st, err := os.Stat(p); err == nil && !st.Mode().IsRegular() {
				data, err := source.ReadBytes(p)
				if err != nil {
					return nil, err
				}
				s.Add(p, a, data)
				continue
			}
			f, err := os.Open(p)
			if err != nil {
				_, err = source.ReadBytes(p) // the reader's one-line wording
				return nil, err
			}
			f.Close()
			s.Files = append(s.Files, p)
			s.Arg = append(s.Arg, a)
			s.Skip = append(s.Skip, "")
		}
	}
	return s, nil
}

// notCRDSource are the reasons to leave a file of a CRD source directory
// out: a partial CRD (a patch, a test's expected state, a snapshot of a
// rendering) must never judge a custom resource, nor be called a
// duplicate of the CRD it patches or asserts.
var notCRDSource = map[string]bool{
	SkipKustomizePatch: true, SkipKustomization: true, SkipTestAssertion: true, SkipSnapshot: true,
}

// Add appends an input already read, named name (a URL's content), as
// argument arg.
func (s *Set) Add(name string, arg int, data []byte) {
	s.Files = append(s.Files, name)
	s.Arg = append(s.Arg, arg)
	s.Skip = append(s.Skip, "")
	s.cached[name] = data
}
