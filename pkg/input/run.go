package input

import (
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// keepBudget bounds the bytes of inputs without CRDs kept between the
// collect and the judge phases: within it every input is read once; past
// it the rest is read again rather than held, so that memory does not
// grow with the whole input.
const keepBudget = 256 << 20

// crdMarker is the text every CRD document contains: files without it
// need not be parsed to collect CRDs.
var crdMarker = []byte("CustomResourceDefinition")

// Run reads a command's inputs once and judges them with its catalogue
// complete: the CRDs among the inputs (and those of --crd, read when a
// custom resource first needs them) are in the catalogue before any
// custom resource is looked up, whatever order the files come in.
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

	// Cache, when set, keeps what a run learns of the --crd files for
	// the next run (CRDCache). Set it before the catalogue is first read.
	Cache CRDCache

	fillErr error
	// deferred are the --crd files that may hold CRDs.
	deferred []deferredFile

	mu       sync.Mutex
	recalled []recalled
}

// recalled is what Cache.Recall knew of a --crd file's CRDs, told to
// Cache.Remember when the run is done.
type recalled struct {
	key   string
	known int
	defs  []*crd.Definition
}

// CRDCache keeps, between runs, what a run learns of the files of
// --crd (pkg/check keeps it in the verdict cache):
//   - a file's crd.Index, under IndexKey's key of its name and content,
//     so that a run reads only the files whose CRDs it compiles or judges
//     (Index returns nil when it knows none);
//   - its CRDs as JSON, under the same key: a file read again because a
//     lookup needs one of its kinds is then decoded without being parsed,
//     which is about half of reading it (CRDs says false when it has none);
//   - whether the server rejects each of its CRDs (crd.Definition.Rejected),
//     under AnswersKey's key of its content: Recall marks defs (the file's
//     CRDs, in order) judged as far as it knows and says how many it
//     knew; the Run tells Remember what the run knows of them when it is
//     done, and known, so that nothing is written when nothing was learnt.
type CRDCache interface {
	IndexKey(name string, data []byte) string
	Index(key string) *crd.Index
	KeepIndex(key string, x *crd.Index)
	CRDs(indexKey string) ([]crd.Stored, bool)
	KeepCRDs(indexKey string, stored []crd.Stored)
	AnswersKey(data []byte) string
	Recall(key string, defs []*crd.Definition) (known int)
	Remember(key string, defs []*crd.Definition, known int)
}

// NewRun prepares a run: the CRD sources fill the catalogue (at its Extra
// layer) when it is first read, whether the inputs or live objects need
// it.
func NewRun(inputs, crds *Set, cat *crd.Catalog) *Run {
	r := &Run{Inputs: inputs, CRDs: crds, Catalog: cat}
	if crds != nil && len(crds.Files) > 0 {
		cat.Fill(func() { r.deferred, r.fillErr = crds.deferTo(context.Background(), cat, r.Cache, r.recall) })
	}
	return r
}

// Done says what went wrong with the CRD sources: one that could not be
// read, or one that yields no CRD — a mistake a run must not pass over,
// even when no custom resource needed the catalogue. A command calls it
// after the judge phase, and again when it has read the catalogue since
// (--crd files read since), when it is done.
func (r *Run) Done() error {
	if r.CRDs == nil || len(r.CRDs.labels) == 0 {
		return nil
	}
	r.Catalog.Ready()
	if r.fillErr != nil {
		return r.fillErr
	}
	// An argument holds a CRD when one of its files read so far did, or
	// else the first of the others that does.
	found := make([]bool, len(r.CRDs.labels))
	for _, f := range r.deferred {
		if n, ok := f.Known(); ok {
			found[f.arg] = found[f.arg] || n > 0
		}
	}
	for _, f := range r.deferred {
		if !found[f.arg] && !f.Done() {
			n, _ := f.Read(r.Catalog)
			found[f.arg] = n > 0
		}
	}
	r.mu.Lock()
	for _, rc := range r.recalled {
		r.Cache.Remember(rc.key, rc.defs, rc.known)
	}
	r.recalled = nil
	r.mu.Unlock()
	for _, f := range r.deferred {
		if f.Done() {
			if _, err := f.Read(r.Catalog); err != nil {
				return err
			}
		}
	}
	for a, label := range r.CRDs.labels {
		if !found[a] {
			return inputErrorf("%s: no CustomResourceDefinition found", label)
		}
	}
	return nil
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
	crds   []decoded
	// stream: a file over StreamAbove, read a document at a time; crdsIn
	// says whether its collect pass found CRDs.
	stream, crdsIn bool
	// kind is the kind most of the file's documents have, as far as a
	// glance at its text tells, to judge files of a kind together.
	kind string
}

// decoded is a collected CRD without its document, whose tree can go.
type decoded struct {
	def    *crd.Definition
	source string
}

// decodedOf keeps found CRDs for the catalogue, shed (crd.Definition.Shed)
// at once rather than when the catalogue takes them: the collect phase
// would otherwise hold every CRD's decoded schemas at the same time.
// The loop body over Collecting.CRDs has had them whole.
func decodedOf(found []crd.Found) []decoded { return decodedShed(found, true) }

// decodedShed is decodedOf, shedding the CRDs' schemas only when asked:
// a deferred file's CRDs are shed by the catalogue, which keeps the
// schemas of those a lookup is about to compile.
func decodedShed(found []crd.Found, shed bool) []decoded {
	var out []decoded
	for _, fd := range found {
		if fd.Def != nil {
			if shed {
				fd.Def.Shed()
			}
			out = append(out, decoded{fd.Def, fd.Source()})
		}
	}
	return out
}

// loadCRDs is the CRDs of a --crd file, decoded but not shed (see
// decodedShed): from what the cache kept of the same name and content
// (under key) when it has it, else parsed from data (and kept).
func loadCRDs(name string, data []byte, cache CRDCache, key string) []decoded {
	if cache != nil {
		if stored, ok := cache.CRDs(key); ok {
			var ds []decoded
			for _, l := range crd.Restore(stored) {
				ds = append(ds, decoded{l.Def, l.Source})
			}
			return ds
		}
	}
	found := crd.FindCRDs(source.Parse(name, data))
	if cache != nil {
		cache.KeepCRDs(key, crd.StoredOf(found))
	}
	return decodedShed(found, false)
}

// deferTo reads every file of s once, for the CRD marker and what it
// defines (its index, kept from an earlier run, or else the kinds its
// text may define: crd.ScanHint), and adds those with the marker to cat,
// at the Extra layer, in order, to be parsed and decoded when a lookup
// may need them.
func (s *Set) deferTo(ctx context.Context, cat *crd.Catalog, cache CRDCache, recall func(data []byte, ds []decoded)) ([]deferredFile, error) {
	lazy := make([]*crd.Lazy, len(s.Files))
	err := Parallel(ctx, len(s.Files), func(i int) error {
		p := s.Files[i]
		data, err := s.Bytes(p)
		if err != nil {
			return err
		}
		if !bytes.Contains(data, crdMarker) {
			return nil
		}
		l := &crd.Lazy{}
		// The key of what Load read: a file changed since this first
		// read is kept under its new content's key.
		var loadedKey string
		if cache != nil {
			l.Index = cache.Index(cache.IndexKey(s.Name(p), data))
			l.Keep = func(x *crd.Index) { cache.KeepIndex(loadedKey, x) }
		}
		if l.Index == nil {
			l.Hint = crd.ScanHint(data)
		}
		l.Load = func() ([]crd.Loaded, error) {
			data, err := s.Bytes(p)
			if err != nil {
				return nil, err
			}
			if cache != nil {
				loadedKey = cache.IndexKey(s.Name(p), data)
			}
			ds := loadCRDs(s.Name(p), data, cache, loadedKey)
			if recall != nil {
				recall(data, ds)
			}
			out := make([]crd.Loaded, len(ds))
			for k, d := range ds {
				out[k] = crd.Loaded{Def: d.def, Source: d.source}
			}
			return out, nil
		}
		lazy[i] = l
		return nil
	})
	if err != nil {
		return nil, err
	}
	var (
		files []crd.Lazy
		out   []deferredFile
	)
	for i, l := range lazy {
		if l != nil {
			files = append(files, *l)
			out = append(out, deferredFile{arg: s.Arg[i], path: s.Files[i]})
		}
	}
	for k, d := range cat.Defer(crd.Extra, files) {
		out[k].Deferred = d
	}
	return out, nil
}

// deferredFile is a --crd file that may hold CRDs, and the argument it
// came from.
type deferredFile struct {
	*crd.Deferred
	arg  int
	path string
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

// recall asks r.Cache what it knows of a --crd file's CRDs, and keeps
// what to tell it when the run is done.
func (r *Run) recall(data []byte, ds []decoded) {
	if r.Cache == nil || len(ds) == 0 {
		return
	}
	defs := make([]*crd.Definition, len(ds))
	for i, d := range ds {
		defs[i] = d.def
	}
	key := r.Cache.AnswersKey(data)
	known := r.Cache.Recall(key, defs)
	r.mu.Lock()
	r.recalled = append(r.recalled, recalled{key: key, known: known, defs: defs})
	r.mu.Unlock()
}
