package check

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"io"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/cachedir"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/verdictcache"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// openCache opens the cache of verdicts in the cache directory dir
// ("": the default one), or nil (off) when there is no usable directory
// (or one other users can write to): the cache only saves work, so a run
// without one is the same run. A directory refused for its permissions
// is said on notices: every run would otherwise be a cold one, unseen.
func openCache(dir string, notices io.Writer) *verdictcache.Cache {
	root, err := cachedir.Resolve(dir)
	if err != nil {
		return nil
	}
	dir, err = cachedir.Sub(root, cachedir.Verdicts)
	if err != nil {
		return nil
	}
	// Entries are trusted: in a directory another user can write to,
	// they could be planted.
	if !cachedir.Private(dir) {
		fmt.Fprintf(notices, "warning: verdict cache not used: %s can be written by other users (chmod go-w %s to use it)\n", dir, dir)
		return nil
	}
	return verdictcache.Open(dir, verdictcache.DefaultMaxBytes)
}

// lintOptionsKey is what of the linter's options a CRD's findings depend
// on. What the run applies after linting (the review: rules turned off,
// the configuration's severities, inline suppressions, the baseline) is
// not: cached findings go through it as computed ones do.
func lintOptionsKey(v fieldvalidation.Directive) []byte {
	return fmt.Appendf(nil, "validate=%s", v)
}

// crdRecord is a file's cached CRD verdicts: the findings of its CRD
// documents, and whether the server rejects each decoded CRD (Warn,
// Strict), which custom resource lookups ask.
type crdRecord struct {
	Findings []report.Finding
	Rejected [][2]bool
}

// crdFindings lints the CRD documents of one file, or takes what an
// earlier run found for the same file (its name and content) with the
// same build and options. data is nil for a file read a document at a
// time, which is not cached.
func crdFindings(l *lint.Linter, cache *verdictcache.Cache, opts []byte, name string, data []byte, found []crd.Found) []report.Finding {
	var key string
	defs := 0
	for _, fd := range found {
		if fd.Def != nil {
			defs++
		}
	}
	if cache != nil && data != nil {
		key = verdictcache.Key([]byte("crd-file"), opts, []byte(name), data)
		if body, ok := cache.Get(key); ok {
			var rec crdRecord
			if gob.NewDecoder(bytes.NewReader(body)).Decode(&rec) == nil && len(rec.Rejected) == defs {
				k := 0
				for _, fd := range found {
					if fd.Def != nil {
						fd.Def.Judged(rec.Rejected[k][0], rec.Rejected[k][1])
						k++
					}
				}
				return rec.Findings
			}
		}
	}
	var out []report.Finding
	for _, fd := range found {
		out = append(out, l.CRD(fd.Doc, fd.Def)...)
	}
	if key != "" {
		rec := crdRecord{Findings: out}
		for _, fd := range found {
			if fd.Def != nil {
				rec.Rejected = append(rec.Rejected, [2]bool{fd.Def.Rejected(false), fd.Def.Rejected(true)})
			}
		}
		var buf bytes.Buffer
		if gob.NewEncoder(&buf).Encode(&rec) == nil {
			cache.Put(key, buf.Bytes())
		}
	}
	return out
}

// crdAnswers keeps, for the CRDs of --crd files, whether the server
// rejects each (Warn, Strict) between runs, keyed by the build and the
// file's content: a run whose custom resources need a CRD an earlier run
// judged does not validate it again.
type crdAnswers struct{ cache *verdictcache.Cache }

type answersRecord struct {
	Judged   []bool
	Rejected [][2]bool
}

// AnswersKey names the answers of a --crd file's CRDs by the build and
// the file's content.
func (a crdAnswers) AnswersKey(data []byte) string {
	return verdictcache.Key([]byte("crd-answers"), data)
}

// Recall marks defs judged as an earlier run found them, and says how
// many it knew.
func (a crdAnswers) Recall(key string, defs []*crd.Definition) (known int) {
	body, ok := a.cache.Get(key)
	if !ok {
		return 0
	}
	var rec answersRecord
	if gob.NewDecoder(bytes.NewReader(body)).Decode(&rec) == nil && len(rec.Judged) == len(defs) && len(rec.Rejected) == len(defs) {
		for i, d := range defs {
			if rec.Judged[i] {
				d.Judged(rec.Rejected[i][0], rec.Rejected[i][1])
				known++
			}
		}
	}
	return known
}

// Remember keeps what the run knows of defs when it knows more than the
// known that Recall found.
func (a crdAnswers) Remember(key string, defs []*crd.Definition, known int) {
	rec := answersRecord{Judged: make([]bool, len(defs)), Rejected: make([][2]bool, len(defs))}
	n := 0
	for i, d := range defs {
		judged, warn, strict := d.Answer()
		rec.Judged[i], rec.Rejected[i] = judged, [2]bool{warn, strict}
		if judged {
			n++
		}
	}
	if n <= known {
		return // nothing learnt
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(&rec) == nil {
		a.cache.Put(key, buf.Bytes())
	}
}

// IndexKey names a --crd file's index by the file's name (which its
// CRDs' sources quote) and content.
func (a crdAnswers) IndexKey(name string, data []byte) string {
	return verdictcache.Key([]byte("crd-index"), []byte(name), data)
}

// Index is what an earlier run kept of what a --crd file defines, or nil.
func (a crdAnswers) Index(key string) *crd.Index {
	body, ok := a.cache.Get(key)
	if !ok {
		return nil
	}
	var x crd.Index
	if gob.NewDecoder(bytes.NewReader(body)).Decode(&x) != nil {
		return nil
	}
	return &x
}

// KeepIndex keeps what a --crd file defines, for the next run.
func (a crdAnswers) KeepIndex(key string, x *crd.Index) {
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(x) == nil {
		a.cache.Put(key, buf.Bytes())
	}
}

// crdsKey is where a --crd file's CRDs are kept, after its index key.
func crdsKey(indexKey string) string {
	return verdictcache.Key([]byte("crd-json"), []byte(indexKey))
}

type storedRecord struct{ CRDs []crd.Stored }

// CRDs is what an earlier run kept of a --crd file's CRDs (crd.Cache).
func (a crdAnswers) CRDs(indexKey string) ([]crd.Stored, bool) {
	body, ok := a.cache.Get(crdsKey(indexKey))
	if !ok {
		return nil, false
	}
	var rec storedRecord
	if gob.NewDecoder(bytes.NewReader(body)).Decode(&rec) != nil {
		return nil, false
	}
	return rec.CRDs, true
}

// KeepCRDs keeps a --crd file's CRDs for the next run that reads it.
func (a crdAnswers) KeepCRDs(indexKey string, stored []crd.Stored) {
	var buf bytes.Buffer
	n := 0
	for _, s := range stored {
		n += len(s.JSON) + len(s.Source) + 256
	}
	buf.Grow(n)
	if gob.NewEncoder(&buf).Encode(&storedRecord{CRDs: stored}) == nil {
		a.cache.Put(crdsKey(indexKey), buf.Bytes())
	}
}
