package prune

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/diff"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// Format is how a Printer shows results.
type Format int

const (
	// YAML prints the stored objects as YAML documents cut from the
	// rewritten files (comments and key order kept), JSON for JSON input.
	YAML Format = iota
	// List prints one v1 List of the stored objects, as JSON.
	List
	// Diff prints a unified diff per file of what would change.
	Diff
)

// Printer writes results as they come, in batches (all local files at
// once, or one page of live objects), keeping what spans batches: the
// YAML separator, the open List, the diff totals.
type Printer struct {
	// w keeps the first write error (bufio does), so that the many small
	// writes are checked once per call: output that stops short (a full
	// disk) must fail the run, not end it as if complete. Each call
	// flushes, so live pages still stream.
	w      *bufio.Writer
	format Format
	color  bool

	printed bool // a YAML document was printed
	open    bool // the List was opened
	items   int
	// Fields, Added and Objects total the fields pruned, the fields
	// defaulted and the objects with either, for Diff.
	Fields, Added, Objects int
}

// NewPrinter returns a Printer to w; color applies to Diff.
func NewPrinter(w io.Writer, format Format, color bool) *Printer {
	return &Printer{w: bufio.NewWriter(w), format: format, color: color}
}

// Print writes a batch of results; those with Err are left out.
func (p *Printer) Print(results []*Result) error {
	err := p.print(results)
	if ferr := p.w.Flush(); err == nil {
		err = ferr
	}
	return err
}

func (p *Printer) print(results []*Result) error {
	for _, r := range results {
		if r.Err != nil {
			continue
		}
		var err error
		switch p.format {
		case Diff:
			p.Fields += r.Dropped
			p.Added += r.Added
			p.Objects += r.Objects
			// As git diff --no-index names an absolute path: "a/tmp/x".
			name := strings.TrimPrefix(filepath.ToSlash(r.Path), "/")
			_, err = diff.Unified(p.w, "a/"+name, "b/"+name, r.Data, r.Out, diff.Options{Color: p.color})
		case List:
			err = p.list(r)
		default:
			err = p.yaml(r)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Close ends the output: closes the List, or says what the diffs total.
func (p *Printer) Close() error {
	switch p.format {
	case List:
		p.openList()
		if p.items > 0 {
			io.WriteString(p.w, "\n  ")
		}
		io.WriteString(p.w, "]\n}\n")
	case Diff:
		what := report.Plural(p.Fields, "field") + " would be pruned"
		if p.Added > 0 {
			what += fmt.Sprintf(" and %d defaulted", p.Added)
		}
		fmt.Fprintf(p.w, "%s in %s\n", what, report.Plural(p.Objects, "object"))
	}
	return p.w.Flush()
}

// Interrupt ends output that stops short of what was asked for (a
// cluster list failed part way): a YAML stream gets a comment saying so,
// which a saved copy keeps and kubectl ignores; a List is left unclosed,
// so that no JSON reader takes it for complete; diffs get no totals.
func (p *Printer) Interrupt(note string) error {
	if p.format != YAML || !p.printed {
		return p.w.Flush()
	}
	fmt.Fprintf(p.w, "# %s\n", note)
	return p.w.Flush()
}

// Changes says what a result changes: "2 fields pruned and 1 defaulted
// in 1 object".
func (r *Result) Changes() string {
	what := report.Plural(r.Dropped, "field") + " pruned"
	if r.Added > 0 {
		what += fmt.Sprintf(" and %d defaulted", r.Added)
	}
	return what + " in " + report.Plural(r.Objects, "object")
}

// yaml prints a file's pruned objects: the YAML documents (a List whole
// when any of its items is kept), or JSON for JSON input.
func (p *Printer) yaml(r *Result) error {
	if r.JSON {
		for _, d := range r.Docs {
			b, err := OrderedJSON(d.Document.Root, d.Object)
			if err != nil {
				return err
			}
			fmt.Fprintf(p.w, "%s\n", b)
		}
		return nil
	}
	keep := map[int]bool{}
	for _, d := range r.Docs {
		keep[d.Document.Index] = true
	}
	for index, t := range r.Texts {
		if !keep[index] {
			continue
		}
		text := bytes.TrimLeft(t, "\n")
		text = bytes.TrimPrefix(text, []byte("---\n"))
		if p.printed {
			io.WriteString(p.w, "---\n")
		}
		p.printed = true
		p.w.Write(text)
		if len(text) > 0 && text[len(text)-1] != '\n' {
			io.WriteString(p.w, "\n")
		}
	}
	return nil
}

// list prints a file's objects as items of the List, in input order.
func (p *Printer) list(r *Result) error {
	p.openList()
	for _, d := range r.Docs {
		b, err := OrderedJSON(d.Document.Root, d.Object)
		if err != nil {
			return err
		}
		if p.items > 0 {
			io.WriteString(p.w, ",")
		}
		io.WriteString(p.w, "\n    ")
		p.w.Write(bytes.ReplaceAll(b, []byte("\n"), []byte("\n    ")))
		p.items++
	}
	return nil
}

func (p *Printer) openList() {
	if !p.open {
		io.WriteString(p.w, "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [")
		p.open = true
	}
}
