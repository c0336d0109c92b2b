package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// StdinPath is how a document read from "-" is named in reports.
const StdinPath = "<stdin>"

// InputError is a path that cannot be read at all: the command exits 2.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Extensions a directory walk picks up. Files named on the command line are
// read whatever their extension.
var Extensions = []string{".yaml", ".yml", ".json"}

// Expand resolves the command line's paths into the files to read, in a
// stable order: each argument in turn, a directory's files in lexical
// order, hidden directories and files skipped, and so are the files under
// a vendored directory (Vendored) below a path given. "-" stays "-".
func Expand(args []string) ([]string, error) {
	ws, err := Walk(args)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, w := range ws {
		if !w.Vendored {
			out = append(out, w.Path)
		}
	}
	return out, nil
}

// VendorDirs are the directories of copies of other projects a directory
// walk does not read: Go's vendor/ and npm's node_modules/. A project does
// not apply what it vendors (its CRDs, examples and test files are the
// other project's, for that project's tests), so judging them reports
// another project's problems, or its invalid-on-purpose fixtures. A path
// given inside one, or naming one, is read.
var VendorDirs = []string{"vendor", "node_modules"}

// SkipVendored is why a file under one of VendorDirs that a directory walk
// found is not read, in the words summaries count skipped inputs by.
const SkipVendored = "vendored copy (vendor/, node_modules/)"

// Walked is a file a walk found; Vendored says it is below a path given,
// under one of VendorDirs: Expand leaves it out, input.Open counts it
// skipped.
type Walked struct {
	Path     string
	Vendored bool
}

// Walk is Expand with the vendored files too, marked, for a command that
// counts them as skipped.
func Walk(args []string) ([]Walked, error) {
	var out []Walked
	for _, a := range args {
		if a == "-" {
			out = append(out, Walked{Path: a})
			continue
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, &InputError{pathError(a, err)}
		}
		if !st.IsDir() {
			out = append(out, Walked{Path: a})
			continue
		}
		// vendored is the vendored directory the walk is under ("":
		// none): its files are listed, marked, so that they are counted
		// rather than silently missing.
		vendored := ""
		err = filepath.WalkDir(a, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return pathError(p, err)
			}
			if p != a && strings.HasPrefix(e.Name(), ".") {
				if e.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if e.IsDir() {
				if vendored != "" && !strings.HasPrefix(p, vendored+string(filepath.Separator)) {
					vendored = ""
				}
				if p != a && vendored == "" && slices.Contains(VendorDirs, e.Name()) {
					vendored = p
				}
				return nil
			}
			if hasExtension(p) {
				under := vendored != "" && strings.HasPrefix(p, vendored+string(filepath.Separator))
				out = append(out, Walked{Path: p, Vendored: under})
			}
			return nil
		})
		if err != nil {
			return nil, &InputError{err}
		}
	}
	return out, nil
}

func hasExtension(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	for _, e := range Extensions {
		if ext == e {
			return true
		}
	}
	return false
}

// MaxFileSize bounds what ReadBytes reads: callers that need a whole
// file's bytes (to rewrite it) hold it all. Read and DocReader bound each
// document instead (DefaultMaxDocumentSize).
const MaxFileSize = 64 << 20

// ReadBytes reads one path, bounded by MaxFileSize, with the tool's
// one-line errors.
func ReadBytes(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &InputError{pathError(path, err)}
	}
	defer f.Close()
	data, err := readAll(f)
	if err != nil {
		return nil, &InputError{pathError(path, err)}
	}
	if len(data) > MaxFileSize {
		return nil, &InputError{fmt.Errorf("read %s: larger than %d MiB", path, MaxFileSize>>20)}
	}
	return data, nil
}

// Read reads one expanded path ("-" is stdin) and parses it whole, as
// Parse does, through a DocReader: a file may be of any size, a document
// over DefaultMaxDocumentSize is a finding. Callers that can take the
// documents one at a time use NewDocReader, whose memory follows the
// largest document rather than the file.
func Read(path string, stdin io.Reader) (*File, error) {
	name, in := path, stdin
	if path == "-" {
		name = StdinPath
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, &InputError{pathError(name, err)}
		}
		defer f.Close()
		in = f
	}
	f, err := readAllDocs(NewDocReader(name, in))
	if err != nil {
		return nil, err
	}
	return f, nil
}

// readAll reads up to MaxFileSize+1 bytes of f into a buffer sized by
// its length, when it has one, rather than grown by doubling.
func readAll(f *os.File) ([]byte, error) {
	var buf bytes.Buffer
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() <= MaxFileSize {
		buf.Grow(int(st.Size()) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(io.LimitReader(f, MaxFileSize+1))
	return buf.Bytes(), err
}

// pathError words an OS error the way the tool prints it: lowercase, one
// line, naming the path.
func pathError(p string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("read %s: no such file or directory", p)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("read %s: permission denied", p)
	}
	return fmt.Errorf("read %s: %w", p, err)
}
