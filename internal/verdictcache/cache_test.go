package verdictcache

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/version"
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
	big := Key([]byte("big"))
	c.Put(big, make([]byte, 1<<20/8+1))
	if _, ok := c.Get(big); ok {
		t.Fatal("an entry over an eighth of the bound was kept")
	}
	c.Put(big, make([]byte, 1<<20/8))
	if _, ok := c.Get(big); !ok {
		t.Fatal("an entry of an eighth of the bound was not kept")
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

// TestRelease: only a build whose version and commit name its code skips
// the executable's identity; one from a modified tree (which the go
// command stamps +dirty and vcs.modified, its commit clean) does not.
func TestRelease(t *testing.T) {
	clean := version.Info{Version: "v1.2.3", Commit: "0123abcd"}
	modified := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}}
	for _, c := range []struct {
		what string
		i    version.Info
		bi   *debug.BuildInfo
		want bool
	}{
		{"release", clean, nil, true},
		{"release, clean tree", clean, &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.modified", Value: "false"}}}, true},
		{"dev", version.Info{Version: "dev", Commit: "0123abcd"}, nil, false},
		{"no commit", version.Info{Version: "v1.2.3"}, nil, false},
		{"pseudo-version +dirty", version.Info{Version: "v0.0.0-20261124020437-a1a8678719da+dirty", Commit: "a1a8678719da"}, nil, false},
		{"vcs.modified", clean, modified, false},
		{"main module +dirty", clean, &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3+dirty"}}, false},
		{"commit dirty", version.Info{Version: "v1.2.3", Commit: "0123abcd-dirty"}, nil, false},
	} {
		if got := release(c.i, c.bi); got != c.want {
			t.Errorf("%s: release %v, want %v", c.what, got, c.want)
		}
	}
}

// TestIdentify: a build that is not a release is told by its executable;
// when that cannot be found it is not told at all, and the cache is off
// rather than shared with every other such build.
func TestIdentify(t *testing.T) {
	dev := version.Info{Version: "dev"}
	exe := filepath.Join(t.TempDir(), "exe")
	os.WriteFile(exe, []byte("one"), 0o755)
	found := func() (string, error) { return exe, nil }
	a, ok := identify(dev, nil, found)
	if !ok {
		t.Fatal("a dev build with its executable: not identified")
	}
	os.WriteFile(exe, []byte("rebuilt"), 0o755)
	if b, _ := identify(dev, nil, found); a == b {
		t.Error("a rebuilt dev executable: the same identity")
	}
	if _, ok := identify(dev, nil, func() (string, error) { return "", os.ErrNotExist }); ok {
		t.Error("a dev build without its executable: identified")
	}
	if _, ok := identify(dev, nil, func() (string, error) { return filepath.Join(exe, "gone"), nil }); ok {
		t.Error("a dev build whose executable is gone: identified")
	}
	if _, ok := identify(version.Info{Version: "v1.2.3", Commit: "0123abcd"}, nil, func() (string, error) { return "", os.ErrNotExist }); !ok {
		t.Error("a release needs no executable: not identified")
	}
}
