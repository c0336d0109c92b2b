package crd

import (
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
	layer Layer
	seq   int

	once   sync.Once
	done   atomic.Bool
	n      int
	err    error
	loaded []Loaded
}

// Loaded is a CRD a deferred file holds, decoded, and where it came from.
type Loaded struct {
	Def    *Definition
	Source string
}

// Lazy is a file of CRDs to Defer: what tells the kinds it may define,
// and what reads it.
type Lazy struct {
	// Hint is what its text tells (nil: it may define any kind).
	Hint *Hint
	// Index, when known (kept from a run that read the same content), is
	// exactly what it defines, which makes the Hint unneeded and lets
	// Identity name its CRDs without reading it.
	Index *Index
	// Load returns its CRDs in document order.
	Load func() ([]Loaded, error)
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
}

// IndexOf is the Index of a file's CRDs, as its Load returned them.
func IndexOf(ls []Loaded) *Index {
	x := &Index{CRDs: len(ls)}
	for k, l := range ls {
		if l.Def.V1 == nil {
			continue
		}
		x.Defs = append(x.Defs, Indexed{Group: l.Def.V1.Spec.Group, Kind: l.Def.V1.Spec.Names.Kind, Source: l.Source, K: k, Digest: l.Def.hexDigest()})
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

// Defer adds files of CRDs of a layer, in order, each read when a lookup
// may need it. Call it before any lookup, from the Fill function or
// before it is set.
func (c *Catalog) Defer(layer Layer, files []Lazy) []*Deferred {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*Deferred, len(files))
	for i, f := range files {
		d := &Deferred{hint: f.Hint, index: f.Index, load: f.Load, layer: layer, seq: c.next}
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
func (d *Deferred) Read(c *Catalog) (int, error) {
	d.once.Do(func() {
		defs, err := d.load()
		for k, l := range defs {
			c.add(l.Def, l.Source, d.layer, &[2]int{d.seq, k})
		}
		d.n, d.err = len(defs), err
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
func (c *Catalog) read(gk schema.GroupKind, unindexed bool) {
	if len(c.deferred) == 0 {
		return
	}
	done := &c.resolved
	if unindexed {
		done = &c.resolvedUnindexed
	}
	if _, ok := done.Load(gk); ok {
		return
	}
	for _, d := range c.deferred {
		if !d.Done() && (!unindexed || d.index == nil) && d.hint.May(gk) {
			d.Read(c)
		}
	}
	done.Store(gk, true)
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
		if win == nil || later(s.entry(), win.entry()) {
			win = s
		}
	}
	if win == nil || e != nil && later(e, win.entry()) {
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

// readDuplicates reads the deferred files that may define a kind some
// CRD also defines — one read, another file, or the same file twice —
// until no file left may: those left define kinds nothing else does.
func (c *Catalog) readDuplicates() {
	for {
		var left []*Deferred
		for _, d := range c.deferred {
			if !d.Done() {
				left = append(left, d)
			}
		}
		if len(left) == 0 {
			return
		}
		c.mu.RLock()
		known := make([]schema.GroupKind, 0, len(c.all))
		for gk := range c.all {
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
