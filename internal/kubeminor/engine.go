package kubeminor

import (
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// EngineDirEnv names a directory of engines that is searched first (tests
// and CI build them there once).
const EngineDirEnv = "CRDLINT_ENGINE_DIR"

// EngineName is the file name of minor's engine: kubectl-crdlint built
// against that minor's libraries. It does not start with "kubectl-", so
// that kubectl does not list it as a plugin. The newest minor's is the
// main binary, kubectl-crdlint.
func EngineName(minor string) string {
	name := "crdlint-k8s" + minor
	if minor == Newest() {
		name = "kubectl-crdlint"
	}
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return name
}

// FindEngine returns the path of minor's engine: in $CRDLINT_ENGINE_DIR,
// next to the running executable (release archives and the container
// image carry every minor's there), or, when this binary runs from a
// clone (go run, go build without -trimpath), built from that clone into
// cacheDir once per source state, saying so on notices. Otherwise it says
// how to get one.
func FindEngine(minor, cacheDir string, notices io.Writer) (string, error) {
	name := EngineName(minor)
	var dirs []string
	if d := os.Getenv(EngineDirEnv); d != "" {
		dirs = append(dirs, d)
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err := filepath.EvalSymlinks(exe); err == nil {
			dirs = append(dirs, filepath.Dir(exe))
		}
	}
	own := ownBuild()
	var other error
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			// An engine of another build (a release's engines left beside
			// a newer kubectl-crdlint, or another clone's) would judge
			// with other code than the user runs, silently.
			if b := buildOf(p); differentBuilds(own, b) {
				if other == nil {
					other = fmt.Errorf("the Kubernetes %s engine %s is of another build of kubectl-crdlint (%s) than this one (%s): install the engines of the same release beside it", minor, p, b, own)
				}
				continue
			}
			return p, nil
		}
	}
	root, ok := sourceRoot()
	if !ok {
		if other != nil {
			return "", other
		}
		return "", fmt.Errorf("no engine for Kubernetes %s: %s is not next to this executable; install a release archive, which carries every supported minor's engine, or run from a clone (go run ./cmd/kubectl-crdlint), which builds it", minor, name)
	}
	if cacheDir == "" {
		if other != nil {
			return "", other
		}
		return "", fmt.Errorf("no engine for Kubernetes %s and no cache directory to build it into", minor)
	}
	return buildEngine(root, minor, cacheDir, notices)
}

// ownBuild is this binary's build (buildString); empty when it cannot tell (a
// test binary, a build without version control information).
var ownBuild = func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	return buildString(bi)
}

// buildOf is the build of the executable at path (buildString); empty when it
// cannot be read.
var buildOf = func(path string) string {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return ""
	}
	return buildString(bi)
}

// differentBuilds says two builds (buildString) are known to differ: by
// commit when both name one (a release's binaries, built with -trimpath,
// record no -ldflags version), else by version when both name only one;
// anything else is not compared.
func differentBuilds(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	_, ra, oka := strings.Cut(a, " ")
	_, rb, okb := strings.Cut(b, " ")
	switch {
	case oka && okb:
		return ra != rb
	case !oka && !okb:
		return a != b
	}
	return false
}

// buildString says which sources, at which release, a binary was built from:
// the commit and whether the tree was modified (what go build stamps,
// -trimpath or not), and the version: the module's (go install @VERSION)
// or the one -ldflags -X stamps (recorded only without -trimpath). The
// minors' engines of one build share it, whatever their libraries; empty
// when the binary does not say (built with -buildvcs=false, a test
// binary): then nothing is compared.
func buildString(bi *debug.BuildInfo) string {
	var version, rev, modified string
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		version = v
	}
	for _, st := range bi.Settings {
		switch st.Key {
		case "-ldflags":
			for _, f := range strings.Fields(st.Value) {
				if _, v, ok := strings.Cut(f, "/internal/version.Version="); ok {
					version = v
				}
			}
		case "vcs.revision":
			rev = st.Value
		case "vcs.modified":
			if st.Value == "true" {
				modified = "+modified"
			}
		}
	}
	if version == "" && rev == "" {
		return ""
	}
	if version == "" {
		version = "dev"
	}
	if rev == "" {
		return version
	}
	return version + " " + rev + modified
}

// sourceRoot is the clone this binary was built from, when it was built
// without -trimpath from a module whose source is still there.
func sourceRoot() (string, bool) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", false
	}
	root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !bytes.HasPrefix(mod, []byte("module github.com/kubectl-crdlint/kubectl-crdlint\n")) {
		return "", false
	}
	return root, true
}

// Modfile is the go.mod (with its go.sum beside it) minor's engine is
// built with, relative to the module root.
func Modfile(minor string) string {
	return filepath.Join("hack", "minors", "k8s"+minor+".mod")
}

// BuildArgs are the arguments of go that build minor's engine from the
// module root into out.
func BuildArgs(minor, out string) []string {
	r, _ := Lookup(minor)
	args := []string{"build", "-trimpath"}
	if r.Tag() != "" {
		args = append(args, "-modfile="+Modfile(minor), "-tags="+r.Tag())
	}
	return append(args, "-o", out, "./cmd/kubectl-crdlint")
}

// buildEngine builds minor's engine from the clone at root into
// cacheDir/<minor>-<digest of the sources>, unless it is there already.
func buildEngine(root, minor, cacheDir string, notices io.Writer) (string, error) {
	key, err := sourceKey(root, minor)
	if err != nil {
		return "", fmt.Errorf("no engine for Kubernetes %s: reading the sources to build it: %v", minor, err)
	}
	dir := filepath.Join(cacheDir, minor+"-"+key)
	out := filepath.Join(dir, EngineName(minor))
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no engine for Kubernetes %s: building it from this clone needs go on PATH", minor)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("no engine for Kubernetes %s: %v", minor, err)
	}
	fmt.Fprintf(notices, "building the Kubernetes %s engine from %s (once for these sources; a few minutes) into %s\n", minor, root, dir)
	tmp := out + ".tmp"
	cmd := exec.Command(gobin, BuildArgs(minor, tmp)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 && len(msg) > 2000 {
			msg = msg[i+1:]
		}
		return "", fmt.Errorf("building the Kubernetes %s engine: %v: %s", minor, err, strings.ReplaceAll(msg, "\n", "; "))
	}
	if err := os.Rename(tmp, out); err != nil {
		return "", fmt.Errorf("building the Kubernetes %s engine: %v", minor, err)
	}
	return out, nil
}

// sourceKey digests what the engine is built from: the minor's modfile
// and go.sum and every non-test file under cmd, internal and pkg (testdata and
// hidden directories left out), so that an edit builds a new engine.
func sourceKey(root, minor string) (string, error) {
	h := sha256.New()
	add := func(rel string) error {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		h.Write(b)
		return nil
	}
	mod := Modfile(minor)
	for _, f := range []string{mod, strings.TrimSuffix(mod, ".mod") + ".sum"} {
		if err := add(f); err != nil {
			return "", err
		}
	}
	for _, top := range []string{"cmd", "internal", "pkg"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			// Embedded files (schemas, rule pages) build into it too.
			if d.IsDir() || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			return add(rel)
		})
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
