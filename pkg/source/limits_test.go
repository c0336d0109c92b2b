package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// measured runs f and returns its wall time and the bytes it allocated.
func measured(f func()) (time.Duration, uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	return elapsed, after.TotalAlloc - before.TotalAlloc
}

// TestParseAliasFanOut is the alias bomb that the YAML libraries' own
// ratio check lets through: a 1 MB string aliased 10,000 times is half
// aliases by decoding steps, but 10 GB once expanded. It must be refused
// at the alias where the budget runs out, before anything expands it.
func TestParseAliasFanOut(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n  s: &s ")
	b.WriteString(strings.Repeat("x", 1_000_000))
	b.WriteString("\n  l: [")
	for i := range 10_000 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("*s")
	}
	b.WriteString("]\n")
	data := []byte(b.String())
	var f *File
	elapsed, alloc := measured(func() { f = Parse("bomb.yaml", data) })
	checkSane(t, data, f)
	t.Logf("refused in %v with %d MiB allocated", elapsed, alloc>>20)
	if elapsed > time.Second {
		t.Errorf("took %v, want the refusal within a second", elapsed)
	}
	if alloc > 64<<20 {
		t.Errorf("allocated %d MiB, want a few tens at most", alloc>>20)
	}
	// Each alias adds 1,000,001 bytes: the 17th goes over 16 MiB. It is
	// at column 7 + 16*4 of line 6 ("  l: [*s, *s, ...").
	if len(f.Findings) != 1 || len(f.Documents) != 0 || f.Count != 1 {
		t.Fatalf("got findings %+v, %d documents and Count %d; want one finding and no document", f.Findings, len(f.Documents), f.Count)
	}
	want := report.Finding{
		Rule: RuleAliasBudget, Severity: report.Error, File: "bomb.yaml", Line: 6, Column: 71,
		Message: "yaml: document contains excessive aliasing: its aliases up to this one add 16.21 MiB, over the 16 MiB crdlint expands (all of them would add 10,000 nodes and 9.31 GiB)",
	}
	if f.Findings[0] != want {
		t.Errorf("got  %+v\nwant %+v", f.Findings[0], want)
	}
}

// TestParseAliasBudgetEdges checks that aliases within the budget pass,
// that nested aliases count what they stand for, and that a cycle, which
// kubectl refuses, is left to kubectl's words.
func TestParseAliasBudgetEdges(t *testing.T) {
	big := strings.Repeat("y", 1<<20)
	list := func(n int) string {
		return "[" + strings.Repeat("*s, ", n-1) + "*s]"
	}
	tests := []struct {
		name string
		in   string
		rule string // of the only finding; "" for none
		line int
	}{
		// Within the budget, but too large for the server.
		{name: "15 aliases of 1 MiB", in: "apiVersion: v1\nkind: X\ns: &s " + big + "\nl: " + list(15) + "\n", rule: RuleRequestSize, line: 1},
		{name: "16 aliases of 1 MiB", in: "apiVersion: v1\nkind: X\ns: &s " + big + "\nl: " + list(16) + "\n", rule: RuleAliasBudget, line: 4},
		{
			name: "aliases of aliases count what they stand for",
			in:   "apiVersion: v1\nkind: X\ns: &s " + big + "\nt: &t [*s, *s, *s, *s]\nu: [*t, *t]\nv: [*t, *t]\n",
			rule: RuleAliasBudget, line: 6,
		},
		{name: "a cycle is kubectl's to refuse", in: "apiVersion: v1\nkind: X\na: &a [*a]\n", rule: RuleSyntax, line: 3},
		{name: "merge keys", in: "apiVersion: v1\nkind: X\nbase: &b {p: 1, q: 2}\nm:\n  <<: *b\n  r: 3\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse("a.yaml", []byte(tt.in))
			switch {
			case tt.rule == "" && len(f.Findings) != 0:
				t.Errorf("got findings %+v, want none", f.Findings)
			case (tt.rule == "" || tt.rule == RuleRequestSize) && len(f.Documents) != 1:
				t.Errorf("got %d documents, want 1", len(f.Documents))
			case tt.rule != "" && (len(f.Findings) != 1 || f.Findings[0].Rule != tt.rule || f.Findings[0].Line != tt.line):
				t.Errorf("got findings %+v, want one %s at line %d", f.Findings, tt.rule, tt.line)
			}
		})
	}
}

// TestParseTooDeep: nesting deeper than the JSON decoders of kubectl and
// the server accept (10,000 levels) is kubectl's error at the level that
// goes over, never a skipped document; 10,000 levels pass.
func TestParseTooDeep(t *testing.T) {
	flowMaps := func(n int) string { return strings.Repeat("{a: ", n) + "1" + strings.Repeat("}", n) }
	flowSeqs := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	const head = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\n"
	tests := []struct {
		name      string
		in        string
		line, col int
		msg       string // "" for a document without findings
	}{
		{
			// The root, spec and 9,999 mappings: 10,001 levels.
			name: "flow mapping 10,000 deep", in: head + "spec: " + flowMaps(10_000) + "\n",
			line: 4, col: 7 + 9_999*4, msg: "error unmarshaling JSON: while decoding JSON: invalid character '{' exceeded max depth",
		},
		{name: "flow mapping 9,999 deep", in: head + "spec: " + flowMaps(9_999) + "\n"},
		{
			name: "flow sequence 10,000 deep", in: head + "spec: " + flowSeqs(10_000) + "\n",
			line: 4, col: 7 + 9_999, msg: "error unmarshaling JSON: while decoding JSON: invalid character '[' exceeded max depth",
		},
		{
			// a is 5,000 deep, b 9,999 with a inside: the expansion, not
			// the text, goes over, at *b in spec.
			name: "depth through aliases",
			in: head + "a: &a " + flowSeqs(5_000) + "\nb: &b " + strings.Repeat("[", 4_999) + "*a" + strings.Repeat("]", 4_999) +
				"\nspec: [*b]\n",
			line: 6, col: 8, msg: "error unmarshaling JSON: while decoding JSON: invalid character '[' exceeded max depth",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAsKubectl(t, []byte(tt.in))
			data := []byte(tt.in)
			f := Parse("deep.yaml", data)
			checkSane(t, data, f)
			if f.Skipped != 0 {
				t.Errorf("got %d skipped, want none", f.Skipped)
			}
			_, kerr := kubectlDocs(data)
			if tt.msg == "" {
				if len(f.Findings) != 0 || len(f.Documents) != 1 || kerr != nil {
					t.Errorf("got findings %+v and %d documents (kubectl: %v), want one document and nothing wrong", f.Findings, len(f.Documents), kerr)
				}
				return
			}
			want := []findingWant{{rule: RuleSyntax, line: tt.line, col: tt.col, msg: tt.msg}}
			if got := gotFindings(f); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("got findings %+v, want %+v", got, want)
			}
			if kerr == nil || kerr.Error() != tt.msg {
				t.Errorf("kubectl: got %v, want %q", kerr, tt.msg)
			}
		})
	}
}

// genReader writes n documents, each made by doc(i), without holding
// them: a stream of any size in constant memory.
type genReader struct {
	n, i int
	doc  func(i int) string
	buf  []byte
}

func (g *genReader) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		if g.i == g.n {
			return 0, io.EOF
		}
		g.buf = []byte(g.doc(g.i))
		g.i++
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

// liveHeap is the heap in use once garbage is collected.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestDocReaderBoundedMemory reads a generated stream of 50 MB of small
// documents through a DocReader and checks that the live heap stays
// flat: memory follows the largest document, not the stream.
func TestDocReaderBoundedMemory(t *testing.T) {
	n := 50_000
	if testing.Short() {
		n = 5_000
	}
	// About 1 KB each, mostly a comment, which the reader cuts and the
	// parser skips cheaply.
	comment := "# " + strings.Repeat("c", 960) + "\n"
	g := &genReader{n: n, doc: func(i int) string {
		return fmt.Sprintf("---\n%sapiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\n", comment, i)
	}}
	r := NewDocReader("big.yaml", g)
	base := liveHeap()
	var peak uint64
	docs := 0
	for {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if f.Count != 1 || len(f.Documents) != 1 || f.Base != docs || f.Documents[0].Index != docs {
			t.Fatalf("document %d: got Count %d, %d objects, Base %d", docs, f.Count, len(f.Documents), f.Base)
		}
		docs++
		if docs%(n/10) == 0 {
			peak = max(peak, liveHeap())
		}
	}
	if docs != n {
		t.Fatalf("got %d documents, want %d", docs, n)
	}
	grown := int64(peak) - int64(base)
	t.Logf("%d documents, %d MB read; live heap grew by at most %d KiB", n, int64(n)*int64(len(comment)+60)/1e6, grown>>10)
	if grown > 4<<20 {
		t.Errorf("live heap grew by %d KiB while reading, want it flat (under 4 MiB)", grown>>10)
	}
}

// TestDocReaderSizeBound: a document over the bound is a finding at its
// first line and is skipped without being held, whether its text is many
// lines or one endless line, YAML or JSON; the documents around it read
// as usual.
func TestDocReaderSizeBound(t *testing.T) {
	const limit = 1 << 10
	small := func(name string) string { return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + "}\n" }
	longLines := small("big") + "data:\n" + strings.Repeat("  k: "+strings.Repeat("v", 100)+"\n", 20)
	tests := []struct {
		name  string
		in    string
		names []string
		// line of the size finding, its document index
		line, doc int
		texts     []bool // which documents keep a text
	}{
		{name: "many lines", in: small("a") + "---\n" + longLines + "---\n" + small("b"), names: []string{"a", "b"}, line: 5, doc: 1, texts: []bool{true, false, true}},
		{name: "one long line", in: small("a") + "---\nx: " + strings.Repeat("v", 5000) + "\n---\n" + small("b"), names: []string{"a", "b"}, line: 5, doc: 1, texts: []bool{true, false, true}},
		{
			// The glued separator starts the document, which it makes too
			// large: b is in it.
			name: "long line with a separator glued", in: "---" + strings.Repeat("v", 5000) + "\n" + small("b") + "---\n" + small("c"),
			names: []string{"c"}, line: 1, doc: 0, texts: []bool{false, true},
		},
		{name: "last document, no final newline", in: small("a") + "---\n" + strings.Repeat("v", 5000), names: []string{"a"}, line: 5, doc: 1, texts: []bool{true, false}},
		{
			name: "JSON", in: `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}` + "\n" +
				`{"apiVersion": "v1", "data": {"k": "` + strings.Repeat("v", 5000) + `\"}"}}` + "\n" +
				`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}`,
			names: []string{"a", "b"}, line: 2, doc: 1, texts: []bool{true, false, true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, chunked := range []bool{false, true} {
				var r *DocReader
				if chunked {
					r = NewDocReader("f.yaml", &chunkReader{data: []byte(tt.in), rng: rand.New(rand.NewPCG(1, 2))})
				} else {
					r = newBytesReader("f.yaml", []byte(tt.in))
				}
				r.MaxDocumentSize = limit
				f, err := readAllDocs(r)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, d := range f.Documents {
					names = append(names, d.Object.Name)
				}
				if fmt.Sprint(names) != fmt.Sprint(tt.names) {
					t.Errorf("chunked %v: got documents %q, want %q (findings %+v)", chunked, names, tt.names, f.Findings)
				}
				var sized []report.Finding
				for _, x := range f.Findings {
					if x.Rule == RuleDocumentSize {
						sized = append(sized, x)
					}
				}
				if len(sized) != 1 || sized[0].Line != tt.line || sized[0].Column != 1 || sized[0].Document != tt.doc ||
					!strings.Contains(sized[0].Message, "larger than the 1 KiB a document may have here") {
					t.Errorf("chunked %v: got size findings %+v, want one at line %d, document %d", chunked, sized, tt.line, tt.doc)
				}
				var texts []bool
				for _, x := range f.Texts {
					texts = append(texts, x != nil)
				}
				if fmt.Sprint(texts) != fmt.Sprint(tt.texts) {
					t.Errorf("chunked %v: got texts kept %v, want %v", chunked, texts, tt.texts)
				}
			}
		})
	}
}

// TestDocReaderEndlessLine reads a 200 MB line with a 1 MiB bound: a
// finding, and memory that never holds more than the bound.
func TestDocReaderEndlessLine(t *testing.T) {
	size := 200 << 20
	if testing.Short() {
		size = 20 << 20
	}
	line := strings.Repeat("v", 1<<20)
	g := &genReader{n: size >> 20, doc: func(i int) string {
		if i == 0 {
			return "x: " + line[3:]
		}
		return line
	}}
	r := NewDocReader("long.yaml", g)
	r.MaxDocumentSize = 1 << 20
	base := liveHeap()
	var grown int64
	elapsed, _ := measured(func() {
		for {
			f, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			grown = max(grown, int64(liveHeap())-int64(base))
			if len(f.Findings) != 1 || f.Findings[0].Rule != RuleDocumentSize || f.Findings[0].Line != 1 {
				t.Errorf("got findings %+v, want one %s at line 1", f.Findings, RuleDocumentSize)
			}
		}
	})
	t.Logf("%d MiB line read in %v, live heap grown by %d KiB", size>>20, elapsed, grown>>10)
	if grown > 8<<20 {
		t.Errorf("live heap grew by %d KiB, want at most a few times the 1 MiB bound", grown>>10)
	}
}

// endless reads head, then fill (x when empty) forever.
type endless struct {
	head, fill string
	i          int
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.head)
	e.head = e.head[n:]
	if e.fill == "" {
		e.fill = "x"
	}
	for i := n; i < len(p); i++ {
		p[i] = e.fill[e.i%len(e.fill)]
		e.i++
	}
	return len(p), nil
}

// TestDocReaderEndless: a document that never ends (a FIFO fed forever)
// is a finding as soon as it crosses the bound, YAML or JSON, on one line
// or many; the documents before it come first.
func TestDocReaderEndless(t *testing.T) {
	tests := []struct {
		name, head, fill string
		line             int
	}{
		{"YAML, one line", cm1 + "---\ndata: ", "", 8},
		{"YAML, many lines", cm1 + "---\ndata: |\n", "  x\n", 8},
		{"JSON", `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}` + "\n" + `{"data": "`, "", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewDocReader("fifo", &endless{head: tt.head, fill: tt.fill})
			r.MaxDocumentSize = 1 << 20
			done := make(chan []*File, 1)
			go func() {
				var files []*File
				for range 2 {
					f, err := r.Next()
					if err != nil {
						break
					}
					files = append(files, f)
				}
				done <- files
			}()
			select {
			case files := <-done:
				if len(files) != 2 || len(files[0].Documents) != 1 {
					t.Fatalf("got %d Files, want the document before and the finding", len(files))
				}
				x := files[1].Findings
				if len(x) != 1 || x[0].Rule != RuleDocumentSize || x[0].Line != tt.line || x[0].Document != 1 {
					t.Errorf("got findings %+v, want one %s at line %d, document 1", x, RuleDocumentSize, tt.line)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("no finding after 20 s")
			}
		})
	}
}

// chunkReader returns data in reads of random sizes, some empty.
type chunkReader struct {
	data []byte
	rng  *rand.Rand
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.data), c.rng.IntN(300))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// TestDocReaderReadError: documents before a failing read are returned,
// then an *InputError naming the path; nothing after it.
func TestDocReaderReadError(t *testing.T) {
	in := io.MultiReader(strings.NewReader(cm1+"---\n"+cm2+"---\napiVersion: v1\n"), errReader{errors.New("input/output error")})
	r := NewDocReader("f.yaml", in)
	var names []string
	var err error
	for {
		var f *File
		if f, err = r.Next(); err != nil {
			break
		}
		for _, d := range f.Documents {
			names = append(names, d.Object.Name)
		}
	}
	var ie *InputError
	if !errors.As(err, &ie) || err.Error() != "read f.yaml: input/output error" {
		t.Errorf("got error %v (%T), want *InputError %q", err, err, "read f.yaml: input/output error")
	}
	if fmt.Sprint(names) != "[one two]" {
		t.Errorf("got documents %q, want [one two]", names)
	}
	if _, again := r.Next(); again != err {
		t.Errorf("Next after the error: got %v, want the same error", again)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestDocReaderMatchesParse reads inputs through a DocReader in reads of
// random sizes and checks that the Files it returns, put together, are
// what Parse gives; and that each File is one document's worth.
func TestDocReaderMatchesParse(t *testing.T) {
	inputs := append([]string(nil), fuzzSeeds...)
	inputs = append(inputs, nodeJSONCases...)
	for i, in := range inputs {
		data := []byte(in)
		want := Parse("f.yaml", data)
		r := NewDocReader("f.yaml", &chunkReader{data: data, rng: rand.New(rand.NewPCG(uint64(i), 9))})
		got, err := readAllDocs(r)
		if err != nil {
			t.Fatal(err)
		}
		checkSameFile(t, fmt.Sprintf("input %d %.30q", i, in), got, want)
		// One document per File.
		r = NewDocReader("f.yaml", bytes.NewReader(data))
		next := 0
		for {
			f, err := r.Next()
			if err != nil {
				break
			}
			if f.Count > 1 || f.Base != next || len(f.Texts) != f.Count {
				t.Errorf("input %d: got a File with Count %d, Base %d, %d texts; want one document at %d", i, f.Count, f.Base, len(f.Texts), next)
			}
			for _, d := range f.Documents {
				if d.Index != f.Base || f.Text(d.Index) == nil && f.Count == 1 {
					t.Errorf("input %d: document Index %d in a File of Base %d", i, d.Index, f.Base)
				}
			}
			next += f.Count
		}
		if next != want.Count {
			t.Errorf("input %d: Files count %d documents, Parse %d", i, next, want.Count)
		}
	}
}

// checkSameFile compares two reads of the same input.
func checkSameFile(t *testing.T, name string, got, want *File) {
	t.Helper()
	if fmt.Sprint(gotFindings(got)) != fmt.Sprint(gotFindings(want)) {
		t.Errorf("%s: findings\n got %+v\nwant %+v", name, gotFindings(got), gotFindings(want))
	}
	if fmt.Sprint(gotDocs(got)) != fmt.Sprint(gotDocs(want)) {
		t.Errorf("%s: documents\n got %+v\nwant %+v", name, gotDocs(got), gotDocs(want))
	}
	if got.Count != want.Count || got.Skips().SkippedText() != want.Skips().SkippedText() || len(got.Texts) != len(want.Texts) {
		t.Errorf("%s: got Count %d, %q, %d texts; want %d, %q, %d", name, got.Count, got.Skips().SkippedText(), len(got.Texts), want.Count, want.Skips().SkippedText(), len(want.Texts))
	}
	for i := range min(len(got.Texts), len(want.Texts)) {
		if !bytes.Equal(got.Texts[i], want.Texts[i]) {
			t.Errorf("%s: text %d:\n got %q\nwant %q", name, i, got.Texts[i], want.Texts[i])
		}
	}
}

// TestDocReaderBinary feeds bytes that are not text through a DocReader:
// positioned findings, no hang, in YAML and in JSON mode.
func TestDocReaderBinary(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	random := make([]byte, 1<<20)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	tests := []struct {
		name string
		in   []byte
	}{
		{"random MiB", random},
		{"NUL bytes", bytes.Repeat([]byte{0}, 1<<20)},
		{"JSON then random", append([]byte(`{"a": `), random...)},
		{"JSON objects then random", append([]byte(`{"a": 1}{"b": 2}{"c": `), random...)},
		{"invalid UTF-8 in JSON strings", []byte("{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"\xff\xfe\"}}")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan *File, 1)
			go func() {
				f, _ := readAllDocs(NewDocReader("bin", &chunkReader{data: tt.in, rng: rand.New(rand.NewPCG(7, 8))}))
				done <- f
			}()
			select {
			case f := <-done:
				checkSane(t, tt.in, f)
				if len(f.Findings) == 0 && len(f.Documents) == 0 {
					t.Errorf("got neither findings nor documents")
				}
				if want := Parse("bin", tt.in); fmt.Sprint(gotFindings(f)) != fmt.Sprint(gotFindings(want)) {
					t.Errorf("streamed findings %+v differ from Parse's %+v", gotFindings(f), gotFindings(want))
				}
			case <-time.After(20 * time.Second):
				t.Fatal("still reading after 20 s")
			}
		})
	}
}
