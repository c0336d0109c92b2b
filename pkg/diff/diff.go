package diff

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
	"github.com/fatih/color"
)

// defaultContext is what diff -u and git use.
const defaultContext = 3

// Options for Unified.
type Options struct {
	// Context is how many unchanged lines frame each change. 0 means the
	// customary 3, so that the zero Options reads like diff -u; since 0 is
	// taken, a negative value asks for no context at all (diff -U0).
	Context int
	// Color adds ANSI colour the way git does: file headers bold, hunk
	// headers cyan, removed lines red, added lines green. The caller decides
	// (terminal or not, --color flag); nothing here looks at the environment.
	Color bool
}

// Unified writes a unified diff of a (named aName) and b (named bName) to w,
// byte for byte what diff -u and git print after their own header lines:
// "--- aName", "+++ bName", then "@@ -l,n +l,n @@" hunks, with a
// "\ No newline at end of file" marker after a last line that lacks one.
// The names are written as given. It writes nothing and returns false when a
// and b are equal.
//
// Lines end at '\n' only, so a '\r' before it is part of the line and is
// written back unchanged: a file whose line endings alone changed shows
// every line as removed and added, which is the truth.
func Unified(w io.Writer, aName, bName string, a, b []byte, o Options) (changed bool, err error) {
	if bytes.Equal(a, b) {
		return false, nil
	}
	al, bl := splitLines(string(a)), splitLines(string(b))
	ctx := o.Context
	switch {
	case ctx == 0:
		ctx = defaultContext
	case ctx < 0:
		ctx = 0
	}
	// Context beyond the whole file shows nothing more; capping it keeps
	// 2*ctx from overflowing when a caller asks for "everything".
	ctx = min(ctx, max(len(al), len(bl)))

	p := newPalette(o.Color)
	// A diff is many small writes and w is often an unbuffered os.Stdout.
	bw := bufio.NewWriter(w)
	p.header.Fprint(bw, "--- "+aName)
	bw.WriteByte('\n')
	p.header.Fprint(bw, "+++ "+bName)
	bw.WriteByte('\n')
	for _, h := range hunks(lineDiffs(al, bl), len(al), ctx) {
		writeHunk(bw, p, al, bl, h)
	}
	// bufio.Writer remembers the first write error, so checking once here
	// covers every write above.
	return true, bw.Flush()
}

// Stats counts the lines Unified would show as removed and as added.
func Stats(a, b []byte) (removed, added int) {
	if bytes.Equal(a, b) {
		return 0, 0
	}
	for _, d := range lineDiffs(splitLines(string(a)), splitLines(string(b))) {
		removed += d.End - d.Start
		added += d.ReplEnd - d.ReplStart
	}
	return removed, added
}

// splitLines keeps each line's '\n' so that a missing final newline is still
// visible in the last line, and so that lines compare unequal when only that
// newline differs, as they do for diff.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for s != "" {
		i := strings.IndexByte(s, '\n') + 1
		if i == 0 {
			i = len(s)
		}
		lines = append(lines, s[:i])
		s = s[i:]
	}
	return lines
}

// lineDiffs returns the edit script turning a into b, sorted and disjoint.
//
// The library's LCS gives up after about 100 differences and reports the
// rest as one block replaced wholesale: on a file that pruning touches in
// many places, that would show thousands of untouched lines as removed and
// added again, and Stats would count them. Diffing each such block again
// starts a fresh search inside it, which recovers a near-minimal script.
// Recursion stops when the library finds nothing in common in a block, so
// every call works on a strictly smaller block than its caller.
func lineDiffs(a, b []string) []lcs.Diff {
	ds := lcs.DiffLines(a, b)
	if len(ds) == 1 && ds[0] == (lcs.Diff{Start: 0, End: len(a), ReplStart: 0, ReplEnd: len(b)}) {
		return ds
	}
	out := make([]lcs.Diff, 0, len(ds))
	for _, d := range ds {
		if d.Start == d.End || d.ReplStart == d.ReplEnd {
			out = append(out, d) // a pure removal or addition is already minimal
			continue
		}
		for _, s := range lineDiffs(a[d.Start:d.End], b[d.ReplStart:d.ReplEnd]) {
			out = append(out, lcs.Diff{
				Start: d.Start + s.Start, End: d.Start + s.End,
				ReplStart: d.ReplStart + s.ReplStart, ReplEnd: d.ReplStart + s.ReplEnd,
			})
		}
	}
	return out
}

// hunk is a run of changes close enough to share their context. a0:a1 and
// b0:b1 are the lines of a and b it shows, context included.
type hunk struct {
	a0, a1, b0, b1 int
	diffs          []lcs.Diff
}

// hunks groups the changes as diff -u does: two changes share a hunk when at
// most 2*ctx unchanged lines separate them, so that no context line is
// printed twice. The library has a grouping of its own (ToUnifiedDiff), but
// its "+l" start is wrong for every hunk after one that merged two changes,
// and it prints "-l"/"+l" where diff prints "l,0" for an empty side.
func hunks(ds []lcs.Diff, aLen, ctx int) []hunk {
	var hs []hunk
	for _, d := range ds {
		if n := len(hs); n > 0 && d.Start-hs[n-1].diffs[len(hs[n-1].diffs)-1].End <= 2*ctx {
			hs[n-1].diffs = append(hs[n-1].diffs, d)
			continue
		}
		// Unchanged lines pair up one to one, so context moves a and b alike.
		lead := min(ctx, d.Start)
		hs = append(hs, hunk{a0: d.Start - lead, b0: d.ReplStart - lead, diffs: []lcs.Diff{d}})
	}
	for i := range hs {
		last := hs[i].diffs[len(hs[i].diffs)-1]
		trail := min(ctx, aLen-last.End)
		hs[i].a1, hs[i].b1 = last.End+trail, last.ReplEnd+trail
	}
	return hs
}

func writeHunk(w *bufio.Writer, p palette, a, b []string, h hunk) {
	p.hunk.Fprint(w, "@@ -"+hunkRange(h.a0, h.a1)+" +"+hunkRange(h.b0, h.b1)+" @@")
	w.WriteByte('\n')
	i := h.a0
	for _, d := range h.diffs {
		writeLines(w, p.context, ' ', a[i:d.Start])
		writeLines(w, p.removed, '-', a[d.Start:d.End])
		writeLines(w, p.added, '+', b[d.ReplStart:d.ReplEnd])
		i = d.End
	}
	writeLines(w, p.context, ' ', a[i:h.a1])
}

// hunkRange formats lines from:to (0-based, half-open) as diff does: the
// count is left out when it is 1, and an empty range names the line before
// it, so that an insertion at the top of a file reads "0,0".
func hunkRange(from, to int) string {
	switch to - from {
	case 0:
		return strconv.Itoa(from) + ",0"
	case 1:
		return strconv.Itoa(from + 1)
	default:
		return strconv.Itoa(from+1) + "," + strconv.Itoa(to-from)
	}
}

func writeLines(w *bufio.Writer, c *color.Color, prefix byte, lines []string) {
	for _, l := range lines {
		// The newline stays outside the colour so that a pager or a
		// line-oriented tool never sees an escape sequence straddle lines.
		body, nl := strings.CutSuffix(l, "\n")
		c.Fprint(w, string(prefix)+body)
		w.WriteByte('\n')
		if !nl {
			w.WriteString("\\ No newline at end of file\n")
		}
	}
}

// palette holds one *color.Color per role, each switched on or off
// explicitly so that neither the global color.NoColor nor NO_COLOR nor
// whether stdout is a terminal can change what Unified writes: the caller's
// Options decide.
type palette struct {
	header, hunk, removed, added, context *color.Color
}

func newPalette(on bool) palette {
	p := palette{
		header:  color.New(color.Bold),
		hunk:    color.New(color.FgCyan),
		removed: color.New(color.FgRed),
		added:   color.New(color.FgGreen),
		context: color.New(),
	}
	for _, c := range []*color.Color{p.header, p.hunk, p.removed, p.added} {
		if on {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	// Context lines are never coloured; an attribute-less Color would still
	// write an empty escape sequence.
	p.context.DisableColor()
	return p
}
