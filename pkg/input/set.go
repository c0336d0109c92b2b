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
	// Named is, for each of Files, whether its argument named it (a file
	// or stdin, not one a directory walk found): a named file that holds
	// nothing to check is worth a word of its own.
	Named []bool

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
	expanded := make([][]source.Walked, len(paths))
	for a, p := range paths {
		ws, err := source.Walk([]string{p})
		if err != nil {
			return nil, err
		}
		expanded[a] = ws
		files := make([]string, 0, len(ws))
		for _, w := range ws {
			if !w.Vendored {
				files = append(files, w.Path)
			}
		}
		r.Inputs(files)
	}
	for a, p := range paths {
		for _, w := range expanded[a] {
			f := w.Path
			var skip string
			if w.Vendored {
				// Counted as skipped, never read: a copy of another
				// project (source.VendorDirs).
				skip = source.SkipVendored
			} else {
				skip = r.skip(f)
			}
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
			s.Named = append(s.Named, f == p)
		}
	}
	if len(paths) > 0 && len(s.Files) == 0 {
		msg := fmt.Sprintf("no input: no %s files in %s", strings.Join(source.Extensions, ", "), strings.Join(paths, ", "))
		if excluded > 0 {
			msg += fmt.Sprintf(" (%d excluded)", excluded)
		}
		return nil, inputErrorf("%s", msg)
	}
	for i, p := range s.Files {
		if s.Skip[i] == source.SkipVendored {
			continue
		}
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

// NewCRDs returns an empty set for the files of CRD sources (--crd, the
// configuration's crds:), which pkg/crdsource fills: each source named
// with AddSource, its files with AddCRDs.
func NewCRDs() *Set {
	return &Set{cached: map[string][]byte{}}
}

// AddSource adds a CRD source, named by label in errors ("--crd
// config/crd", ".crdlint.yaml:3:5: config/crd"), and returns its index,
// the arg of its files.
func (s *Set) AddSource(label string) int {
	s.labels = append(s.labels, label)
	return len(s.labels) - 1
}

// CRDPaths expands the paths of CRD sources, sharing what it learns of
// the repositories (each kustomization is read once).
type CRDPaths struct{ r *repo }

// NewCRDPaths returns an expander for one run's CRD sources.
func NewCRDPaths() *CRDPaths { return &CRDPaths{r: newRepo()} }

// Expand expands a CRD source's path like Open, refusing stdin, and
// makes sure each regular file can be opened, so that a bad path is a
// usage error before any output, without reading it yet: the files are
// read when a custom resource first needs the catalogue (texts[i] is
// nil); what cannot be read twice (a pipe) is read now. Kustomize
// patches, kustomizations, test assertions and snapshots found in a
// directory are left out, as Open skips them (notCRDSource). label names
// the source in errors.
func (c *CRDPaths) Expand(path, label string) (paths []string, texts [][]byte, err error) {
	if path == "-" {
		return nil, nil, inputErrorf("%s: CRDs cannot be read from stdin; give a file or directory", label)
	}
	files, err := source.Expand([]string{path})
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 {
		return nil, nil, inputErrorf("%s: no %s files there", label, strings.Join(source.Extensions, ", "))
	}
	for _, p := range files {
		if p != path {
			if notCRDSource[c.r.skip(p)] {
				continue
			}
		}
		if st, err := os.Stat(p); err == nil && !st.Mode().IsRegular() {
			data, err := source.ReadBytes(p)
			if err != nil {
				return nil, nil, err
			}
			if data == nil {
				data = []byte{} // read: not to be read again
			}
			paths, texts = append(paths, p), append(texts, data)
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			_, err = source.ReadBytes(p) // the reader's one-line wording
			return nil, nil, err
		}
		f.Close()
		paths, texts = append(paths, p), append(texts, nil)
	}
	return paths, texts, nil
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
	s.AddPath(name, arg)
	s.cached[name] = data
}

// AddPath appends a file on disk as argument arg, read when needed.
func (s *Set) AddPath(name string, arg int) {
	s.Files = append(s.Files, name)
	s.Arg = append(s.Arg, arg)
	s.Skip = append(s.Skip, "")
	s.Named = append(s.Named, false)
}

// AddCRDs appends the files of a CRD source as argument arg: each with
// its text (Add), or, where the text is nil, to be read when a custom
// resource first needs the catalogue (AddPath).
func (s *Set) AddCRDs(arg int, names []string, texts [][]byte) {
	for i, name := range names {
		if texts[i] == nil {
			s.AddPath(name, arg)
		} else {
			s.Add(name, arg, texts[i])
		}
	}
}
