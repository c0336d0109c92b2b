package check

import (
	"bytes"
	"encoding/gob"
	"math"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/verdictcache"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
)

// TestFileCacheBadOffsets: an entry whose checksum holds but whose
// document offsets point outside the file (written by another program,
// or offsets whose sum overflows) is a miss, not a panic when replayed.
func TestFileCacheBadOffsets(t *testing.T) {
	c := &crFiles{cache: verdictcache.Open(t.TempDir(), 1<<20), cat: crd.NewCatalog(false)}
	data := []byte("apiVersion: v1\nkind: ConfigMap\n")
	for _, d := range []crDoc{
		{HasText: true, InData: true, Off: math.MaxInt, Len: 2},
		{HasText: true, InData: true, Off: 2, Len: math.MaxInt},
		{HasText: true, InData: true, Off: len(data) + 1, Len: 0},
		{HasText: true, InData: true, Off: -1, Len: 1},
		{HasText: true, InData: true, Off: 1, Len: len(data)},
	} {
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(&crFileRecord{Docs: []crDoc{d}}); err != nil {
			t.Fatal(err)
		}
		key := c.key("f.yaml", data)
		c.cache.Put(key, buf.Bytes())
		if rec, ok := c.get(key, "f.yaml", data); ok {
			for i := range rec.Docs {
				rec.Docs[i].text(data) // would panic
			}
			t.Errorf("offset %d, length %d in a %d-byte file: a hit", d.Off, d.Len, len(data))
		}
	}
	// In range: a hit.
	var buf bytes.Buffer
	gob.NewEncoder(&buf).Encode(&crFileRecord{Docs: []crDoc{{HasText: true, InData: true, Off: 1, Len: len(data) - 1}}})
	key := c.key("f.yaml", data)
	c.cache.Put(key, buf.Bytes())
	if _, ok := c.get(key, "f.yaml", data); !ok {
		t.Error("an entry with offsets in range: a miss")
	}
}
