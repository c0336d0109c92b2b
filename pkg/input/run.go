package input

import (
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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
// even when no custom resource needed the catalogue. Visit calls it; a
// command that reads the catalogue after Visit (--crd files read since)
// calls it again when it is done.
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

// Visitor is a command's work on the documents of a Run.
type Visitor struct {
	// CRDs, when set, is called in the collect phase with the CRD
	// documents of input i, decoded, while their trees are alive, and the
	// input's bytes (which File may not get again): check lints them
	// there. Calls for different files run concurrently. The
	// Definitions are shed when it returns (crd.Definition.Shed): their
	// V1 no longer has the schemas.
	CRDs func(i int, data []byte, found []crd.Found)
	// File is called for every input i once the catalogue is complete,
	// with the input's bytes and the file parsed, its CRD documents
	// removed (they went to CRDs). Calls run concurrently; i tells the
	// input's place. data is nil for a file that held only CRDs.
	File func(i int, data []byte, f *source.File) error
	// Skipped, when set, is called for every input that is not manifests
	// (Set.Skip: a kustomization, a patch, a Helm template), which is not
	// read at all; neither File nor Doc is called for it. A command that
	// leaves it nil counts nothing, but never sees such a file.
	Skipped func(i int, reason string)
	// Doc, when set, takes the files the collect pass did not parse
	// (those without CRDs) instead of File, a document at a time: Begin,
	// then Doc for each document (a File of one document's worth, its
	// indexes counted from 0, Line set; calls for the documents of one
	// file run concurrently, each parsing its own), then Take with each
	// Doc's result in document order and the stream index of its first
	// document (base), then Done. Memory then follows the documents in
	// flight, not the file; regular files larger than StreamAbove are not
	// even held.
	Begin func(i int)
	Doc   func(i int, f *source.File) (any, error)
	Take  func(i, base int, result any)
	Done  func(i int) error
	// Replay, when set with Doc, is offered each file the Doc path would
	// read whose content can be held (a regular file no larger than
	// StreamAbove: not stdin, a pipe or a rendered kustomization, whose
	// content this run made up or cannot read twice), before it is
	// parsed. When it answers ok, the file is neither parsed nor judged:
	// Begin, Take with each result in order (as Doc's would have been;
	// Count documents each) and Done are called as if it had been.
	Replay func(i int, data []byte) (results []Replayed, ok bool)
	// NoCRDs, when set with Replay, is asked about each file Replay
	// would be offered whose text has the CRD marker, before the collect
	// phase parses it to find its CRDs: true says an earlier run found
	// none in the same content, and the file is then taken as one
	// without the marker (not parsed unless Replay misses). The word
	// is in many files that hold no CRD: an Argo CD Application that
	// ignores differences in CRDs, a policy that matches them.
	NoCRDs func(i int, data []byte) bool
}

// Replayed is one Doc result a Replay gives again, and the number of
// documents it counts (its Doc's File.Count).
type Replayed struct {
	Result any
	Count  int
}

// StreamAbove is the size over which a command that can (Visitor.Doc)
// reads a regular file a document at a time.
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
// Visitor.CRDs has had them whole.
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

// Visit reads every input once (see keepBudget): the files that hold
// CRDs are parsed first and their CRDs collected into the catalogue, in
// input order (the nearest CRD of a kind judges, the later one within a
// file, as applying it would), then
// every file is handed to v.File.
func (r *Run) Visit(ctx context.Context, v Visitor) error {
	in := r.Inputs
	keep := make([]collected, len(in.Files))
	var kept atomic.Int64
	err := Parallel(ctx, len(in.Files), func(i int) error {
		p := in.Files[i]
		if in.Skip[i] != "" {
			return nil
		}
		c := &keep[i]
		if v.Doc != nil && in.cached[p] == nil && size(p) > StreamAbove {
			c.stream = true
			return r.collectStream(i, p, v, c)
		}
		data, err := in.Bytes(p)
		if err != nil {
			return err
		}
		// A file without CRDs goes to the judge phase unparsed: with
		// Doc, it is then read a document at a time, and may be replayed.
		unparsed := func() error {
			c.kind = mainKind(data)
			if kept.Add(int64(len(data))) <= keepBudget || in.cached[p] != nil {
				c.data = data
			} else {
				c.reread = true
			}
			return nil
		}
		if !bytes.Contains(data, crdMarker) || v.Replay != nil && v.NoCRDs != nil && in.cached[p] == nil && v.NoCRDs(i, data) {
			return unparsed()
		}
		f := source.ParseInput(in.Name(p), data)
		found := crd.FindCRDs(f)
		if len(found) == 0 {
			if v.Doc != nil {
				// Judged as the files without the marker are (a
				// document at a time), so that it can be replayed
				// like them: parsing it again costs less than judging
				// it on every run.
				return unparsed()
			}
			c.kind = mainKind(data)
			c.file, c.data = f, data
			return nil
		}
		c.kind = mainKind(data)
		if v.CRDs != nil {
			v.CRDs(i, data, found)
		}
		c.crds = decodedOf(found)
		// Not f.Documents[:0:0]: an empty slice of the old array still
		// points at it, and that kept every CRD document's tree (a third
		// of the live heap) until the judge phase.
		var rest []*source.Document
		for _, d := range f.Documents {
			if !crd.IsCRD(d) {
				rest = append(rest, d)
			}
		}
		f.Documents = rest
		if len(rest) == 0 {
			// Nothing left to judge: let the CRDs' text go.
			f.Texts = nil
			data = nil
		}
		c.file, c.data = f, data
		return nil
	})
	if err != nil {
		return err
	}
	for i := range keep {
		for _, d := range keep[i].crds {
			r.Catalog.Add(d.def, d.source, crd.Input)
		}
		keep[i].crds = nil
	}
	err = parallelIn(ctx, byKind(keep), len(in.Files), func(i int) error {
		if in.Skip[i] != "" {
			if v.Skipped != nil {
				v.Skipped(i, in.Skip[i])
			}
			return nil
		}
		c := keep[i]
		keep[i] = collected{}
		p := in.Files[i]
		if c.stream {
			return r.stream(i, p, nil, v, c.crdsIn)
		}
		f, data := c.file, c.data
		if v.Doc != nil && f == nil {
			if v.Replay != nil && in.cached[p] == nil {
				if data == nil {
					var err error
					if data, err = in.Bytes(p); err != nil {
						return err
					}
				}
				if rs, ok := v.Replay(i, data); ok {
					return replay(i, rs, v)
				}
			}
			return r.stream(i, p, data, v, false) // data is nil to reread
		}
		switch {
		case c.reread:
			data, err := in.Bytes(p)
			if err != nil {
				return err
			}
			f = source.ParseInput(in.Name(p), data)
			return v.File(i, data, f)
		case f == nil:
			f = source.ParseInput(in.Name(p), data)
		}
		return v.File(i, data, f)
	})
	if err != nil {
		return err
	}
	return r.Done()
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

func size(p string) int64 {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	return st.Size()
}

// docReader opens a file as a stream of documents.
func (r *Run) docReader(p string) (*source.DocReader, *os.File, error) {
	f, err := os.Open(p)
	if err != nil {
		_, err = source.ReadBytes(p) // the reader's one-line wording
		return nil, nil, err
	}
	dr := source.NewDocReader(r.Inputs.Name(p), f)
	dr.Input = true
	if r.MaxDocumentSize > 0 {
		dr.MaxDocumentSize = r.MaxDocumentSize
	}
	return dr, f, nil
}

// collectStream is the collect phase for a large file: a scan for the
// CRD marker without parsing, and only when it is there, the CRDs. (A
// large file that holds CRDs is then parsed twice, once per phase: rare
// enough to keep memory bounded rather than hold its documents.)
func (r *Run) collectStream(i int, p string, v Visitor, c *collected) error {
	f, err := os.Open(p)
	if err != nil {
		_, err = source.ReadBytes(p)
		return err
	}
	found, err := containsStream(f, crdMarker)
	f.Close()
	if err != nil || !found {
		return err
	}
	c.crdsIn = true
	dr, rf, err := r.docReader(p)
	if err != nil {
		return err
	}
	defer rf.Close()
	others := false
	for {
		piece, err := dr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		found := crd.FindCRDs(piece)
		others = others || len(found) < len(piece.Documents)
		if len(found) == 0 {
			continue
		}
		if v.CRDs != nil {
			v.CRDs(i, nil, found)
		}
		c.crds = append(c.crds, decodedOf(found)...)
	}
	// FindCRDs saw a piece at a time: the file is a bundle when any piece
	// held other objects (crd.Origin.Bundle).
	for _, d := range c.crds {
		if d.def.Origin != nil {
			d.def.Origin.Bundle = d.def.Origin.Bundle || others
		}
	}
	return nil
}

// stream is the judge phase of a file read a document at a time: each
// document to v.Doc, without the CRDs the collect phase judged, on all
// cores, and the results to v.Take in order. data is the file's content
// when held, else the file is read.
func (r *Run) stream(i int, p string, data []byte, v Visitor, crdsIn bool) error {
	if data == nil && size(p) <= StreamAbove {
		// Held while it is judged, so that it reads as Parse reads it
		// (source.DocReader.NoKind needs the whole text).
		var err error
		if data, err = r.Inputs.Bytes(p); err != nil {
			return err
		}
	}
	var dr *source.DocReader
	if data != nil {
		dr = source.NewDocReader(r.Inputs.Name(p), bytes.NewReader(data))
		dr.NoKind = !source.HasKind(data)
		dr.Input = true
		if r.MaxDocumentSize > 0 {
			dr.MaxDocumentSize = r.MaxDocumentSize
		}
	} else {
		var f *os.File
		var err error
		dr, f, err = r.docReader(p)
		if err != nil {
			return err
		}
		defer f.Close()
	}
	if v.Begin != nil {
		v.Begin(i)
	}
	type job struct {
		p     *source.Piece
		res   any
		count int
		err   error
		done  chan struct{}
	}
	workers := runtime.GOMAXPROCS(0)
	jobs, order := make(chan *job, 2*workers), make(chan *job, 2*workers)
	var readErr error
	go func() {
		defer close(order)
		defer close(jobs)
		for {
			piece, err := dr.NextPiece()
			if err != nil {
				if err != io.EOF {
					readErr = err
				}
				return
			}
			j := &job{p: piece, done: make(chan struct{})}
			order <- j
			jobs <- j
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				f := j.p.Parse()
				if crdsIn {
					f.Documents = slices.DeleteFunc(f.Documents, crd.IsCRD)
				}
				j.count = f.Count
				j.res, j.err = v.Doc(i, f)
				close(j.done)
			}
		}()
	}
	var err error
	base := 0
	for j := range order {
		<-j.done
		if err == nil {
			err = j.err
		}
		if err == nil {
			v.Take(i, base, j.res)
		}
		base += j.count
	}
	wg.Wait()
	if err != nil {
		return err
	}
	if readErr != nil {
		return readErr
	}
	return v.Done(i)
}

// replay hands a Replay's results to v as stream would hand Doc's.
func replay(i int, rs []Replayed, v Visitor) error {
	if v.Begin != nil {
		v.Begin(i)
	}
	base := 0
	for _, r := range rs {
		v.Take(i, base, r.Result)
		base += r.Count
	}
	return v.Done(i)
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

// byKind orders the inputs for the judge phase by their main kind, in
// input order within a kind: documents of a kind then meet their
// compiled version while the catalogue still holds it (it keeps only so
// many, crd.DefaultVersionBudget). The order changes no result.
func byKind(keep []collected) []int {
	order := make([]int, len(keep))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(keep[a].kind, keep[b].kind) })
	return order
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
