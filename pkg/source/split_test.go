package source

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
)

// yamlReaderDocs is the oracle: the documents kubectl's YAMLReader returns
// for data, and its error if it refuses the stream.
func yamlReaderDocs(data []byte) ([]string, error) {
	r := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(kubectlText(data))))
	var docs []string
	for {
		b, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return docs, err
		}
		docs = append(docs, string(b))
	}
}

// split cuts data as a DocReader in YAML mode does: the documents' chunks
// and the invalid separators.
func split(data []byte) ([]chunk, []badSeparator) {
	r := newBytesReader("f.yaml", data)
	r.mode = modeYAML
	var (
		out []chunk
		bad []badSeparator
	)
	for {
		p, ok := r.cutYAML()
		bad = append(bad, p.bad...)
		if !ok {
			return out, bad
		}
		out = append(out, newChunk(p.text, p.line))
	}
}

func chunkTexts(cs []chunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c.text)
	}
	return out
}

// checkAgainstOracle compares split with YAMLReader on data: the same
// documents when kubectl accepts the stream, a bad separator when it does
// not, and lines that point at each chunk's first line in the file.
func checkAgainstOracle(t *testing.T, data []byte) []chunk {
	t.Helper()
	chunks, bad := split(data)
	docs, err := yamlReaderDocs(data)
	if err != nil {
		if len(bad) == 0 {
			t.Errorf("split(%q): got no bad separator, want one (YAMLReader: %v)", data, err)
		}
		return chunks
	}
	if len(bad) != 0 {
		t.Errorf("split(%q): got bad separators %+v, want none (YAMLReader accepts it)", data, bad)
	}
	if got := chunkTexts(chunks); !equalStrings(got, docs) {
		t.Errorf("split(%q):\n got %q\nwant %q", data, got, docs)
	}
	lines := strings.SplitAfter(string(kubectlText(data)), "\n")
	prev := 0
	for _, c := range chunks {
		if c.line <= prev || c.line > len(lines) {
			t.Errorf("split(%q): got chunk line %d after %d, want increasing lines within 1..%d", data, c.line, prev, len(lines))
			continue
		}
		prev = c.line
		first, _, _ := strings.Cut(string(c.text), "\n")
		// Either side may end in "\r"s that ReadLine kept or dropped.
		first = strings.TrimRight(first, "\r")
		if got := strings.TrimRight(strings.TrimSuffix(lines[c.line-1], "\n"), "\r"); got != first {
			t.Errorf("split(%q): chunk at line %d starts %q, but line %d of the file is %q", data, c.line, first, c.line, got)
		}
	}
	return chunks
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSplit(t *testing.T) {
	long := strings.Repeat("x", 5000)
	tests := []struct {
		name      string
		in        string
		wantText  []string
		wantLines []int
		wantBad   []badSeparator
	}{
		{name: "empty", in: ""},
		{name: "one document", in: "a: 1\n", wantText: []string{"a: 1\n"}, wantLines: []int{1}},
		{
			// The separator joins the next document, which then is the
			// first one rather than an empty document and a second one.
			name: "leading separator", in: "---\na: 1\n",
			wantText: []string{"---\na: 1\n"}, wantLines: []int{1},
		},
		{
			name: "comment then separator", in: "# c\n---\na: 1\n",
			wantText: []string{"# c\n", "a: 1\n"}, wantLines: []int{1, 3},
		},
		{
			name: "blank lines then separator", in: "\n\n---\na: 1\n",
			wantText: []string{"\n\n", "a: 1\n"}, wantLines: []int{1, 4},
		},
		{name: "trailing separator", in: "a: 1\n---\n", wantText: []string{"a: 1\n"}, wantLines: []int{1}},
		{
			name: "separator with comment", in: "a: 1\n--- # next\nb: 2\n",
			wantText: []string{"a: 1\n", "b: 2\n"}, wantLines: []int{1, 3},
		},
		{
			name: "separator with tab and spaces", in: "a: 1\n---\t \nb: 2\n",
			wantText: []string{"a: 1\n", "b: 2\n"}, wantLines: []int{1, 3},
		},
		{
			name: "CRLF", in: "a: 1\r\n---\r\nb: |\r\n  x\r\n",
			wantText: []string{"a: 1\n", "b: |\n  x\n"}, wantLines: []int{1, 3},
		},
		{
			// ReadLine drops only a "\r" that ends the line.
			name: "CR not before LF stays", in: "a: 1\rb\r\r\n",
			wantText: []string{"a: 1\rb\r\n"}, wantLines: []int{1},
		},
		{
			name: "no final newline", in: "a: 1\n---\nb: |\n  x",
			wantText: []string{"a: 1\n", "b: |\n  x\n"}, wantLines: []int{1, 3},
		},
		{name: "separator without newline at EOF", in: "--- #c", wantText: []string{"--- #c\n"}, wantLines: []int{1}},
		{
			name: "only separators", in: "---\n---\n---\n",
			wantText: []string{"---\n", "---\n"}, wantLines: []int{1, 3},
		},
		{
			name: "document end marker", in: "a: 1\n...\n---\nb: 2\n...\n",
			wantText: []string{"a: 1\n...\n", "b: 2\n...\n"}, wantLines: []int{1, 4},
		},
		{name: "document end marker alone", in: "...\n", wantText: []string{"...\n"}, wantLines: []int{1}},
		{name: "indented dashes", in: "a: |\n  ---\n", wantText: []string{"a: |\n  ---\n"}, wantLines: []int{1}},
		{
			name: "separator inside block scalar", in: "a: |\n  x\n---\nb: 2\n",
			wantText: []string{"a: |\n  x\n", "b: 2\n"}, wantLines: []int{1, 4},
		},
		{
			// kubectl's file reader drops the byte order mark.
			name: "BOM before separator", in: "\ufeff---\na: 1\n",
			wantText: []string{"---\na: 1\n"}, wantLines: []int{1},
		},
		{
			// Longer than bufio's buffer: ReadLine returns it in pieces.
			name: "long line with CRLF", in: "a: " + long + "\r\n---\r\nb: 1",
			wantText: []string{"a: " + long + "\n", "b: 1\n"}, wantLines: []int{1, 3},
		},
		{
			name: "bad separator glued", in: "a: 1\n---foo\nb: 2\n",
			wantText: []string{"a: 1\n", "b: 2\n"}, wantLines: []int{1, 3},
			wantBad: []badSeparator{{line: 2, col: 4, rest: "foo"}},
		},
		{
			name: "bad separator with content", in: "a: 1\n--- foo\nb: 2\n",
			wantText: []string{"a: 1\n", "b: 2\n"}, wantLines: []int{1, 3},
			wantBad: []badSeparator{{line: 2, col: 4, rest: "foo"}},
		},
		{
			name: "four dashes", in: "----\na: 1\n",
			wantText: []string{"----\na: 1\n"}, wantLines: []int{1},
			wantBad: []badSeparator{{line: 1, col: 4, rest: "-"}},
		},
		{
			name: "bad separator with CRLF", in: "a: 1\r\n--- !!map\r\nb: 2\r\n",
			wantText: []string{"a: 1\n", "b: 2\n"}, wantLines: []int{1, 3},
			wantBad: []badSeparator{{line: 2, col: 4, rest: "!!map"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks := checkAgainstOracle(t, []byte(tt.in))
			_, bad := split([]byte(tt.in))
			if got := chunkTexts(chunks); !equalStrings(got, tt.wantText) {
				t.Errorf("texts: got %q, want %q", got, tt.wantText)
			}
			var lines []int
			for _, c := range chunks {
				lines = append(lines, c.line)
			}
			if fmt.Sprint(lines) != fmt.Sprint(tt.wantLines) {
				t.Errorf("lines: got %v, want %v", lines, tt.wantLines)
			}
			if fmt.Sprint(bad) != fmt.Sprint(tt.wantBad) {
				t.Errorf("bad separators: got %+v, want %+v", bad, tt.wantBad)
			}
		})
	}
}

// TestSplitGenerated compares split with YAMLReader on every stream of up
// to three lines drawn from the awkward ones, in both line endings and
// with and without a final newline, and on longer random streams.
func TestSplitGenerated(t *testing.T) {
	pieces := []string{"---", "--- # c", "---foo", "--- x", "a: 1", "", "# c", "...", "  ---", "b: |", "\t"}
	var streams [][]string
	var gen func(prefix []string)
	gen = func(prefix []string) {
		streams = append(streams, prefix)
		if len(prefix) == 3 {
			return
		}
		for _, p := range pieces {
			gen(append(append([]string(nil), prefix...), p))
		}
	}
	gen(nil)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		s := make([]string, 4+rng.IntN(8))
		for i := range s {
			s[i] = pieces[rng.IntN(len(pieces))]
		}
		streams = append(streams, s)
	}
	for _, lines := range streams {
		for _, eol := range []string{"\n", "\r\n"} {
			text := strings.Join(lines, eol)
			checkAgainstOracle(t, []byte(text))
			checkAgainstOracle(t, []byte(text+eol))
		}
	}
}
