package main

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
	yaml "go.yaml.in/yaml/v3"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/cachedir"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/remote"
)

// scriptCmds are the commands testdata/script/*.txtar have besides
// testscript's own:
//
//	exits CODE PROGRAM [ARGS...]   run like exec; fail unless it exits CODE
//	                               (exec only tells zero from non-zero)
//	unpack ARCHIVE [DIR]           extract a txtar archive (a fixture
//	                               repository shared with a package test)
//	precommit CODE HOOK FILE...    run a hook of .pre-commit-hooks.yaml as
//	                               pre-commit does, on the files of a commit
//	proxy                          an HTTP(S) proxy on loopback that counts
//	                               connections and serves none
//	proxied N                      fail unless the proxy saw N connections
//	cachecrd URL FILE              put FILE in $KUBECTL_CRDLINT_CACHE_DIR as
//	                               the copy of URL a fetch would have made
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"exits":     cmdExits,
	"unpack":    cmdUnpack,
	"precommit": cmdPrecommit,
	"proxy":     cmdProxy,
	"proxied":   cmdProxied,
	"cachecrd":  cmdCacheCRD,
}

// exitCode runs a program as exec does (its output then checked by
// stdout and stderr) and returns its exit code.
func exitCode(ts *testscript.TestScript, prog string, args ...string) int {
	err := ts.Exec(prog, args...)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	ts.Fatalf("%s: %v", prog, err)
	return -1
}

func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	if got := exitCode(ts, args[1], args[2:]...); got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

func cmdUnpack(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: unpack ARCHIVE [DIR]")
	}
	ar, err := txtar.ParseFile(ts.MkAbs(args[0]))
	ts.Check(err) // a missing fixture fails the script
	if len(ar.Files) == 0 {
		ts.Fatalf("%s holds no files", args[0])
	}
	dir := "."
	if len(args) == 2 {
		dir = args[1]
	}
	for _, f := range ar.Files {
		p := ts.MkAbs(filepath.Join(dir, filepath.FromSlash(f.Name)))
		ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
		ts.Check(os.WriteFile(p, f.Data, 0o644))
	}
}

// hook is an entry of .pre-commit-hooks.yaml, with the keys pre-commit
// requires (id, name, entry, language) and those that decide which files
// it is given and how.
type hook struct {
	ID            string   `yaml:"id"`
	Name          string   `yaml:"name"`
	Entry         string   `yaml:"entry"`
	Language      string   `yaml:"language"`
	Files         string   `yaml:"files"`
	Exclude       string   `yaml:"exclude"`
	Args          []string `yaml:"args"`
	PassFilenames *bool    `yaml:"pass_filenames"`
	AlwaysRun     bool     `yaml:"always_run"`
}

// cmdPrecommit runs hook HOOK of $REPO/.pre-commit-hooks.yaml as
// pre-commit runs it for a commit of FILE...: from the working directory
// (pre-commit's is the repository's root), on the files its files: and
// exclude: patterns select, entry then args then the file names; a hook
// that selects no file is skipped, as pre-commit skips it. pre-commit's
// patterns are Python regular expressions searched in each path; these
// hooks' use only what Go's regexp reads the same way.
func cmdPrecommit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: precommit CODE HOOK FILE...")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	data, err := os.ReadFile(filepath.Join(ts.Getenv("REPO"), ".pre-commit-hooks.yaml"))
	ts.Check(err)
	var hooks []hook
	ts.Check(yaml.Unmarshal(data, &hooks))
	var h *hook
	for i := range hooks {
		if hooks[i].ID == args[1] {
			h = &hooks[i]
		}
	}
	if h == nil {
		ts.Fatalf("no hook %q in .pre-commit-hooks.yaml", args[1])
	}
	if h.Name == "" || h.Entry == "" || h.Language == "" {
		ts.Fatalf("hook %s lacks name, entry or language, which pre-commit requires", h.ID)
	}
	if h.PassFilenames != nil && !*h.PassFilenames || h.AlwaysRun {
		ts.Fatalf("hook %s does not run on the changed files alone: this command simulates only that", h.ID)
	}
	files, err := regexp.Compile(h.Files)
	ts.Check(err)
	exclude := regexp.MustCompile(`^$`)
	if h.Exclude != "" {
		exclude, err = regexp.Compile(h.Exclude)
		ts.Check(err)
	}
	var selected []string
	for _, f := range args[2:] {
		if files.MatchString(f) && (h.Exclude == "" || !exclude.MatchString(f)) {
			selected = append(selected, f)
		}
	}
	if len(selected) == 0 {
		ts.Logf("%s: (no files to check) Skipped", h.Name)
		if want != 0 {
			ts.Fatalf("hook %s skipped (no file matches files: %s), want exit %d", h.ID, h.Files, want)
		}
		return
	}
	argv := append(append(strings.Fields(h.Entry), h.Args...), selected...)
	ts.Logf("%s: %s", h.Name, strings.Join(argv, " "))
	if got := exitCode(ts, argv[0], argv[1:]...); got != want {
		ts.Fatalf("hook %s exited %d, want %d", h.ID, got, want)
	}
}

// proxies are the proxies of running scripts, by script.
var proxies sync.Map // *testscript.TestScript -> *atomic.Int32

// cmdProxy points HTTPS_PROXY and HTTP_PROXY (both spellings) at a
// listener on loopback that counts the connections it accepts and closes
// them: a program run after it that makes an HTTP request through Go's
// default transport connects there, wherever the request is going.
func cmdProxy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: proxy")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	n := new(atomic.Int32)
	proxies.Store(ts, n)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	ts.Defer(func() {
		l.Close()
		proxies.Delete(ts)
	})
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"} {
		ts.Setenv(k, "http://"+l.Addr().String())
	}
	ts.Setenv("NO_PROXY", "")
	ts.Setenv("no_proxy", "")
}

func cmdProxied(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: proxied N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	v, ok := proxies.Load(ts)
	if !ok {
		ts.Fatalf("proxied: no proxy (run proxy first)")
	}
	if got := v.(*atomic.Int32).Load(); int(got) != want {
		ts.Fatalf("the proxy saw %d connections, want %d", got, want)
	}
}

// cmdCacheCRD seeds the cache with a URL's copy, where remote.Fetcher
// looks for it: scripts then show what a later run does with a fetched
// CRD (reuse it, offline) without a server the binary would trust.
// Fetching and caching themselves are tested in-process against an
// httptest TLS server (cmd.TestCRDsFromURLs).
func cmdCacheCRD(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cachecrd URL FILE")
	}
	root := ts.Getenv("KUBECTL_CRDLINT_CACHE_DIR")
	if root == "" {
		ts.Fatalf("cachecrd: set KUBECTL_CRDLINT_CACHE_DIR first")
	}
	src, err := remote.ParseSource(args[0])
	ts.Check(err)
	dir, err := cachedir.Sub(root, cachedir.CRDs)
	ts.Check(err)
	data, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	ts.Check(os.WriteFile((&remote.Fetcher{Dir: dir}).CachePath(src), data, 0o600))
}
