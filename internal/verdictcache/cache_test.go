package verdictcache

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestGetPut(t *testing.T) {
	c := Open(t.TempDir(), 1<<20)
	k := Key([]byte("a"), []byte("b"))
	if k == Key([]byte("ab")) || k == Key([]byte("a"), []byte("b"), nil) {
		t.Fatal("keys of different parts collide")
	}
	if _, ok := c.Get(k); ok {
		t.Fatal("hit in an empty cache")
	}
	c.Put(k, []byte("body"))
	if got, ok := c.Get(k); !ok || string(got) != "body" {
		t.Fatalf("got %q, %v", got, ok)
	}
	var off *Cache
	off.Put(k, []byte("x"))
	if _, ok := off.Get(k); ok {
		t.Fatal("a nil cache hit")
	}
	off.Trim()
}

// TestTrim: past its bound the directory loses its least recently used
// entries down to three quarters of the bound.
func TestTrim(t *testing.T) {
	dir := t.TempDir()
	c := Open(dir, 10_000)
	body := bytes.Repeat([]byte("x"), 1000)
	var keys []string
	for i := range 30 {
		k := Key(fmt.Appendf(nil, "%d", i))
		keys = append(keys, k)
		c.Put(k, body)
		// Distinct use times, oldest first.
		at := time.Now().Add(time.Duration(i-100) * time.Minute)
		os.Chtimes(c.path(k), at, at)
	}
	c.Trim()
	var total int64
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			info, _ := d.Info()
			total += info.Size()
		}
		return nil
	})
	if total > 7_500 {
		t.Fatalf("%d bytes left, want at most 7500", total)
	}
	if _, ok := c.Get(keys[len(keys)-1]); !ok {
		t.Error("the most recently used entry went")
	}
	if _, ok := c.Get(keys[0]); ok {
		t.Error("the least recently used entry stayed")
	}
}
