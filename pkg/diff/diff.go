// Package diff renders unified diffs of two texts, coloured on request. It
// knows no Kubernetes: prune --dry-run hands it a file before and after.
//
//	changed, err := diff.Unified(os.Stdout, "a/w.yaml", "b/w.yaml", before, after, diff.Options{Color: true})
package diff

import (
	"bufio"
	"io"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/fatih/color"
)

// Options for Unified.
type Options struct {
	// Context is the number of unchanged lines around each change; 0 means
	// the usual 3.
	Context int
	// Color turns on ANSI colour: headers bold, hunk headers cyan, removed
	// lines red, added lines green.
	Color bool
}

// Unified writes the unified diff (diff -u, git) of a and b to w. It writes
// nothing and returns false when they are equal.
func Unified(w io.Writer, aName, bName string, a, b []byte, o Options) (bool, error) {
	if string(a) == string(b) {
		return false, nil
	}
	ctx := o.Context
	if ctx <= 0 {
		ctx = udiff.DefaultContextLines
	}
	edits := udiff.Lines(string(a), string(b))
	text, err := udiff.ToUnified(aName, bName, string(a), edits, ctx)
	if err != nil {
		return false, err
	}
	if !o.Color {
		_, err := io.WriteString(w, text)
		return true, err
	}
	header, hunk := color.New(color.Bold), color.New(color.FgCyan)
	del, add := color.New(color.FgRed), color.New(color.FgGreen)
	for _, c := range []*color.Color{header, hunk, del, add} {
		c.EnableColor()
	}
	s := bufio.NewScanner(strings.NewReader(text))
	s.Buffer(make([]byte, 0, 64*1024), len(text)+1)
	for s.Scan() {
		l := s.Text()
		var err error
		switch {
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
			_, err = header.Fprintln(w, l)
		case strings.HasPrefix(l, "@@"):
			_, err = hunk.Fprintln(w, l)
		case strings.HasPrefix(l, "-"):
			_, err = del.Fprintln(w, l)
		case strings.HasPrefix(l, "+"):
			_, err = add.Fprintln(w, l)
		default:
			_, err = io.WriteString(w, l+"\n")
		}
		if err != nil {
			return true, err
		}
	}
	return true, s.Err()
}
