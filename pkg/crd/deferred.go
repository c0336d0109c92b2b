package crd

import (
	"slices"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Deferred is a file of CRDs a catalogue reads only when a lookup may need
// it (its Hint allows the kind), so that the cost of a run follows the
// CRDs its documents use, not the CRDs it is given: parsing and decoding
// a thousand CRDs of which a hundred are used is most of such a run.
// Every answer is the one reading every file first would give: the
// entries of deferred files keep their place in the order of the files
// whenever they are read.
type Deferred struct {
	hint  *Hint
	index *Index
	load  func() ([]Loaded, error)
	keep  func(*Index)
	layer Layer
	seq   int

	once   sync.Once
	done   atomic.Bool
	n      int
	err    error
	loaded []Loaded
	// kept is the Index last given to keep (the file's index is fixed
	// when it is deferred: lookups read it concurrently).
	kept *Index
}

// Loaded is a CRD a deferred file holds, decoded, and where it came from.
type Loaded struct {
	Def    *Definition
	Source string
}

// lazyFile is a file of CRDs to defer (deferLazy): what tells the kinds it
// may define, and what reads it (DeferFiles makes them).
type lazyFile struct {
	// Hint is what its text tells (nil: it may define any kind).
	Hint *Hint
	// Index, when known (kept from a run that read the same content), is
	// exactly what it defines, which makes the Hint unneeded and lets
	// Identity name its CRDs without reading it.
	Index *Index
	// Load returns its CRDs in document order.
	Load func() ([]Loaded, error)
	// Keep, when set, keeps the file's Index for later runs: called when
	// it is read without one, and again when Duplicates has learnt more
	// of its CRDs (Indexed.Deep).
	Keep func(*Index)
}

// Index is what a file of CRDs defines, as IndexOf reads it from the
// file's CRDs: enough to tell which kinds it defines and to name them
// (Identity) without parsing it.
type Index struct {
	// CRDs is how many it holds, those that do not decode included.
	CRDs int
	Defs []Indexed
}

// Indexed is one CRD of an Index.
type Indexed struct {
	Group, Kind, Source string
	// K is its place among the file's CRDs.
	K int
	// Digest is the SHA-256 of its JSON, in hex; "" when it has none.
	Digest string
	// Deep digests its decoded object (deepDigest), when a run compared
	// it with another CRD of its kind; "" when none did.
	Deep string
	// Origin is where it is written, for a crd-duplicate finding.
	Origin *Origin
}

// IndexOf is the Index of a file's CRDs, as its Load returned them.
func IndexOf(ls []Loaded) *Index {
	x := &Index{CRDs: len(ls)}
	for k, l := range ls {
		if l.Def.v1 == nil {
			continue
		}
		x.Defs = append(x.Defs, Indexed{Group: l.Def.v1.Spec.Group, Kind: l.Def.v1.Spec.Names.Kind, Source: l.Source, K: k, Digest: l.Def.hexDigest(), Deep: l.Def.knownDeep(), Origin: l.Def.Origin})
	}
	return x
}

// hint is an Index as a Hint: exact, but for pairing a file's groups
// with its kinds.
func (x *Index) hint() *Hint {
	h := &Hint{Groups: map[string]int{}, Kinds: map[string]int{}, Nested: map[string]int{}}
	for _, d := range x.Defs {
		h.Groups[d.Group]++
		h.Kinds[d.Kind]++
		h.Nested[d.Kind]++
	}
	return h
}

// stub is a CRD of an indexed file not read yet.
type stub struct {
	d *Deferred
	x Indexed
}

// deferLazy adds files of CRDs of a layer, in order, each read when a
// lookup may need it. It is called before any lookup, by the scan of
// DeferFiles' files.
func (c *Catalog) deferLazy(layer Layer, files []lazyFile) []*Deferred {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*Deferred, len(files))
	for i, f := range files {
		d := &Deferred{hint: f.Hint, index: f.Index, load: f.Load, keep: f.Keep, layer: layer, seq: c.next}
		c.next++
		if f.Index != nil {
			d.hint = f.Index.hint()
			for _, x := range f.Index.Defs {
				gk := schema.GroupKind{Group: x.Group, Kind: x.Kind}
				c.stubs[gk] = append(c.stubs[gk], stub{d, x})
			}
		}
		out[i] = d
	}
	c.deferred = append(c.deferred, out...)
	return out
}

// Read reads the file (once) and returns how many CRDs it held, and what
// went wrong reading it.
func (d *Deferred) Read(c *Catalog) (int, error) { return d.read(c, nil) }

// read is Read; the CRDs of kind spare (when not nil), which a lookup is
// about to compile, keep their decoded schemas aside for it (shedSpare).
func (d *Deferred) read(c *Catalog, spare *schema.GroupKind) (int, error) {
	d.once.Do(func() {
		defs, err := d.load()
		if d.index != nil {
			// What an earlier run learnt of its CRDs holds for the
			// same JSON.
			for _, x := range d.index.Defs {
				if x.K < len(defs) && x.Deep != "" && defs[x.K].Def.v1 != nil && defs[x.K].Def.hexDigest() == x.Digest {
					defs[x.K].Def.deep = x.Deep
				}
			}
		}
		for k, l := range defs {
			if spare != nil && l.Def.v1 != nil && l.Def.v1.Spec.Group == spare.Group && l.Def.v1.Spec.Names.Kind == spare.Kind {
				l.Def.shedSpare()
			}
			c.add(l.Def, l.Source, d.layer, &[2]int{d.seq, k})
		}
		d.n, d.err, d.loaded = len(defs), err, defs
		if err == nil && d.index == nil && d.keep != nil {
			d.kept = IndexOf(defs)
			d.keep(d.kept)
		}
		d.done.Store(true)
	})
	return d.n, d.err
}

// Done reports whether the file has been read.
func (d *Deferred) Done() bool { return d.done.Load() }

// Known is how many CRDs the file holds, when that is known without
// reading it: it has been read, or it is indexed.
func (d *Deferred) Known() (int, bool) {
	if d.Done() {
		return d.n, true
	}
	if d.index != nil {
		return d.index.CRDs, true
	}
	return 0, false
}

// read reads the deferred files that may define gk, once per kind; with
// unindexed, only those without an Index (what Identity needs).
func (c *Catalog) read(gk schema.GroupKind, unindexed bool) { c.readFor(gk, unindexed, false) }

// readFor is read; with spare, the CRDs of kind gk it reads keep their
// decoded schemas for the compile that follows (Lookup), and it reports
// whether it read any file.
func (c *Catalog) readFor(gk schema.GroupKind, unindexed, spare bool) (read bool) {
	if len(c.deferred) == 0 {
		return false
	}
	done := &c.resolved
	if unindexed {
		done = &c.resolvedUnindexed
	}
	if _, ok := done.Load(gk); ok {
		return false
	}
	for _, d := range c.deferred {
		if !d.Done() && (!unindexed || d.index == nil) && d.hint.May(gk) {
			if spare {
				d.read(c, &gk)
			} else {
				d.Read(c)
			}
			read = true
		}
	}
	done.Store(gk, true)
	return read
}

// stubWins returns the CRD of an indexed file not read yet that answers
// gk over e (the entry the catalogue has, or nil), if any. c.mu is held.
func (c *Catalog) stubWins(gk schema.GroupKind, e *Entry) (stub, bool) {
	var win *stub
	for i := range c.stubs[gk] {
		s := &c.stubs[gk][i]
		if s.d.Done() {
			continue // its entry is in the catalogue
		}
		if win == nil || beats(s.entry(), win.entry(), nil) {
			win = s
		}
	}
	if win == nil || e != nil && beats(e, win.entry(), nil) {
		return stub{}, false
	}
	return *win, true
}

// entry is where the stub's CRD stands in the catalogue's order.
func (s *stub) entry() *Entry { return &Entry{layer: s.d.layer, seq: [2]int{s.d.seq, s.x.K}} }

// readAll reads every deferred file.
func (c *Catalog) readAll() {
	for _, d := range c.deferred {
		d.Read(c)
	}
}

// readDuplicates reads the deferred files without an Index that may
// define a kind some CRD also defines — one read, one indexed, another
// file, or the same file twice — until no file left may: those left
// define kinds nothing else does. Indexed files need not be read to be
// compared (Duplicates).
func (c *Catalog) readDuplicates() {
	for {
		var left []*Deferred
		for _, d := range c.deferred {
			if !d.Done() && d.index == nil {
				left = append(left, d)
			}
		}
		if len(left) == 0 {
			return
		}
		c.mu.RLock()
		known := make([]schema.GroupKind, 0, len(c.all)+len(c.stubs))
		for gk := range c.all {
			known = append(known, gk)
		}
		for gk := range c.stubs {
			known = append(known, gk)
		}
		c.mu.RUnlock()
		// Files that may share a group, by group value.
		byGroup := map[string][]*Deferred{}
		for _, d := range left {
			if d.hint != nil && !d.hint.Opaque {
				for g := range d.hint.Groups {
					byGroup[g] = append(byGroup[g], d)
				}
			}
		}
		read := false
		for _, d := range left {
			if !d.mayDuplicate(known, byGroup) {
				continue
			}
			d.Read(c)
			read = true
		}
		if !read {
			return
		}
	}
}

func (d *Deferred) mayDuplicate(known []schema.GroupKind, byGroup map[string][]*Deferred) bool {
	h := d.hint
	if h.selfDuplicate() {
		return true
	}
	for _, gk := range known {
		if h.May(gk) {
			return true
		}
	}
	for g := range h.Groups {
		for _, o := range byGroup[g] {
			if o != d && h.share(o.hint) {
				return true
			}
		}
	}
	return false
}

// candidate is a CRD of a kind for Duplicates: an entry, or a CRD of an
// indexed file not read.
type candidate struct {
	e *Entry
	s *stub
}

func (x candidate) at() *Entry {
	if x.e != nil {
		return x.e
	}
	return x.s.entry()
}

// entry is the candidate as a Duplicate names it: a stub by where it is
// written.
func (x candidate) entry() *Entry {
	if x.e != nil {
		return x.e
	}
	e := x.s.entry()
	e.Def, e.Source = &Definition{Origin: x.s.x.Origin}, x.s.x.Source
	return e
}

// same reports whether two candidates are the same CRD as decoded
// (reflect.DeepEqual of the objects, which the same JSON implies), and
// whether that is known without reading a file: the same JSON, or the
// digests of both decoded objects (deepDigest), which a read CRD's
// Definition computes and an Index keeps.
func (x candidate) same(y candidate) (equal, known bool) {
	dx, dy := x.digests(), y.digests()
	if dx[0] != "" && dx[0] == dy[0] {
		return true, true
	}
	if x.e != nil {
		dx[1] = x.e.Def.deepOf()
	}
	if y.e != nil {
		dy[1] = y.e.Def.deepOf()
	}
	if dx[1] == "" || dy[1] == "" {
		return false, false
	}
	return dx[1] == dy[1], true
}

// digests are the candidate's JSON and decoded digests, "" where unknown.
func (x candidate) digests() [2]string {
	if x.s != nil {
		return [2]string{x.s.x.Digest, x.s.x.Deep}
	}
	return [2]string{x.e.Def.hexDigest(), ""}
}

// duplicates is Duplicates from what is read and indexed, and the files
// that must be read to tell.
func (c *Catalog) duplicates() ([]Duplicate, []*Deferred) {
	kinds := map[schema.GroupKind][]candidate{}
	c.mu.RLock()
	for gk, es := range c.all {
		for _, e := range es {
			kinds[gk] = append(kinds[gk], candidate{e: e})
		}
	}
	for gk, ss := range c.stubs {
		for i := range ss {
			if !ss[i].d.Done() {
				kinds[gk] = append(kinds[gk], candidate{s: &ss[i]})
			}
		}
	}
	c.mu.RUnlock()
	var out []Duplicate
	var need []*Deferred
	for _, cs := range kinds {
		if len(cs) < 2 {
			continue
		}
		// Kept is what judges custom resources of no place in
		// particular; a CRD among the inputs may still judge those
		// nearer to it, unless a later one in its own file replaces it.
		// Among the inputs a CRD the server accepts is kept before one
		// it would reject, which serves nothing (judge.go).
		kept := cs[0]
		for _, x := range cs[1:] {
			if inputs(x, kept) && c.accepted(x) != c.accepted(kept) {
				if c.accepted(x) {
					kept = x
				}
				continue
			}
			if beats(x.at(), kept.at(), nil) {
				kept = x
			}
		}
		for _, x := range cs {
			if x == kept {
				continue
			}
			against, nearer := kept, false
			refused := inputs(x, kept) && !c.accepted(x) && c.accepted(kept)
			if placed(x) && placed(kept) && !refused {
				against = lastInFile(cs, x)
				if nearer = against == x; nearer {
					against = kept
				}
			}
			var only []string
			// A CRD applied with the kept one (its directory's) is
			// replaced by it whatever it serves.
			together := placed(x) && placed(kept) && siblings(x.e.where, kept.e.where)
			if against == kept && inputs(x, kept) && c.accepted(x) && !together {
				only = servedOnly(x.e, kept.e)
			}
			equal, known := against.same(x)
			if !known {
				for _, y := range []candidate{against, x} {
					if y.s != nil {
						need = append(need, y.s.d)
					}
				}
				continue
			}
			if !equal {
				out = append(out, Duplicate{Kept: against.entry(), Dropped: x.entry(), Nearer: nearer, Refused: refused, Only: only})
			}
		}
	}
	return out, need
}

// inputs reports whether two candidates are both CRDs among the inputs,
// which the versions they serve rank (judge.go).
func inputs(x, y candidate) bool {
	return x.e != nil && y.e != nil && x.e.layer == Input && y.e.layer == Input
}

// accepted reports whether the server would accept a read candidate's
// CRD (the run lints every input CRD: the verdict is computed once).
func (c *Catalog) accepted(x candidate) bool { return x.e != nil && !x.e.Rejected(c.strict) }

// servedOnly are the versions x serves that kept (accepted, as x is) does
// not, in x's order: x judges their custom resources wherever they are.
func servedOnly(x, kept *Entry) []string {
	served := map[string]bool{}
	for _, v := range kept.CRD().Spec.Versions {
		served[v.Name] = v.Served
	}
	var out []string
	for _, v := range x.CRD().Spec.Versions {
		if v.Served && !served[v.Name] {
			out = append(out, v.Name)
		}
	}
	return out
}

// placed reports whether a candidate is a CRD among the inputs with a
// place, which the nearest judges.
func placed(x candidate) bool { return x.e != nil && x.e.layer == Input && x.e.where != nil }

// lastInFile is the last CRD of x's kind in x's file (x itself when no
// later one is): the one of them that judges, wherever.
func lastInFile(cs []candidate, x candidate) candidate {
	last := x
	for _, y := range cs {
		if placed(y) && slices.Equal(y.e.where.at, x.e.where.at) && ordered(last.e, y.e) {
			last = y
		}
	}
	return last
}

// keepDeep keeps again the index of the files read whose CRDs' decoded
// digests Duplicates computed, so that a later run compares them
// without reading them.
func (c *Catalog) keepDeep() {
	for _, d := range c.deferred {
		if !d.Done() || d.keep == nil || d.err != nil {
			continue
		}
		x, was := IndexOf(d.loaded), d.kept
		if was == nil {
			was = d.index
		}
		if was == nil || deeps(x) > deeps(was) {
			d.kept = x
			d.keep(x)
		}
	}
}

func deeps(x *Index) int {
	n := 0
	for _, d := range x.Defs {
		if d.Deep != "" {
			n++
		}
	}
	return n
}
