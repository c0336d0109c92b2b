package check

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/verdictcache"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// crFiles keeps the findings of files without CRDs (custom resources,
// mostly) between runs, so that an unchanged file whose CRDs did not
// change is neither parsed nor validated again.
//
// An entry is keyed by everything a file's raw findings depend on besides
// the CRDs: the build, the linter's options, --max-document-size (how
// the file is cut), the file's name (which findings carry) and content.
// The CRDs cannot be in the key — the catalogue is only known once the
// run has read every CRD — so the entry records, for every kind its
// documents name (with its version), the identity of the CRD that answered
// (crd.Catalog.IdentityAt the file, "none" included: which CRD judges
// may depend on where the file is and on the versions CRDs serve), and is used only when this run's
// catalogue answers every one of them the same there.
//
// What is cached is what doc computed before the run's own reading of
// the findings: severities, suppressions (inline ones are scanned again
// from the cached documents' text), Helm and kustomize mapping and the
// baseline are applied to a replayed file as to a judged one.
type crFiles struct {
	cache *verdictcache.Cache
	cat   *crd.Catalog
	opts  []byte
}

// crFileRecord is a file's cached verdict: each document's result in
// stream order, and the CRD identities it was judged against.
type crFileRecord struct {
	Lookups []crLookup
	Docs    []crDoc
}

type crLookup struct {
	Group, Version, Kind, ID string
}

type crCount struct {
	Key string
	N   int
}

func countsOf(m map[string]int) []crCount {
	out := make([]crCount, 0, len(m))
	for k, n := range m {
		out = append(out, crCount{k, n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func countsMap(cs []crCount) map[string]int {
	if len(cs) == 0 {
		return nil
	}
	m := make(map[string]int, len(cs))
	for _, c := range cs {
		m[c.Key] = c.N
	}
	return m
}

// sum is the summary doc gave.
func (d *crDoc) sum() report.Summary {
	s := d.Sum
	s.NotValidated, s.SkippedBy = countsMap(d.NotValidated), countsMap(d.SkippedBy)
	return s
}

// crDoc is what doc computed from one document of the stream before
// review: the linter's findings (counted from the document) and summary,
// and where the document's text is (for its suppressions and Helm
// sources): data[Off:Off+Len] of the file's content when InData, else
// Text.
type crDoc struct {
	Findings []report.Finding
	// Sum is the summary without its maps, which are NotValidated and
	// SkippedBy, sorted: gob writes maps in random order, and an entry
	// written again must be the same bytes.
	Sum                     report.Summary
	NotValidated, SkippedBy []crCount
	Count                   int
	Line                    int
	HasText                 bool
	InData                  bool
	Off, Len                int
	Text                    []byte
}

// crPending is the record a judged file builds, in take's order, until
// Done stores it.
type crPending struct {
	key    string
	name   string // the file's, where its custom resources are
	data   []byte
	cursor int
	rec    crFileRecord
	kinds  map[schema.GroupVersionKind]bool
}

// crOptionsKey is what of the options a file's findings depend on beyond
// the linter's: the missing-CRD policy, the size bound, and the
// configuration kinds, which decide what is a custom resource.
func crOptionsKey(lintOpts []byte, missing lint.Missing, maxDoc int, config *crd.ConfigKinds) []byte {
	return fmt.Appendf(bytes.Clone(lintOpts), " missing=%q max-document-size=%d config-kinds=%q", missing, maxDoc, config.String())
}

func (c *crFiles) key(name string, data []byte) string {
	return verdictcache.Key([]byte("cr-file"), c.opts, []byte(name), data)
}

// wholeKey is the key of a file judged whole (Checker.whole): its record
// is one crDoc, of the file's documents counted from the file's first,
// which a replay of documents one by one must never take.
func (c *crFiles) wholeKey(name string, data []byte) string {
	return verdictcache.Key([]byte("cr-whole-file"), c.opts, []byte(name), data)
}

// has reports whether key has a record that decodes, whatever the CRDs:
// for key(name, data), that the content is a file without CRDs, since
// only those are judged a document at a time and stored there.
func (c *crFiles) has(key string) bool {
	body, ok := c.cache.Get(key)
	if !ok {
		return false
	}
	var rec crFileRecord
	return gob.NewDecoder(bytes.NewReader(body)).Decode(&rec) == nil
}

// get returns the record of a file's content when this run's catalogue
// still answers every kind it looked up with the same CRD for a custom
// resource in that file (name). Anything damaged or doubtful is a miss:
// the file is judged again.
func (c *crFiles) get(key, name string, data []byte) (*crFileRecord, bool) {
	body, ok := c.cache.Get(key)
	if !ok {
		return nil, false
	}
	var rec crFileRecord
	if gob.NewDecoder(bytes.NewReader(body)).Decode(&rec) != nil {
		return nil, false
	}
	for _, l := range rec.Lookups {
		id, ok := c.cat.IdentityAt(schema.GroupVersionKind{Group: l.Group, Version: l.Version, Kind: l.Kind}, name)
		if !ok || id != l.ID {
			return nil, false
		}
	}
	for _, d := range rec.Docs {
		// Off+Len could overflow: compare without adding.
		if d.InData && (d.Off < 0 || d.Len < 0 || d.Off > len(data) || d.Len > len(data)-d.Off) {
			return nil, false
		}
	}
	return &rec, true
}

// text is a replayed document's text as doc saw it: nil when it had none
// (an empty document, or one over the size bound), which reviews
// differently from an empty one.
func (d *crDoc) text(data []byte) []byte {
	if !d.HasText {
		return nil
	}
	var t []byte
	if d.InData {
		t = data[d.Off : d.Off+d.Len]
	} else {
		t = d.Text
	}
	if t == nil {
		t = []byte{}
	}
	return t
}

// searchWindow is how far past the previous document's end add looks for
// the next document's text: a separator and a few comments (more is
// stored as text, not found by scanning: a miss costs this much).
const searchWindow = 4 << 10

// add records a judged document's result, in stream order.
func (p *crPending) add(d docResult) {
	// The server's validation reports some errors in map order, and an
	// entry written again must be the same bytes; every output is sorted
	// the same way (report.Sort).
	report.Sort(d.raw)
	doc := crDoc{Findings: d.raw, Sum: d.sum, Count: d.count, Line: d.line, HasText: d.text != nil}
	doc.NotValidated, doc.SkippedBy = countsOf(d.sum.NotValidated), countsOf(d.sum.SkippedBy)
	doc.Sum.NotValidated, doc.Sum.SkippedBy = nil, nil
	if d.text != nil {
		// A document's text follows the previous one's after at most a
		// separator and comments: look there only. Text that is not the
		// file's bytes (CRLF lines, which the reader normalises) is then
		// not searched for through the rest of the file for every
		// document, which made a 40,000-document CRLF file take minutes.
		window := p.data[p.cursor:min(len(p.data), p.cursor+len(d.text)+searchWindow)]
		if j := bytes.Index(window, d.text); j >= 0 {
			doc.InData, doc.Off, doc.Len = true, p.cursor+j, len(d.text)
			p.cursor = doc.Off + doc.Len
		} else {
			doc.Text = bytes.Clone(d.text)
		}
	}
	p.rec.Docs = append(p.rec.Docs, doc)
	for _, gk := range d.kinds {
		p.kinds[gk] = true
	}
}

// put stores a judged file's record with the identities of the CRDs that
// answered its kinds; a kind whose answer cannot be named (a CRD without
// JSON) leaves the file uncached.
func (c *crFiles) put(p *crPending) {
	kinds := make([]schema.GroupVersionKind, 0, len(p.kinds))
	for gvk := range p.kinds {
		kinds = append(kinds, gvk)
	}
	sort.Slice(kinds, func(i, j int) bool {
		a, b := kinds[i], kinds[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Version < b.Version
	})
	for _, gvk := range kinds {
		id, ok := c.cat.IdentityAt(gvk, p.name)
		if !ok {
			return
		}
		p.rec.Lookups = append(p.rec.Lookups, crLookup{gvk.Group, gvk.Version, gvk.Kind, id})
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(&p.rec) == nil {
		c.cache.Put(p.key, buf.Bytes())
	}
}

// kindsOf are the kinds and versions a parsed document stream may look
// up: every document's, a superset of those the linter asks the
// catalogue for (an extra one can only make an entry miss). The version
// counts: which CRD judges depends on the versions it serves.
func kindsOf(f *source.File) []schema.GroupVersionKind {
	out := make([]schema.GroupVersionKind, 0, len(f.Documents))
	for _, d := range f.Documents {
		out = append(out, crd.GVK(d))
	}
	return out
}
