package baseline

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/fsutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/suppress"
)

// FormatVersion is the version of the file format this package writes
// and reads.
const FormatVersion = 1

// Entry is one accepted finding (Count of them), keyed without lines or
// columns, so that edits elsewhere in the file leave it matching.
type Entry struct {
	// File is slash-separated and relative to the baseline's directory.
	File    string  `yaml:"file"`
	Object  *Object `yaml:"object,omitempty,flow"`
	Rule    string  `yaml:"rule"`
	Field   string  `yaml:"field,omitempty"`
	Message string  `yaml:"message"`
	// Count is how many identical findings the entry accepts (1 when
	// omitted).
	Count int `yaml:"count,omitempty"`
}

// Object names the object a finding is about.
type Object struct {
	APIVersion string `yaml:"apiVersion,omitempty"`
	Kind       string `yaml:"kind,omitempty"`
	Namespace  string `yaml:"namespace,omitempty"`
	Name       string `yaml:"name,omitempty"`
}

// String is the entry as one line, for reporting stale entries.
func (e Entry) String() string {
	s := e.File + ": " + e.Rule
	if e.Object != nil {
		s += " " + report.ObjectRef{APIVersion: e.Object.APIVersion, Kind: e.Object.Kind, Namespace: e.Object.Namespace, Name: e.Object.Name}.String()
	}
	s += ": " + e.Message
	if e.Field != "" {
		s += " [" + e.Field + "]"
	}
	if e.Count > 1 {
		s += fmt.Sprintf(" (%d times)", e.Count)
	}
	return s
}

// Baseline is a set of accepted findings.
type Baseline struct {
	// Tool is the version of kubectl-crdlint that wrote it.
	Tool    string
	Entries []Entry
	// Path is the baseline file; entries' files are relative to its
	// directory.
	Path string
	dir  string // absolute
}

// file is the document as written.
type file struct {
	Version int     `yaml:"version"`
	Tool    string  `yaml:"tool"`
	Entries []Entry `yaml:"entries"`
}

const header = `# kubectl-crdlint baseline: findings accepted as they are.
# kubectl crdlint check --baseline FILE reports only the findings not listed
# here, and lists the entries that no longer match anything (fixed: delete
# them, or rewrite the file with --write-baseline). Entries match by file,
# object, rule, field and message, never by line, so edits elsewhere keep
# them valid; count is how many identical findings an entry accepts.
`

// New records findings as a baseline to be written at path (entries'
// files are made relative to its directory).
func New(path string, findings []report.Finding, tool string) (*Baseline, error) {
	b := &Baseline{Tool: tool, Path: path}
	if err := b.setDir(); err != nil {
		return nil, err
	}
	b.Entries = b.entries(findings)
	return b, nil
}

func (b *Baseline) setDir() error {
	dir, err := filepath.Abs(filepath.Dir(b.Path))
	if err != nil {
		return err
	}
	b.dir = dir
	return nil
}

// entries groups findings into sorted, counted entries.
func (b *Baseline) entries(findings []report.Finding) []Entry {
	counts := map[key]int{}
	var order []key
	for _, f := range findings {
		k := b.keyOf(f)
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	out := make([]Entry, 0, len(order))
	for _, k := range order {
		e := k.entry()
		if n := counts[k]; n > 1 {
			e.Count = n
		}
		out = append(out, e)
	}
	sortEntries(out)
	return out
}

// key is what makes two findings the same for a baseline.
type key struct {
	file, apiVersion, kind, namespace, name, rule, field, message string
}

func (k key) entry() Entry {
	e := Entry{File: k.file, Rule: k.rule, Field: k.field, Message: k.message}
	if k.apiVersion != "" || k.kind != "" || k.namespace != "" || k.name != "" {
		e.Object = &Object{APIVersion: k.apiVersion, Kind: k.kind, Namespace: k.namespace, Name: k.name}
	}
	return e
}

func entryKey(e Entry) key {
	k := key{file: e.File, rule: e.Rule, field: e.Field, message: normalize(e.Message)}
	if o := e.Object; o != nil {
		k.apiVersion, k.kind, k.namespace, k.name = o.APIVersion, o.Kind, o.Namespace, o.Name
	}
	return k
}

func (b *Baseline) keyOf(f report.Finding) key {
	return key{
		file: b.rel(f.File), apiVersion: f.Object.APIVersion, kind: f.Object.Kind,
		namespace: f.Object.Namespace, name: f.Object.Name,
		rule: f.Rule, field: f.Field, message: normalize(f.Message),
	}
}

// normalize trims the message as every renderer does, so that a trailing
// newline from the server never makes an entry stale.
func normalize(m string) string { return strings.TrimRightFunc(m, unicode.IsSpace) }

// rel names a finding's file as entries do: relative to the baseline's
// directory, slash-separated. Names that are not paths (<stdin>) and
// paths on another volume stay as they are.
func (b *Baseline) rel(file string) string {
	if file == "" || file == source.StdinPath {
		return file
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return filepath.ToSlash(file)
	}
	r, err := filepath.Rel(b.dir, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(r)
}

func sortEntries(es []Entry) {
	slices.SortStableFunc(es, func(a, b Entry) int {
		ka, kb := entryKey(a), entryKey(b)
		return cmp.Or(
			cmp.Compare(ka.file, kb.file),
			cmp.Compare(ka.apiVersion, kb.apiVersion),
			cmp.Compare(ka.kind, kb.kind),
			cmp.Compare(ka.namespace, kb.namespace),
			cmp.Compare(ka.name, kb.name),
			cmp.Compare(ka.rule, kb.rule),
			cmp.Compare(ka.field, kb.field),
			cmp.Compare(ka.message, kb.message),
		)
	})
}

// Match splits findings into those the baseline does not accept (fresh,
// to report) and those it does (kind "baseline"), and returns the entries
// left over: accepted findings that are gone (stale), each with the count
// still unmatched. An entry with count n accepts n findings; the
// (n+1)th is fresh. Findings are matched in report.Sort order, so which
// of several identical findings counts as fresh is deterministic.
func (b *Baseline) Match(findings []report.Finding) (fresh []report.Finding, baselined []suppress.Suppressed, stale []Entry) {
	left := map[key]int{}
	for _, e := range b.Entries {
		left[entryKey(e)] += max(e.Count, 1)
	}
	sorted := slices.Clone(findings)
	report.Sort(sorted)
	reason := "accepted in " + b.Path
	for _, f := range sorted {
		k := b.keyOf(f)
		if left[k] > 0 {
			left[k]--
			baselined = append(baselined, suppress.Suppressed{Finding: f, Suppression: suppress.Suppression{Kind: suppress.KindBaseline, Reason: reason}})
			continue
		}
		fresh = append(fresh, f)
	}
	for _, e := range b.Entries {
		k := entryKey(e)
		n := left[k]
		if n <= 0 {
			continue
		}
		take := min(n, max(e.Count, 1))
		left[k] -= take
		e.Count = take
		if take == 1 {
			e.Count = 0
		}
		stale = append(stale, e)
	}
	return fresh, baselined, stale
}

// Only returns the baseline restricted to entries about files (named as
// findings name them): a run that checks some files (a pre-commit hook)
// must not call the other files' entries stale.
func (b *Baseline) Only(files []string) *Baseline {
	want := map[string]bool{}
	for _, f := range files {
		want[b.rel(f)] = true
	}
	out := *b
	out.Entries = nil
	for _, e := range b.Entries {
		if want[e.File] {
			out.Entries = append(out.Entries, e)
		}
	}
	return &out
}

// Update returns the baseline with the entries of files replaced by
// findings (those of a run over files), the other files' entries kept,
// so that --write-baseline from a partial run does not forget the rest.
func (b *Baseline) Update(files []string, findings []report.Finding, tool string) *Baseline {
	checked := map[string]bool{}
	for _, f := range files {
		checked[b.rel(f)] = true
	}
	out := &Baseline{Tool: tool, Path: b.Path, dir: b.dir}
	for _, e := range b.Entries {
		if !checked[e.File] {
			out.Entries = append(out.Entries, e)
		}
	}
	out.Entries = append(out.Entries, b.entries(findings)...)
	sortEntries(out.Entries)
	return out
}

// Write writes the baseline in its file format: a header saying what it
// is, the format version, the tool's version and the sorted entries.
func (b *Baseline) Write(w io.Writer) error {
	var buf bytes.Buffer
	buf.WriteString(header)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	entries := b.Entries
	if entries == nil {
		entries = []Entry{}
	}
	if err := enc.Encode(file{Version: FormatVersion, Tool: b.Tool, Entries: entries}); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteFile writes the baseline to its Path atomically: a reader (or a
// concurrent run) sees the old file or the new one, never a part.
func (b *Baseline) WriteFile() error {
	var buf bytes.Buffer
	if err := b.Write(&buf); err != nil {
		return err
	}
	if err := fsutil.WriteNew(b.Path, buf.Bytes(), 0o644); err != nil {
		return &source.InputError{Err: fmt.Errorf("write %s: %w", b.Path, fsutil.UnwrapPath(err))}
	}
	return nil
}

// Read reads a baseline file. Errors are *source.InputError (exit 2),
// one line, naming the file and, for bad content, the line.
func Read(path string) (*Baseline, error) {
	data, err := source.ReadBytes(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse reads a baseline from data; path names it in errors and anchors
// its entries' files.
func Parse(path string, data []byte) (*Baseline, error) {
	fail := func(format string, args ...any) error {
		return &source.InputError{Err: fmt.Errorf("read %s: "+format, append([]any{path}, args...)...)}
	}
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fail("empty file: not a baseline")
		}
		return nil, fail("%s", strings.ReplaceAll(strings.TrimPrefix(err.Error(), "yaml: "), "\n", "; "))
	}
	if f.Version != FormatVersion {
		return nil, fail("baseline format version %d, this kubectl-crdlint reads version %d (written by another version? rewrite it with --write-baseline)", f.Version, FormatVersion)
	}
	for i, e := range f.Entries {
		if e.File == "" || e.Rule == "" {
			return nil, fail("entries[%d]: file and rule are required", i)
		}
		if e.Count < 0 {
			return nil, fail("entries[%d]: count must not be negative", i)
		}
	}
	b := &Baseline{Tool: f.Tool, Entries: f.Entries, Path: path}
	if err := b.setDir(); err != nil {
		return nil, fail("%v", err)
	}
	return b, nil
}
