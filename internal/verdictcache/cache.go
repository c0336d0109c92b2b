// Package verdictcache keeps what a run computed about inputs that did not
// change, on disk, between runs: an entry is found by a key that digests
// everything its content depends on, so that an entry is either right or
// absent. Entries are written atomically (a temporary file renamed into
// place), so concurrent runs at worst compute the same entry twice; an
// entry that is damaged (truncated, corrupted, from another format) fails
// its checksum and is treated as missing. The directory is bounded in
// size: past the bound, the least recently used entries go.
package verdictcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/version"
)

// DefaultMaxBytes bounds the cache directory.
const DefaultMaxBytes = 256 << 20

// magic starts every entry: a format change makes old entries misses.
var magic = []byte("kubectl-crdlint verdict 1\n")

// Cache is a directory of entries. A nil *Cache is a cache that is off:
// every Get misses and Put does nothing.
type Cache struct {
	dir      string
	maxBytes int64

	mu      sync.Mutex
	written bool
}

// Open uses dir (created by the caller) bounded to maxBytes. It returns
// nil (a cache that is off) when the build cannot be told from another
// (Tool): entries it wrote could be read by a build with other code.
func Open(dir string, maxBytes int64) *Cache {
	if _, ok := ident(); !ok {
		return nil
	}
	return &Cache{dir: dir, maxBytes: maxBytes}
}

// Key digests the parts of a key, each length-prefixed so that no two
// different lists of parts give the same key, after the tool's identity
// (Tool): a different build never reads another's entries.
func Key(parts ...[]byte) string {
	id, _ := ident()
	h := sha256.New()
	for _, p := range append([][]byte{[]byte(id)}, parts...) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

var ident = sync.OnceValues(func() (string, bool) {
	bi, _ := debug.ReadBuildInfo()
	return identify(version.Get(), bi, os.Executable)
})

// Tool names the build: its version and commit and, for a build that is
// not a release (version dev, or built from a modified tree), the
// executable's size and modification time, so that a rebuilt binary
// does not trust what an older one computed.
func Tool() string {
	id, _ := ident()
	return id
}

// identify is Tool, and whether it tells the build from any other: not
// for a build that is not a release whose executable cannot be found.
func identify(i version.Info, bi *debug.BuildInfo, executable func() (string, error)) (string, bool) {
	id := strings.Join([]string{i.Version, i.Commit, i.Date, i.GoVersion, i.Platform}, "|")
	if release(i, bi) {
		return id, true
	}
	exe, err := executable()
	if err != nil {
		return id, false
	}
	st, err := os.Stat(exe)
	if err != nil {
		return id, false
	}
	return id + "|" + exe + "|" + st.ModTime().UTC().Format(time.RFC3339Nano) + "|" + strconv.FormatInt(st.Size(), 10), true
}

// release tells whether a build's version and commit name its code: not
// a dev build, nor one from a modified tree. The go command stamps a build
// from a modified checkout with vcs.modified=true and a main module
// version ending in +dirty, while its commit is the clean revision: two
// such builds from one commit, with different edits, have the same
// version and commit.
func release(i version.Info, bi *debug.BuildInfo) bool {
	if i.Version == "dev" || i.Version == "" || i.Commit == "" ||
		strings.Contains(i.Version, "dirty") || strings.Contains(i.Version, "(devel)") || strings.Contains(i.Commit, "dirty") {
		return false
	}
	if bi != nil {
		if strings.Contains(bi.Main.Version, "dirty") {
			return false
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.modified" && s.Value == "true" {
				return false
			}
		}
	}
	return true
}

func (c *Cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key)
}

// Get returns the entry of key, or false when there is none or it is
// damaged (which is then removed).
func (c *Cache) Get(key string) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	p := c.path(key)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	if len(data) < len(magic)+sha256.Size || !bytes.Equal(data[:len(magic)], magic) {
		os.Remove(p)
		return nil, false
	}
	sum, body := data[len(magic):len(magic)+sha256.Size], data[len(magic)+sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		os.Remove(p)
		return nil, false
	}
	// Used now: eviction takes the least recently used first.
	now := time.Now()
	_ = os.Chtimes(p, now, now)
	return body, true
}

// Put stores body as the entry of key, unless it is over an eighth of the
// bound. Failures are ignored: the cache only ever saves work.
func (c *Cache) Put(key string, body []byte) {
	if c == nil || int64(len(body)) > c.maxBytes/8 {
		// An entry that large (a --crd file of hundreds of CRDs as JSON)
		// would push most others out at the next trim.
		return
	}
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return
	}
	sum := sha256.Sum256(body)
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return
	}
	// Two writes rather than one of a joined copy: a file's CRDs as
	// JSON are megabytes.
	_, werr := f.Write(append(bytes.Clone(magic), sum[:]...))
	if werr == nil {
		_, werr = f.Write(body)
	}
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), p) != nil {
		os.Remove(f.Name())
		return
	}
	c.mu.Lock()
	c.written = true
	c.mu.Unlock()
}

// Trim bounds the directory after a run that wrote to it: when it holds
// more than its bound, the least recently used entries go until it holds
// three quarters of it. Temporary files older than an hour (a run that
// died mid-write) go too.
func (c *Cache) Trim() {
	if c == nil {
		return
	}
	c.mu.Lock()
	written := c.written
	c.mu.Unlock()
	if !written {
		return
	}
	type entry struct {
		path string
		size int64
		used time.Time
	}
	var entries []entry
	var total int64
	subs, _ := os.ReadDir(c.dir)
	for _, s := range subs {
		if !s.IsDir() {
			continue
		}
		files, _ := os.ReadDir(filepath.Join(c.dir, s.Name()))
		for _, f := range files {
			info, err := f.Info()
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			p := filepath.Join(c.dir, s.Name(), f.Name())
			if strings.HasPrefix(f.Name(), ".tmp-") {
				if time.Since(info.ModTime()) > time.Hour {
					os.Remove(p)
				}
				continue
			}
			entries = append(entries, entry{p, info.Size(), info.ModTime()})
			total += info.Size()
		}
	}
	if total <= c.maxBytes {
		return
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].used.Before(entries[j].used) })
	for _, e := range entries {
		if total <= c.maxBytes*3/4 {
			break
		}
		if os.Remove(e.path) == nil {
			total -= e.size
		}
	}
}
