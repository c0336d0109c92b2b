package prune

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

const outputCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
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
              size: {type: integer}
`

// sequential is a Parallel one at a time.
func sequential(_ context.Context, n int, fn func(i int) error) error {
	for i := range n {
		if err := fn(i); err != nil {
			return err
		}
	}
	return nil
}

func noNotes([]crd.Note) int { return 0 }

// TestOutputLiveIncomplete: a cluster read that fails after a page was
// printed ends the YAML with a comment saying where it stops, and the
// error says it too.
func TestOutputLiveIncomplete(t *testing.T) {
	cat := crd.NewCatalog(false)
	cat.AddFound(crd.FindCRDs(source.Parse("crd.yaml", []byte(outputCRD))), crd.Input)
	text := []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a, namespace: x}\nspec: {size: 1, sise: 2}\n")
	var out, errOut bytes.Buffer
	o := &Output{Printer: NewPrinter(&out, YAML, false), ErrOut: &errOut, Notes: noNotes}
	failed := errors.New("connection reset")
	n, err := o.Live(context.Background(), cat, Options{}, sequential, func(fn func([]*source.File, [][]byte) error) (int, error) {
		if err := fn([]*source.File{source.Parse("x/widgets/a", text)}, [][]byte{text}); err != nil {
			return 1, err
		}
		return 1, failed
	})
	var ie *IncompleteError
	if n != 1 || !errors.As(err, &ie) || !errors.Is(err, failed) {
		t.Fatalf("got %d, %v; want 1 and an *IncompleteError wrapping the read's", n, err)
	}
	if want := "connection reset; the output stops after 1 object (the last x/widgets/a)"; err.Error() != want {
		t.Errorf("got error %q, want %q", err, want)
	}
	if !strings.HasPrefix(out.String(), "apiVersion: example.com/v1\n") || strings.Contains(out.String(), "sise") {
		t.Errorf("got output %q, want the pruned object", out.String())
	}
	if want := "# kubectl-crdlint: incomplete: the output stops after 1 object (the last x/widgets/a); reading the rest from the cluster failed\n"; !strings.HasSuffix(out.String(), want) {
		t.Errorf("got output %q, want it to end %q", out.String(), want)
	}
	if o.Files != 1 || o.Failed != 0 || errOut.Len() != 0 {
		t.Errorf("got %d files, %d failed, stderr %q; want 1, 0, none", o.Files, o.Failed, errOut.String())
	}
}

// TestOutputLiveFailsFirst: a read that fails before anything was printed
// is the read's error alone.
func TestOutputLiveFailsFirst(t *testing.T) {
	var out bytes.Buffer
	o := &Output{Printer: NewPrinter(&out, YAML, false), ErrOut: io.Discard, Notes: noNotes}
	failed := errors.New("forbidden")
	_, err := o.Live(context.Background(), crd.NewCatalog(false), Options{}, sequential, func(func([]*source.File, [][]byte) error) (int, error) {
		return 0, failed
	})
	if err != failed || out.Len() != 0 {
		t.Errorf("got %v and output %q, want the read's error and nothing printed", err, out.String())
	}
}

// TestOutputLiveCancelled: a run cancelled while a page is pruned (a
// Parallel that stops early, as input.Parallel does on a done context)
// prints nothing of the page and says why, rather than emitting the
// results it did not compute.
func TestOutputLiveCancelled(t *testing.T) {
	cat := crd.NewCatalog(false)
	cat.AddFound(crd.FindCRDs(source.Parse("crd.yaml", []byte(outputCRD))), crd.Input)
	text := []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a, namespace: x}\nspec: {size: 1}\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stopsEarly := func(ctx context.Context, n int, fn func(i int) error) error {
		if n > 1 {
			if err := fn(0); err != nil {
				return err
			}
		}
		return ctx.Err()
	}
	var out bytes.Buffer
	o := &Output{Printer: NewPrinter(&out, YAML, false), ErrOut: io.Discard, Notes: noNotes}
	files := []*source.File{source.Parse("x/widgets/a", text), source.Parse("x/widgets/b", text)}
	_, err := o.Live(ctx, cat, Options{}, stopsEarly, func(fn func([]*source.File, [][]byte) error) (int, error) {
		return 2, fn(files, [][]byte{text, text})
	})
	if !errors.Is(err, context.Canceled) || out.Len() != 0 {
		t.Errorf("got %v and output %q, want context.Canceled and nothing printed", err, out.String())
	}
}

// failingWriter fails every write after the first n bytes.
type failingWriter struct {
	n   int
	err error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n <= 0 {
		return 0, w.err
	}
	k := min(len(p), w.n)
	w.n -= k
	if k < len(p) {
		return k, w.err
	}
	return k, nil
}

// TestOutputLiveWriteError: output that cannot be written ends the run
// with that error, not as a cluster read that failed.
func TestOutputLiveWriteError(t *testing.T) {
	cat := crd.NewCatalog(false)
	cat.AddFound(crd.FindCRDs(source.Parse("crd.yaml", []byte(outputCRD))), crd.Input)
	text := []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a, namespace: x}\nspec: {size: 1}\n")
	closed := errors.New("broken pipe")
	o := &Output{Printer: NewPrinter(&failingWriter{n: 100, err: closed}, YAML, false), ErrOut: io.Discard, Notes: noNotes}
	pages := 0
	_, err := o.Live(context.Background(), cat, Options{}, sequential, func(fn func([]*source.File, [][]byte) error) (int, error) {
		for range 3 {
			pages++
			if err := fn([]*source.File{source.Parse("x/widgets/a", text)}, [][]byte{text}); err != nil {
				return pages, fmt.Errorf("listing widgets: %w", err)
			}
		}
		return pages, nil
	})
	var ie *IncompleteError
	if !errors.Is(err, closed) || errors.As(err, &ie) || strings.Contains(err.Error(), "listing") {
		t.Fatalf("got %v; want the write's error itself", err)
	}
	if pages != 2 {
		t.Errorf("read %d pages, want 2 (none after the write failed)", pages)
	}
}

// TestPrinterWriteError: in every format, output that cannot be written
// (a full disk) is an error of the call that wrote it, not a run that
// ends as if its output were whole.
func TestPrinterWriteError(t *testing.T) {
	cat := crd.NewCatalog(false)
	cat.AddFound(crd.FindCRDs(source.Parse("crd.yaml", []byte(outputCRD))), crd.Input)
	text := []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a, namespace: x}\nspec: {size: 1, sise: 2}\n")
	full := errors.New("no space left on device")
	for _, tc := range []struct {
		name   string
		format Format
		json   bool
	}{
		{"YAML", YAML, false},
		{"JSON documents", YAML, true},
		{"List", List, false},
		{"diff", Diff, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := File(cat, source.Parse("w.yaml", text), text, Options{})
			r.JSON = tc.json
			p := NewPrinter(&failingWriter{n: 10, err: full}, tc.format, false)
			err := p.Print([]*Result{r})
			if err == nil {
				err = p.Close()
			}
			if !errors.Is(err, full) {
				t.Errorf("got %v, want the write's error", err)
			}
		})
	}
}
