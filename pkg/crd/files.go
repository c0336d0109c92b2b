package crd

import (
	"bytes"
	"context"
	"sync"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/parallel"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// File is a file of CRDs the catalogue reads itself, when first needed
// (DeferFiles): its name, and its content when it was given rather than
// to be read from disk (a URL's, a pipe's; nil: read Name).
type File struct {
	Name string
	Data []byte
}

// bytes is the file's content: what was given, or the file now.
func (f File) bytes() ([]byte, error) {
	if f.Data != nil {
		return f.Data, nil
	}
	return source.ReadBytes(f.Name)
}

// Cache keeps, between runs, what a catalogue learns of its deferred
// files (pkg/check keeps it in the verdict cache):
//   - a file's Index, under IndexKey's key of its name and content, so
//     that a run reads only the files whose CRDs it compiles or judges
//     (Index returns nil when it knows none);
//   - its CRDs as JSON, under the same key: a file read again because a
//     lookup needs one of its kinds is then decoded without being parsed,
//     which is about half of reading it (CRDs says false when it has none);
//   - whether the server rejects each of its CRDs (Definition.Rejected),
//     under AnswersKey's key of its content: Recall marks defs (the
//     file's CRDs, in order) judged as far as it knows and says how many
//     it knew; Catalog.Remember tells Remember what the run knows of them,
//     and known, so that nothing is written when nothing was learnt.
type Cache interface {
	IndexKey(name string, data []byte) string
	Index(key string) *Index
	KeepIndex(key string, x *Index)
	CRDs(indexKey string) ([]Stored, bool)
	KeepCRDs(indexKey string, stored []Stored)
	AnswersKey(data []byte) string
	Recall(key string, defs []*Definition) (known int)
	Remember(key string, defs []*Definition, known int)
}

// Marker is the text every CRD document contains: a file without it
// holds no CRD, and need not be parsed to know.
var Marker = []byte("CustomResourceDefinition")

// files are the files DeferFiles gave, read when the catalogue is first
// read (scan).
type files struct {
	layer Layer
	files []File
	// cache, when set, keeps what the run learns of them (SetCache).
	cache Cache

	// deferred are the files with the CRD marker, in the order given
	// (nil for the others), and err what went wrong reading them.
	deferred []*Deferred
	err      error

	mu       sync.Mutex
	recalled []recalled
}

// recalled is what Cache.Recall knew of a file's CRDs, told to
// Cache.Remember when the run is done (Remember).
type recalled struct {
	key   string
	known int
	defs  []*Definition
}

// SetCache keeps what the run learns of the deferred files in x. Call it
// before any read.
func (c *Catalog) SetCache(x Cache) { c.files.cache = x }

// DeferFiles adds files of CRDs of a layer, in order, read by the
// catalogue itself: none is read until the catalogue is first read
// (Lookup, Entry, Entries, Len, Identity, Ready), when each is read once
// for the CRD marker and what it defines (its Index, kept by the Cache
// from a run that read the same content, or else the kinds its text may
// define: ScanHint); it is parsed and decoded (Defer) when a lookup may
// need it. Call it before any read.
func (c *Catalog) DeferFiles(layer Layer, fs []File) {
	c.files.layer, c.files.files = layer, fs
}

// Deferred is, once the catalogue is ready, the deferred files of
// DeferFiles in the order given (nil for one without the CRD marker,
// which holds no CRD), and what went wrong reading them.
func (c *Catalog) Deferred() ([]*Deferred, error) {
	c.filled()
	return c.files.deferred, c.files.err
}

// scan reads every file of DeferFiles once and defers those with the
// marker.
func (c *Catalog) scan() {
	fs := &c.files
	if len(fs.files) == 0 {
		return
	}
	lazies := make([]*lazyFile, len(fs.files))
	cache := fs.cache
	err := parallel.Run(context.Background(), len(fs.files), func(i int) error {
		f := fs.files[i]
		data, err := f.bytes()
		if err != nil {
			return err
		}
		// The marker and the hint are looked for in the text kubectl
		// reads of a file with a byte order mark: a UTF-16 file's bytes
		// hold neither (its CRDs are applied); other files hold them as
		// they are.
		text := source.MarkedText(data)
		if !bytes.Contains(text, Marker) {
			return nil
		}
		// key is that of what Load read: a file changed since this
		// first read is kept under its new content's key.
		var key string
		l := &lazyFile{Load: func() ([]Loaded, error) { return c.load(f, &key) }}
		if cache != nil {
			l.Index = cache.Index(cache.IndexKey(f.Name, data))
			l.Keep = func(x *Index) { cache.KeepIndex(key, x) }
		}
		if l.Index == nil {
			l.Hint = ScanHint(text)
		}
		lazies[i] = l
		return nil
	})
	if err != nil {
		fs.err = err
		return
	}
	var files []lazyFile
	for _, l := range lazies {
		if l != nil {
			files = append(files, *l)
		}
	}
	ds := c.deferLazy(fs.layer, files)
	fs.deferred = make([]*Deferred, len(fs.files))
	k := 0
	for i, l := range lazies {
		if l != nil {
			fs.deferred[i] = ds[k]
			k++
		}
	}
}

// load reads a deferred file's CRDs in document order, decoded but not
// shed (the catalogue sheds them, but for those a lookup is about to
// compile): from what the cache kept of the same name and content (under
// *key, set here) when it has it, else parsed (and kept).
func (c *Catalog) load(f File, key *string) ([]Loaded, error) {
	data, err := f.bytes()
	if err != nil {
		return nil, err
	}
	cache := c.files.cache
	if cache == nil {
		return parseCRDs(f.Name, data), nil
	}
	*key = cache.IndexKey(f.Name, data)
	var ls []Loaded
	if stored, ok := cache.CRDs(*key); ok {
		ls = Restore(stored)
	} else {
		found := FindCRDs(source.Parse(f.Name, data))
		cache.KeepCRDs(*key, StoredOf(found))
		ls = loadedOf(found)
	}
	if len(ls) > 0 {
		defs := make([]*Definition, len(ls))
		for i, l := range ls {
			defs[i] = l.Def
		}
		key := cache.AnswersKey(data)
		known := cache.Recall(key, defs)
		c.files.mu.Lock()
		c.files.recalled = append(c.files.recalled, recalled{key: key, known: known, defs: defs})
		c.files.mu.Unlock()
	}
	return ls, nil
}

// parseCRDs is the CRDs of a file's text, parsed.
func parseCRDs(name string, data []byte) []Loaded {
	return loadedOf(FindCRDs(source.Parse(name, data)))
}

// loadedOf is the found CRDs that have a Definition, in order.
func loadedOf(found []Found) []Loaded {
	var out []Loaded
	for _, fd := range found {
		if fd.Def != nil {
			out = append(out, Loaded{Def: fd.Def, Source: fd.Source()})
		}
	}
	return out
}

// Remember tells the cache what the run knows of the CRDs of the files
// read since the last call (Cache.Remember).
func (c *Catalog) Remember() {
	fs := &c.files
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, r := range fs.recalled {
		fs.cache.Remember(r.key, r.defs, r.known)
	}
	fs.recalled = nil
}
