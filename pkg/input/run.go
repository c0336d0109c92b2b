package input

import (
	"bytes"
	"context"
	"io"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/parallel"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// keepBudget bounds the bytes of inputs without CRDs kept between the
// collect and the judge phases: within it every input is read once; past
// it the rest is read again rather than held, so that memory does not
// grow with the whole input.
const keepBudget = 256 << 20

// Run is a command's inputs, read once in two phases the command runs
// (Collect, then the Judge that Collect.Done returns), so that its work
// sees the catalogue complete: the CRDs among the inputs (and those of
// --crd, read when a custom resource first needs them) are in the
// catalogue before any custom resource is looked up, whatever order the
// files come in.
type Run struct {
	Inputs *Set
	// CRDs are the files of --crd, or nil.
	CRDs    *Set
	Catalog *crd.Catalog
	// MaxDocumentSize bounds a streamed document (0:
	// source.DefaultMaxDocumentSize).
	MaxDocumentSize int
	// Documents says the command judges the files without CRDs a
	// document at a time (Judging.Documents; check): the collect phase
	// then leaves them unparsed, even those the CRD marker made it parse,
	// and reads a file larger than StreamAbove a document at a time.
	Documents bool
}

// NewRun prepares a run: the CRD sources are the catalogue's files of
// its Extra layer (crd.Catalog.DeferFiles), which it reads itself when
// it is first read, whether the inputs or live objects need it.
func NewRun(inputs, crds *Set, cat *crd.Catalog) *Run {
	r := &Run{Inputs: inputs, CRDs: crds, Catalog: cat}
	if crds != nil && len(crds.Files) > 0 {
		files := make([]crd.File, len(crds.Files))
		for i, p := range crds.Files {
			files[i] = crd.File{Name: crds.Name(p)}
			if data, ok := crds.cached[p]; ok {
				if data == nil {
					data = []byte{} // given: not to be read from disk
				}
				files[i].Data = data
			}
		}
		cat.DeferFiles(crd.Extra, files)
	}
	return r
}

// Done says what went wrong with the CRD sources: one that could not be
// read, or one that yields no CRD — a mistake a run must not pass over,
// even when no custom resource needed the catalogue — and has the
// catalogue tell its cache what the run learnt of their CRDs
// (crd.Catalog.Remember). A command calls it after the judge phase, and
// again when it has read the catalogue since (--crd files read since),
// when it is done.
func (r *Run) Done() error {
	if r.CRDs == nil || len(r.CRDs.labels) == 0 {
		return nil
	}
	deferred, err := r.Catalog.Deferred()
	if err != nil {
		return err
	}
	// An argument holds a CRD when one of its files read so far did, or
	// else the first of the others that does.
	found := make([]bool, len(r.CRDs.labels))
	for i, f := range deferred {
		if f == nil {
			continue
		}
		if n, ok := f.Known(); ok {
			found[r.CRDs.Arg[i]] = found[r.CRDs.Arg[i]] || n > 0
		}
	}
	for i, f := range deferred {
		if a := r.CRDs.Arg[i]; f != nil && !found[a] && !f.Done() {
			n, _ := f.Read(r.Catalog)
			found[a] = n > 0
		}
	}
	r.Catalog.Remember()
	for _, f := range deferred {
		if f != nil && f.Done() {
			if _, err := f.Read(r.Catalog); err != nil {
				return err
			}
		}
	}
	for a, label := range r.CRDs.labels {
		if !found[a] {
			if why := r.removed(a); why != "" {
				return inputErrorf("%s: no apiextensions.k8s.io/v1 CustomResourceDefinition found: %s", label, why)
			}
			return inputErrorf("%s: no CustomResourceDefinition found", label)
		}
	}
	return nil
}

// removed is why argument a of the CRD sources yields no CRD when its
// files hold CRDs of a version no server serves (crd.Removed), else "".
// Only an argument without a CRD is read again for it.
func (r *Run) removed(a int) string {
	for i, p := range r.CRDs.Files {
		if r.CRDs.Arg[i] != a {
			continue
		}
		data, err := r.CRDs.Bytes(p)
		if err != nil {
			continue
		}
		if why := crd.Removed(r.CRDs.Name(p), data); why != "" {
			return why
		}
	}
	return ""
}

// StreamAbove is the size over which a run with Documents reads a
// regular file a document at a time in both phases.
const StreamAbove = 16 << 20

// collected is what the collect phase keeps of one input for the judge
// phase.
type collected struct {
	file   *source.File // parsed, without its CRD documents; nil: parse later
	data   []byte       // nil with a file: nothing left to judge
	reread bool         // neither kept: read the input again
	crds   []crd.Loaded
	// stream: a file over StreamAbove, read a document at a time; crdsIn
	// says whether its collect pass found CRDs.
	stream, crdsIn bool
	// kind is the kind most of the file's documents have, as far as a
	// glance at its text tells, to judge files of a kind together.
	kind string
}

// loaded keeps found CRDs for the catalogue, shed (crd.Definition.Shed)
// at once rather than when the catalogue takes them: the collect phase
// would otherwise hold every CRD's decoded schemas at the same time.
// The loop body over Collecting.CRDs has had them whole.
func loaded(found []crd.Found) []crd.Loaded {
	var out []crd.Loaded
	for _, fd := range found {
		if fd.Def != nil {
			fd.Def.Shed()
			out = append(out, crd.Loaded{Def: fd.Def, Source: fd.Source()})
		}
	}
	return out
}

// containsStream reports whether what r reads contains s, reading it in
// pieces that overlap by len(s)-1 bytes.
func containsStream(r io.Reader, s []byte) (bool, error) {
	buf := make([]byte, 1<<20)
	carry := 0
	for {
		n, err := r.Read(buf[carry:])
		if bytes.Contains(buf[:carry+n], s) {
			return true, nil
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		keep := min(len(s)-1, carry+n)
		copy(buf, buf[carry+n-keep:carry+n])
		carry = keep
	}
}

var kindLine = []byte("\nkind:")

// mainKind is the value of the most frequent top-level "kind:" line of a
// YAML text ("" for none, or JSON): a guess, good enough for ordering.
func mainKind(data []byte) string {
	counts := map[string]int{}
	best, most := "", 0
	for rest := data; ; {
		i := bytes.Index(rest, kindLine)
		if i < 0 {
			break
		}
		rest = rest[i+len(kindLine):]
		end := bytes.IndexByte(rest, '\n')
		if end < 0 {
			end = len(rest)
		}
		k := string(bytes.TrimSpace(rest[:end]))
		counts[k]++
		if counts[k] > most {
			best, most = k, counts[k]
		}
	}
	return best
}

// Parallel runs fn for 0..n-1 over all cores and returns the error of
// the lowest index that failed (parallel.Run): the loop a command owns
// over the inputs of a phase.
func Parallel(ctx context.Context, n int, fn func(i int) error) error {
	return parallel.Run(ctx, n, fn)
}
