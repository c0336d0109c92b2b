//go:build unix

package limits

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	// The binary's sources: changing them invalidates cached results.
	_ "github.com/kubectl-crdlint/kubectl-crdlint/cmd/kubectl-crdlint/cmd"
)

const mib = 1 << 20

var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "crdlint-limits")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "kubectl-crdlint")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/kubectl-crdlint")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	code           int
	stdout, stderr string
	wall           time.Duration
	maxRSS         int64 // bytes
}

// run runs the binary in dir, killed after limit.
func run(t *testing.T, dir string, limit time.Duration, args ...string) result {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Dir = dir
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	start := time.Now()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(limit, func() { c.Process.Kill() })
	err := c.Wait()
	timer.Stop()
	r := result{stdout: out.String(), stderr: errOut.String(), wall: time.Since(start)}
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = int64(ru.Maxrss) * 1024 // kilobytes on Linux
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if r.wall >= limit {
		t.Fatalf("crdlint %s: still running after %v (killed)", strings.Join(args, " "), limit)
	}
	return r
}

// within checks a run's bounds, exit code, and that it printed no stack.
func (r result) within(t *testing.T, wall time.Duration, rss int64, code int) {
	t.Helper()
	t.Logf("exit %d in %v, peak RSS %d MiB", r.code, r.wall.Round(time.Millisecond), r.maxRSS/mib)
	if r.wall > wall {
		t.Errorf("took %v, want under %v", r.wall, wall)
	}
	if r.maxRSS > rss {
		t.Errorf("peak RSS %d MiB, want under %d MiB", r.maxRSS/mib, rss/mib)
	}
	if r.code != code {
		t.Errorf("exit %d, want %d\nstdout: %.2000s\nstderr: %.2000s", r.code, code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
		t.Errorf("a stack trace on stderr:\n%.2000s", r.stderr)
	}
}

func write(t *testing.T, path string, fill func(w io.Writer)) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fill(f)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, maximum: 10}
              note: {type: string}
`

// TestHostileInputs: each input the server or kubectl would refuse is a
// finding at its place (exit 1), quickly and in little memory.
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		fill func(w io.Writer)
		want string // in stdout
	}{{
		name: "alias fan-out",
		// A 1 MB string aliased 10,000 times: 10 GB once expanded.
		fill: func(w io.Writer) {
			fmt.Fprintf(w, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  note: &big %s\n  list: [", strings.Repeat("x", mib))
			for i := range 10000 {
				if i > 0 {
					io.WriteString(w, ", ")
				}
				io.WriteString(w, "*big")
			}
			io.WriteString(w, "]\n")
		},
		want: "error yaml-alias-budget",
	}, {
		name: "classic alias bomb",
		fill: func(w io.Writer) {
			io.WriteString(w, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\na: &a [x, x, x, x, x, x, x, x, x, x]\n")
			prev := "a"
			for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
				fmt.Fprintf(w, "%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", n, n, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
				prev = n
			}
		},
		want: "error yaml-alias-budget",
	}, {
		name: "10,000-deep flow mapping",
		fill: func(w io.Writer) {
			io.WriteString(w, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {note: x, a: ")
			io.WriteString(w, strings.Repeat("{a: ", 10000)+"1"+strings.Repeat("}", 10000))
			io.WriteString(w, "}\n")
		},
		want: "exceeded max depth",
	}, {
		name: "10,000-deep JSON array",
		fill: func(w io.Writer) {
			io.WriteString(w, `{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"a": `)
			io.WriteString(w, strings.Repeat("[", 10000)+strings.Repeat("]", 10000))
			io.WriteString(w, "}}\n")
		},
		want: "exceeded max depth",
	}, {
		// A file that names a kind and then turns to bytes that are no
		// YAML (one that names none is no manifest, and is skipped).
		name: "binary input",
		fill: func(w io.Writer) {
			io.WriteString(w, "kind: Widget\n")
			b := make([]byte, 64<<10)
			for i := range b {
				b[i] = byte(i*7919 + i/3)
			}
			w.Write(b)
		},
		want: "error yaml-syntax",
	}}
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(widgetCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ext := ".yaml"
			if strings.Contains(tt.name, "JSON") {
				ext = ".json"
			}
			name := strings.ReplaceAll(tt.name, " ", "-") + ext
			write(t, filepath.Join(dir, name), tt.fill)
			r := run(t, dir, time.Minute, "check", "--crd", "crd.yaml", name)
			r.within(t, 20*time.Second, 256*mib, 1)
			if !strings.Contains(r.stdout, tt.want) {
				t.Errorf("want %q in the output:\n%.2000s", tt.want, r.stdout)
			}
			if !strings.Contains(r.stdout, name+":") {
				t.Errorf("the finding names no position in %s:\n%.2000s", name, r.stdout)
			}
		})
	}
}

// TestHugeInputs: memory follows the largest document, not the input.
func TestHugeInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: writes 300 MB of test files")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(widgetCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("100 MB of 500,000 documents", func(t *testing.T) {
		write(t, filepath.Join(dir, "many.yaml"), func(w io.Writer) {
			note := strings.Repeat("n", 120)
			for i := range 500000 {
				fmt.Fprintf(w, "---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w%d\n  namespace: ns\nspec:\n  size: %d\n  note: %s\n", i, i%10, note)
			}
		})
		st, _ := os.Stat(filepath.Join(dir, "many.yaml"))
		if st.Size() < 100*mib {
			t.Fatalf("wrote %d MiB, want 100", st.Size()/mib)
		}
		r := run(t, dir, 5*time.Minute, "check", "--crd", "crd.yaml", "many.yaml")
		// Half a million documents take a while on two cores: the bound
		// is on memory, and on not hanging.
		r.within(t, 3*time.Minute, 256*mib, 0)
		if !strings.Contains(r.stdout, "500000 custom resources validated") {
			t.Errorf("not every document validated:\n%s", r.stdout)
		}
	})
	t.Run("200 MB single-line scalar", func(t *testing.T) {
		write(t, filepath.Join(dir, "long.yaml"), func(w io.Writer) {
			io.WriteString(w, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  note: ")
			line := bytes.Repeat([]byte("y"), mib)
			for range 200 {
				w.Write(line)
			}
			io.WriteString(w, "\n")
		})
		r := run(t, dir, 2*time.Minute, "check", "--crd", "crd.yaml", "long.yaml")
		// One document is held up to --max-document-size (64 MiB), its
		// buffer grown by doubling: a bound that does not follow the file.
		r.within(t, 20*time.Second, 512*mib, 1)
		if !strings.Contains(r.stdout, "error document-too-large") {
			t.Errorf("want a document-too-large finding:\n%.2000s", r.stdout)
		}
	})
}

// TestUnreadableInputs: what cannot be read is one line and exit 2.
func TestUnreadableInputs(t *testing.T) {
	dir := t.TempDir()
	t.Run("symlink loop", func(t *testing.T) {
		loop := filepath.Join(dir, "loop")
		if err := os.Mkdir(loop, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Symlink("b.yaml", filepath.Join(loop, "a.yaml"))
		os.Symlink("a.yaml", filepath.Join(loop, "b.yaml"))
		r := run(t, dir, time.Minute, "check", "loop")
		r.within(t, 20*time.Second, 256*mib, 2)
		if lines := strings.Count(strings.TrimSpace(r.stderr), "\n"); lines != 0 || !strings.HasPrefix(r.stderr, "error: ") {
			t.Errorf("want one error line, got:\n%s", r.stderr)
		}
	})
	t.Run("FIFO that never ends", func(t *testing.T) {
		fifo := filepath.Join(dir, "endless.yaml")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatalf("mkfifo: %v", err)
		}
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			defer w.Close()
			doc := []byte("---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n")
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := w.Write(doc); err != nil {
					return
				}
			}
		}()
		r := run(t, dir, time.Minute, "check", "endless.yaml")
		// A pipe is read whole up to 64 MiB into a buffer grown by doubling.
		r.within(t, 20*time.Second, 512*mib, 2)
		if !strings.Contains(r.stderr, "endless.yaml") || !strings.Contains(r.stderr, "larger than") {
			t.Errorf("want a one-line error naming the bound:\n%s", r.stderr)
		}
	})
}
