package diff

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

const widget = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  labels:
    app: w
spec:
  color: red
  colour: blue # misspelt, pruned
  size: 3
  parts:
  - name: a
    weight: 1
  - name: b
    weight: 2
    wieght: 2 # misspelt, pruned
  owner: team-a
status:
  ready: true
`

// without removes each of the given lines (which must occur once) from s.
func without(s string, lines ...string) string {
	for _, l := range lines {
		if strings.Count(s, l+"\n") != 1 {
			panic("without: " + l)
		}
		s = strings.Replace(s, l+"\n", "", 1)
	}
	return s
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line%d: %d\n", i, i)
	}
	return b.String()
}

func TestUnified(t *testing.T) {
	crlf := "apiVersion: v1\r\nkind: ConfigMap\r\ndata:\r\n  a: \"1\"\r\n  junk: x\r\n  b: \"2\"\r\n"
	tests := []struct {
		name string
		a, b string
		opts Options
	}{
		{name: "identical", a: widget, b: widget},
		{name: "identical-empty", a: "", b: ""},
		{name: "one-line-removed", a: widget, b: without(widget, "  colour: blue # misspelt, pruned")},
		{name: "one-line-removed-color", a: widget, b: without(widget, "  colour: blue # misspelt, pruned"), opts: Options{Color: true}},
		{
			// Two removals six lines apart share a hunk; the third starts
			// its own, whose "+l" must count the lines both removed.
			name: "several-hunks",
			a:    numbered(1, 30),
			b:    without(numbered(1, 30), "line5: 5", "line12: 12", "line25: 25"),
		},
		{
			name: "separate-hunks",
			a:    numbered(1, 30),
			b:    without(numbered(1, 30), "line5: 5", "line13: 13", "line25: 25"),
		},
		{name: "removed-first-and-last", a: numbered(1, 10), b: without(numbered(1, 10), "line1: 1", "line10: 10")},
		{name: "removed-block", a: widget, b: without(widget, "  - name: b", "    weight: 2", "    wieght: 2 # misspelt, pruned")},
		{name: "context-none", a: numbered(1, 12), b: without(numbered(1, 12), "line1: 1", "line5: 5", "line6: 6", "line12: 12"), opts: Options{Context: -1}},
		{name: "context-one", a: numbered(1, 12), b: without(numbered(1, 12), "line4: 4", "line7: 7", "line10: 10"), opts: Options{Context: 1}},
		{name: "context-whole-file", a: numbered(1, 12), b: without(numbered(1, 12), "line6: 6"), opts: Options{Context: math.MaxInt}},
		{name: "added-lines", a: without(widget, "  owner: team-a"), b: widget},
		{name: "replaced-line", a: widget, b: strings.Replace(widget, "size: 3", "size: 4", 1)},
		{name: "no-newline-a-context", a: "a: 1\nb: 2\nc: 3", b: "a: 1\nc: 3"},
		{name: "no-newline-a-removed", a: "a: 1\nb: 2\nc: 3", b: "a: 1\nb: 2\n"},
		{name: "no-newline-b", a: "a: 1\nb: 2\nc: 3\n", b: "a: 1\nb: 2"},
		{name: "no-newline-only-newline-added", a: "a: 1\nb: 2", b: "a: 1\nb: 2\n"},
		{name: "no-newline-either", a: "a: 1\nb: 2", b: "b: 2"},
		{name: "crlf", a: crlf, b: without(crlf, "  junk: x\r")},
		{name: "crlf-color", a: crlf, b: without(crlf, "  junk: x\r"), opts: Options{Color: true}},
		{name: "crlf-to-lf", a: "a: 1\r\nb: 2\r\n", b: "a: 1\nb: 2\n"},
		{name: "empty-a", a: "", b: "a: 1\nb: 2\n"},
		{name: "empty-a-one-line", a: "", b: "a: 1\n"},
		{name: "empty-b", a: "a: 1\nb: 2\n", b: ""},
		{name: "empty-b-one-line", a: "a: 1\n", b: ""},
		{name: "empty-b-no-newline", a: "a: 1", b: ""},
		{
			// Lines that look like file headers once prefixed must still be
			// coloured as the removals and additions they are.
			name: "header-lookalikes-color",
			a:    "---\n-- x\n++ y\na: 1\n---\n@@ z\n",
			b:    "+++ w\n++ y\na: 1\n",
			opts: Options{Color: true},
		},
		{name: "all-roles-color", a: "keep: 1\ndrop: 2\nlast: 3", b: "keep: 1\nnew: 2\nlast: 3\n", opts: Options{Color: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			changed, err := Unified(&buf, "a/w.yaml", "b/w.yaml", []byte(tt.a), []byte(tt.b), tt.opts)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if want := tt.a != tt.b; changed != want {
				t.Errorf("got changed=%v, want %v", changed, want)
			}
			golden := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./pkg/diff -update writes it)", err)
			}
			if got := buf.String(); got != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", quoteLines(got), quoteLines(string(want)))
			}
			if !tt.opts.Color {
				checkApplies(t, buf.String(), tt.a, tt.b, tt.opts.Context)
				checkGNUDiff(t, buf.String(), tt.a, tt.b, tt.opts.Context)
			}
		})
	}
}

// quoteLines shows \r and escape sequences, which a plain %s would hide.
func quoteLines(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString(strconv.Quote(l) + "\n")
		}
	}
	return b.String()
}

// checkGNUDiff holds the golden files to the format they claim: where GNU
// diff is installed, its output for the same texts must be the same bytes.
// The cases are unambiguous enough that any minimal diff aligns them alike.
func checkGNUDiff(t *testing.T, got, a, b string, context int) {
	t.Helper()
	bin, err := exec.LookPath("diff")
	if err != nil {
		return
	}
	if v, err := exec.Command(bin, "--version").Output(); err != nil || !bytes.Contains(v, []byte("GNU")) {
		return
	}
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(pa, []byte(a), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pb, []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	u := "-U" + strconv.Itoa(min(max(context, 0), 1000))
	if context == 0 {
		u = "-u"
	}
	out, err := exec.Command(bin, u, "--label", "a/w.yaml", "--label", "b/w.yaml", pa, pb).Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		t.Fatalf("diff: %v", err)
	}
	if string(out) != got {
		t.Errorf("got:\n%s\nGNU diff %s:\n%s", quoteLines(got), u, quoteLines(string(out)))
	}
}

func TestStats(t *testing.T) {
	tests := []struct {
		name           string
		a, b           string
		removed, added int
	}{
		{"identical", widget, widget, 0, 0},
		{"both-empty", "", "", 0, 0},
		{"one-removed", widget, without(widget, "  colour: blue # misspelt, pruned"), 1, 0},
		{"three-removed", numbered(1, 30), without(numbered(1, 30), "line5: 5", "line12: 12", "line25: 25"), 3, 0},
		{"replaced", "a\nb\nc\n", "a\nB\nc\n", 1, 1},
		{"newline-added", "a\nb", "a\nb\n", 1, 1},
		{"empty-a", "", "a\nb\n", 0, 2},
		{"empty-b", "a\nb", "", 2, 0},
		{"crlf-to-lf", "a\r\nb\r\n", "a\nb\n", 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			removed, added := Stats([]byte(tt.a), []byte(tt.b))
			if removed != tt.removed || added != tt.added {
				t.Errorf("got -%d +%d, want -%d +%d", removed, added, tt.removed, tt.added)
			}
		})
	}
}

type failingWriter struct{ after int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.after {
		return w.after, errors.New("disk full")
	}
	w.after -= len(p)
	return len(p), nil
}

func TestUnifiedWriteError(t *testing.T) {
	big := numbered(1, 5000)
	changed, err := Unified(&failingWriter{after: 100}, "a", "b", []byte(big), nil, Options{})
	if !changed || err == nil || err.Error() != "disk full" {
		t.Errorf("got changed=%v err=%v, want true and the writer's error", changed, err)
	}
}

// TestManyScatteredRemovals covers files that pruning touches in hundreds
// of places, where the library's LCS alone gives up and would show most of
// the file as removed and added again.
func TestManyScatteredRemovals(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var a, b strings.Builder
	dropped := 0
	for i := range 20000 {
		l := fmt.Sprintf("  field%d: %d\n", i%40, r.Intn(3))
		a.WriteString(l)
		if r.Intn(10) == 0 {
			dropped++
			continue
		}
		b.WriteString(l)
	}
	removed, added := Stats([]byte(a.String()), []byte(b.String()))
	// The refined script need not be minimal, but it must stay close.
	if removed > dropped+dropped/50 || added > dropped/50 {
		t.Errorf("got -%d +%d, want about -%d +0", removed, added, dropped)
	}
	var out bytes.Buffer
	if _, err := Unified(&out, "a", "b", []byte(a.String()), []byte(b.String()), Options{}); err != nil {
		t.Fatal(err)
	}
	checkApplies(t, out.String(), a.String(), b.String(), 0)
}

// TestApplyRemovals is the property prune --dry-run relies on: for b made by
// deleting lines of a, the diff read back and applied to a gives b, shows
// only removals, and Stats agrees with it.
func TestApplyRemovals(t *testing.T) {
	r := rand.New(rand.NewSource(42))
	// A small alphabet makes repeated lines, where alignment is ambiguous.
	alphabet := []string{"a: 1", "b: 2", "- x", "---", "", "  c: 3", "d: 4\r"}
	for i := range 3000 {
		var aLines, bLines []string
		for range r.Intn(25) {
			aLines = append(aLines, alphabet[r.Intn(len(alphabet))]+"\n")
		}
		// A last line without its newline, unless that would leave it empty.
		if len(aLines) > 0 && aLines[len(aLines)-1] != "\n" && r.Intn(4) == 0 {
			last := &aLines[len(aLines)-1]
			*last = strings.TrimSuffix(*last, "\n")
		}
		for _, l := range aLines {
			if r.Intn(3) != 0 {
				bLines = append(bLines, l)
			}
		}
		a, b := strings.Join(aLines, ""), strings.Join(bLines, "")
		ctx := []int{0, -1, 1, 2, 5}[r.Intn(5)]
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			var out bytes.Buffer
			changed, err := Unified(&out, "a", "b", []byte(a), []byte(b), Options{Context: ctx})
			if err != nil {
				t.Fatal(err)
			}
			if want := a != b; changed != want {
				t.Fatalf("got changed=%v, want %v", changed, want)
			}
			removed, added := checkApplies(t, out.String(), a, b, ctx)
			if added != 0 || removed != len(aLines)-len(bLines) {
				t.Errorf("got -%d +%d, want -%d +0 for\n%s", removed, added, len(aLines)-len(bLines), quoteLines(out.String()))
			}
		})
	}
}

// FuzzUnified holds Unified to the same reading-back property on arbitrary
// texts, and checks that colour only adds escape sequences.
func FuzzUnified(f *testing.F) {
	f.Add([]byte(widget), []byte(without(widget, "  colour: blue # misspelt, pruned")), int8(0))
	f.Add([]byte(numbered(1, 30)), []byte(without(numbered(1, 30), "line5: 5", "line12: 12", "line25: 25")), int8(0))
	f.Add([]byte("a: 1\nb: 2"), []byte("a: 1\nb: 2\n"), int8(-1))
	f.Add([]byte("a\r\nb\r\n"), []byte("a\nb\n"), int8(1))
	f.Add([]byte(""), []byte("x"), int8(2))
	f.Add([]byte("\n\n\n"), []byte("\n"), int8(0))
	f.Fuzz(func(t *testing.T, a, b []byte, ctx int8) {
		o := Options{Context: int(ctx)}
		var plain bytes.Buffer
		changed, err := Unified(&plain, "a", "b", a, b, o)
		if err != nil {
			t.Fatal(err)
		}
		if want := !bytes.Equal(a, b); changed != want {
			t.Fatalf("got changed=%v, want %v", changed, want)
		}
		if !changed {
			if plain.Len() != 0 {
				t.Fatalf("got output %q for equal texts, want none", plain.String())
			}
			return
		}
		removed, added := checkApplies(t, plain.String(), string(a), string(b), int(ctx))
		if r, a := Stats(a, b); r != removed || a != added {
			t.Errorf("got Stats -%d +%d, want -%d +%d as in the diff", r, a, removed, added)
		}
		if bytes.IndexByte(a, 0x1b) >= 0 || bytes.IndexByte(b, 0x1b) >= 0 {
			return
		}
		o.Color = true
		var colored bytes.Buffer
		if _, err := Unified(&colored, "a", "b", a, b, o); err != nil {
			t.Fatal(err)
		}
		if got := ansi.ReplaceAllString(colored.String(), ""); got != plain.String() {
			t.Errorf("got colour output without escapes:\n%s\nwant the plain output:\n%s", quoteLines(got), quoteLines(plain.String()))
		}
	})
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// checkApplies reads diff back, checks it against a, b and context, and
// reports how many lines it removes and adds.
func checkApplies(t *testing.T, diff, a, b string, context int) (removed, added int) {
	t.Helper()
	ctx := context
	switch {
	case ctx == 0:
		ctx = 3
	case ctx < 0:
		ctx = 0
	}
	if diff == "" {
		if a != b {
			t.Fatalf("got no diff of %q and %q", a, b)
		}
		return 0, 0
	}
	got, removed, added, err := apply(diff, splitAfter(a), ctx)
	if err != nil {
		t.Fatalf("%v in\n%s", err, quoteLines(diff))
	}
	if got != b {
		t.Fatalf("got %q from applying\n%s\nwant %q", got, quoteLines(diff), b)
	}
	return removed, added
}

// splitAfter is the test's own line splitter, so that apply does not trust
// the code under test.
func splitAfter(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$`)

// apply is a strict unified-diff reader: besides patching a it checks what
// patch would not, namely the "+l" starts, the amount of context around each
// hunk, and that hunks closer than 2*ctx lines were merged.
func apply(diff string, a []string, ctx int) (out string, removed, added int, err error) {
	lines := strings.Split(diff, "\n")
	if lines[len(lines)-1] != "" {
		return "", 0, 0, errors.New("diff does not end in a newline")
	}
	lines = lines[:len(lines)-1]
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", 0, 0, errors.New("missing --- and +++ headers")
	}
	var b strings.Builder
	bLen := 0     // lines written to b
	cur := 0      // next line of a to read
	lastEnd := -1 // where the previous hunk's last change ended in a
	i := 2
	for i < len(lines) {
		m := hunkHeader.FindStringSubmatch(lines[i])
		if m == nil {
			return "", 0, 0, fmt.Errorf("line %d: got %q, want a hunk header", i+1, lines[i])
		}
		i++
		aStart, aCount := hunkPos(m[1], m[2])
		bStart, bCount := hunkPos(m[3], m[4])
		if aStart < cur || aStart+aCount > len(a) {
			return "", 0, 0, fmt.Errorf("hunk %q: -%d,%d outside a[%d:%d]", m[0], aStart, aCount, cur, len(a))
		}
		for ; cur < aStart; cur++ {
			b.WriteString(a[cur])
			bLen++
		}
		if bStart != bLen {
			return "", 0, 0, fmt.Errorf("hunk %q: +%d, want line %d of b", m[0], bStart, bLen)
		}
		leading, trailing, firstChange, lastChange := 0, 0, -1, -1
		for na, nb := 0, 0; na < aCount || nb < bCount; {
			if i >= len(lines) || lines[i] == "" {
				return "", 0, 0, fmt.Errorf("hunk %q: body ends after -%d +%d lines", m[0], na, nb)
			}
			kind, l := lines[i][0], lines[i][1:]+"\n"
			i++
			if i < len(lines) && lines[i] == `\ No newline at end of file` {
				l = l[:len(l)-1]
				i++
			}
			switch kind {
			case ' ', '-':
				if cur >= len(a) || a[cur] != l {
					return "", 0, 0, fmt.Errorf("hunk %q: %c%q does not match a's line %d", m[0], kind, l, cur+1)
				}
				cur++
				na++
				if kind == ' ' {
					b.WriteString(l)
					bLen++
					nb++
					if firstChange < 0 {
						leading++
					}
					trailing++
					break
				}
				removed++
				if firstChange < 0 {
					firstChange = cur - 1
				}
				lastChange, trailing = cur, 0
			case '+':
				b.WriteString(l)
				bLen++
				nb++
				added++
				if firstChange < 0 {
					firstChange = cur
				}
				lastChange, trailing = cur, 0
			default:
				return "", 0, 0, fmt.Errorf("hunk %q: line %q", m[0], lines[i])
			}
			if na > aCount || nb > bCount {
				return "", 0, 0, fmt.Errorf("hunk %q: more lines than the header counts", m[0])
			}
		}
		if firstChange < 0 {
			return "", 0, 0, fmt.Errorf("hunk %q has no change", m[0])
		}
		if want := min(ctx, firstChange); leading != want {
			return "", 0, 0, fmt.Errorf("hunk %q: %d lines of leading context, want %d", m[0], leading, want)
		}
		if want := min(ctx, len(a)-lastChange); trailing != want {
			return "", 0, 0, fmt.Errorf("hunk %q: %d lines of trailing context, want %d", m[0], trailing, want)
		}
		if lastEnd >= 0 && firstChange-lastEnd <= 2*ctx {
			return "", 0, 0, fmt.Errorf("hunk %q: only %d unchanged lines after the previous hunk's changes, want them merged", m[0], firstChange-lastEnd)
		}
		lastEnd = lastChange
	}
	for ; cur < len(a); cur++ {
		b.WriteString(a[cur])
	}
	return b.String(), removed, added, nil
}

// hunkPos turns a hunk header's "l,n" into where the range starts in the
// file, 0-based, and its length: an empty range names the line before it.
func hunkPos(l, n string) (pos, count int) {
	pos, _ = strconv.Atoi(l)
	count = 1
	if n != "" {
		count, _ = strconv.Atoi(n)
	}
	if count > 0 {
		pos--
	}
	return pos, count
}
