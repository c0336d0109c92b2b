package source

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// checkSane checks what must hold for any input: findings inside the file
// (a syntax error may point just past the last line, at end of stream),
// documents with a root and JSON.
func checkSane(t *testing.T, data []byte, f *File) {
	t.Helper()
	lines := strings.Count(string(data), "\n") + 1
	for _, x := range f.Findings {
		if x.Line < 1 || x.Line > lines+1 || x.Column < 1 {
			t.Errorf("finding %+v: got position %d:%d, want a line in 1..%d and a column >= 1", x, x.Line, x.Column, lines+1)
		}
		if x.Rule == "" || x.Message == "" {
			t.Errorf("finding %+v: want a rule and a message", x)
		}
	}
	for _, d := range f.Documents {
		if d.Root == nil || len(d.JSON) == 0 {
			t.Errorf("document %d/%d: got Root %v and JSON %q, want both", d.Index, d.Item, d.Root, d.JSON)
		}
	}
}

func TestParseNothing(t *testing.T) {
	tests := []struct {
		name, in string
	}{
		{"empty", ""},
		{"newlines", "\n\n\n"},
		{"spaces and CRLF", "  \n \r\n   \r\n"},
		{"comments", "# a\n   # b\n\n#c"},
		{"separators and comments", "---\n# a\n---\n--- # b\n...\n"},
		{"null documents", "null\n---\n~\n---\nNULL\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse("f.yaml", []byte(tt.in))
			if f.Count != 0 || len(f.Documents) != 0 || len(f.Findings) != 0 || f.Skipped != 0 {
				t.Errorf("got Count %d, %d documents, findings %+v, Skipped %d; want nothing", f.Count, len(f.Documents), f.Findings, f.Skipped)
			}
			if docs, err := kubectlDocs([]byte(tt.in)); err != nil || len(docs) != 0 {
				t.Errorf("kubectl: got %q, %v; want nothing either", docs, err)
			}
		})
	}
}

func TestParseBinary(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	random[10] = 0
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00\x1f\xf3\xffa")
	tests := []struct {
		name string
		in   []byte
		line int
	}{
		{"random bytes with NULs", random, 1},
		// kubectl reads the first line ("\ufffdPNG"), not the second.
		{"PNG header", png, 2},
		{"NUL after good lines", []byte("a: 1\nb: 2\nc: \x00\n"), 3},
		// A tab where indentation is expected is a YAML error, even on a
		// line with nothing else, and kubectl fails on it too.
		{"tab-only line", []byte("a: 1\n\t\n"), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAsKubectl(t, tt.in)
			f := Parse("f.bin", tt.in)
			checkSane(t, tt.in, f)
			var syntax []int
			for _, x := range f.Findings {
				if x.Rule == RuleSyntax {
					syntax = append(syntax, x.Line)
				}
			}
			if len(syntax) == 0 {
				t.Fatalf("got findings %+v, want a %s finding", f.Findings, RuleSyntax)
			}
			if syntax[0] != tt.line {
				t.Errorf("got the first %s finding at line %d, want %d", RuleSyntax, syntax[0], tt.line)
			}
		})
	}
}

// aliasBomb is the "billion laughs": levels of anchors, each a list of
// aliases to the one before, 9^levels strings once expanded.
func aliasBomb(levels, width int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\na0: &a0 [lol]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := range width {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	return []byte(b.String())
}

func TestParseAliasBomb(t *testing.T) {
	data := aliasBomb(9, 9)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f := Parse("bomb.yaml", data)
	runtime.ReadMemStats(&after)
	checkSane(t, data, f)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
		t.Errorf("got %d MiB allocated, want the expansion refused well before 256 MiB", alloc>>20)
	}
	// *a5 stands for 125,479 nodes: with the 141,156 that the aliases of
	// the lines before add, the budget of a million nodes runs out at the
	// 7th alias in a6's list (line 9, column 40).
	if len(f.Findings) != 1 {
		t.Fatalf("got findings %+v, want one", f.Findings)
	}
	got := f.Findings[0]
	// Nodes go over their bound first: the message compares nodes with
	// nodes, not with the bound in bytes.
	const msg = "yaml: document contains excessive aliasing: its aliases up to this one add 1,019,509 nodes, over the 1,000,000 nodes crdlint expands (all of them would add 926,177,094 nodes and 2.08 GiB)"
	if got.Rule != RuleAliasBudget || got.Line != 9 || got.Column != 40 || got.Message != msg {
		t.Errorf("got %+v, want %s at 9:40: %s", got, RuleAliasBudget, msg)
	}
	if len(f.Documents) != 0 {
		t.Errorf("got %d documents, want none", len(f.Documents))
	}
}

// TestParseDeep feeds nesting at and beyond the YAML libraries' limit of
// 10,000 levels: the loader's own walks must not recurse on it.
func TestParseDeep(t *testing.T) {
	blockMaps := func(n int) []byte {
		var b strings.Builder
		b.WriteString("apiVersion: v1\nkind: ConfigMap\ndata:\n")
		for i := range n {
			b.WriteString(strings.Repeat(" ", i+1))
			b.WriteString("a:\n")
		}
		return []byte(b.String())
	}
	tests := []struct {
		name string
		in   []byte
		// path is located in every document, deep as the nesting.
		path string
	}{
		{"flow sequences 10,000", []byte("a: " + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + "\n"), "a" + strings.Repeat("[0]", 9998)},
		{"flow sequences 10,000 at the top", []byte(strings.Repeat("[", 10000) + strings.Repeat("]", 10000)), ""},
		{"flow sequences 100,000", []byte(strings.Repeat("[", 100000) + strings.Repeat("]", 100000)), ""},
		{"flow mappings 100,000 unclosed", []byte("a: " + strings.Repeat("{a: ", 100000)), ""},
		{"block mappings 10,000", blockMaps(9998), "data" + strings.Repeat(".a", 9997)},
		{"block mappings 10,001", blockMaps(10001), ""},
		{"block sequences 100,000", []byte(strings.Repeat("- ", 100000) + "x\n"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAsKubectl(t, tt.in)
			f := Parse("deep.yaml", tt.in)
			checkSane(t, tt.in, f)
			if len(f.Documents) == 0 && len(f.Findings) == 0 && f.Skipped == 0 {
				t.Errorf("got no document, finding or skipped document, want one of them")
			}
			for _, d := range f.Documents {
				if _, exact := d.Locate(tt.path); !exact {
					t.Errorf("Locate of a path %d long: got exact=false, want true", len(tt.path))
				}
			}
		})
	}
}

func TestParseNonObjects(t *testing.T) {
	tests := []struct {
		name, in, kind string
		line, col      int
	}{
		{"empty flow list", "[]\n", "list", 1, 1},
		{"block list", "# c\n- a: 1\n- b\n", "list", 2, 1},
		{"string", "\"apiVersion: v1\"\n", "scalar", 1, 1},
		{"number", "42\n", "scalar", 1, 1},
		{"boolean", "---\nyes\n", "scalar", 2, 1},
		{"block scalar", "\n|\n  text\n", "scalar", 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readsAsKubectl(t, []byte(tt.in))
			f := Parse("f.yaml", []byte(tt.in))
			want := []findingWant{{rule: RuleNotAnObject, line: tt.line, col: tt.col,
				msg: "document is a " + tt.kind + ", not an object: Kubernetes manifests are mappings with apiVersion and kind"}}
			if got := gotFindings(f); !reflect.DeepEqual(got, want) {
				t.Errorf("got findings %+v, want %+v", got, want)
			}
			if f.Count != 1 || len(f.Documents) != 0 {
				t.Errorf("got Count %d and %d documents, want 1 and none", f.Count, len(f.Documents))
			}
		})
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "cm.yaml")
	if err := os.WriteFile(good, []byte(cm2), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope.yaml")
	tests := []struct {
		name     string
		path     string
		stdin    io.Reader
		file     string // File.Path on success
		tooLarge bool   // the only document is over the size bound
		wantErr  string
	}{
		{name: "file", path: good, file: good},
		{name: "stdin", path: "-", stdin: strings.NewReader(cm2), file: StdinPath},
		{name: "missing file", path: missing, wantErr: "read " + missing + ": no such file or directory"},
		{name: "directory", path: dir, wantErr: "read " + dir + ": is a directory"},
		{
			// A document over the bound is a finding, not a refusal.
			name: "stdin beyond the size bound", path: "-",
			stdin: io.LimitReader(zeros{}, DefaultMaxDocumentSize+10), file: StdinPath, tooLarge: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Read(tt.path, tt.stdin)
			if tt.wantErr != "" {
				var ie *InputError
				if !errors.As(err, &ie) {
					t.Fatalf("got error %v (%T), want an *InputError", err, err)
				}
				if err.Error() != tt.wantErr {
					t.Errorf("got error %q, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.tooLarge {
				if f.Path != tt.file || f.Count != 1 || len(f.Findings) != 1 || f.Findings[0].Rule != RuleDocumentSize {
					t.Errorf("got Path %q, Count %d, findings %+v; want one %s finding", f.Path, f.Count, f.Findings, RuleDocumentSize)
				}
				return
			}
			if f.Path != tt.file || len(f.Documents) != 1 || f.Documents[0].File != tt.file {
				t.Errorf("got Path %q and %d documents, want %q and 1", f.Path, len(f.Documents), tt.file)
			}
		})
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{
		"b.yaml", "a.yml", "c.json", "D.YAML", "notes.txt", "Makefile", "yaml",
		".hidden.yaml", ".git/config.yaml", "sub/z.yaml", "sub/.x/y.yaml", "sub/deeper/a.yaml",
		"a-dir.yaml/inner.yml",
		"vendor/github.com/x/crds/w.yaml", "sub/node_modules/pkg/package.json", "vendorish/v.yaml", "sub/vendor.yaml",
	} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := func(ps ...string) []string {
		for i, p := range ps {
			ps[i] = filepath.Join(dir, p)
		}
		return ps
	}
	tests := []struct {
		name    string
		args    []string
		want    []string
		wantErr string
	}{
		{
			name: "directory: lexical order, hidden and other extensions skipped",
			args: []string{dir},
			want: in("D.YAML", "a-dir.yaml/inner.yml", "a.yml", "b.yaml", "c.json", "sub/deeper/a.yaml", "sub/vendor.yaml", "sub/z.yaml", "vendorish/v.yaml"),
		},
		{
			name: "arguments keep their order, files whatever their extension",
			args: append(in("notes.txt", ".hidden.yaml", "sub"), "-"),
			want: append(in("notes.txt", ".hidden.yaml", "sub/deeper/a.yaml", "sub/vendor.yaml", "sub/z.yaml"), "-"),
		},
		{name: "hidden directory named on the command line", args: in(".git"), want: in(".git/config.yaml")},
		{name: "vendor directory named on the command line", args: in("vendor"), want: in("vendor/github.com/x/crds/w.yaml")},
		{name: "a path inside node_modules", args: in("sub/node_modules/pkg"), want: in("sub/node_modules/pkg/package.json")},
		{name: "no arguments", args: nil, want: nil},
		{name: "missing path", args: in("b.yaml", "gone"), wantErr: "read " + filepath.Join(dir, "gone") + ": no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Expand(tt.args)
			if tt.wantErr != "" {
				var ie *InputError
				if !errors.As(err, &ie) || err.Error() != tt.wantErr {
					t.Fatalf("got %v (%T), want *InputError %q", err, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}

// TestWalkMarksVendored: a directory walk lists the files under vendor/
// and node_modules/ below the path given, marked, for commands to count
// them skipped; Expand leaves them out.
func TestWalkMarksVendored(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a.yaml", "vendor/x/crd.yaml", "web/node_modules/p/package.json", "web/z.yaml", "vendor.yaml"} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Walk([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range ws {
		rel, _ := filepath.Rel(dir, w.Path)
		got = append(got, fmt.Sprintf("%s %t", filepath.ToSlash(rel), w.Vendored))
	}
	want := []string{"a.yaml false", "vendor/x/crd.yaml true", "vendor.yaml false", "web/node_modules/p/package.json true", "web/z.yaml false"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n  %q\nwant\n  %q", got, want)
	}
}

// TestParseReadsTextAsKubectl: kubectl's file reader honours a byte order
// mark and replaces bytes that are not UTF-8 with U+FFFD; the loader
// reads the same text, with positions in its characters.
func TestParseReadsTextAsKubectl(t *testing.T) {
	utf16 := func(le bool, s string) []byte {
		out := []byte("\xfe\xff")
		if le {
			out = []byte("\xff\xfe")
		}
		for _, r := range s {
			if le {
				out = append(out, byte(r), byte(r>>8))
			} else {
				out = append(out, byte(r>>8), byte(r))
			}
		}
		return out
	}
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: é}\ndata: {k: v}\n"
	tests := []struct {
		name string
		in   []byte
		json string
		// where data.k is
		line, col int
	}{
		{"UTF-8 byte order mark", []byte("\xef\xbb\xbf" + cm), `{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"name":"é"}}`, 4, 8},
		{"UTF-8 byte order mark before JSON", []byte("\xef\xbb\xbf" + `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "é"}, "data": {"k": "v"}}`),
			`{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"name":"é"}}`, 1, 79},
		{"UTF-16LE", utf16(true, cm), `{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"name":"é"}}`, 4, 8},
		{"UTF-16BE", utf16(false, cm), `{"apiVersion":"v1","data":{"k":"v"},"kind":"ConfigMap","metadata":{"name":"é"}}`, 4, 8},
		{"Latin-1 byte", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: caf\xe9, k: v}\n"),
			`{"apiVersion":"v1","data":{"k":"v","x":"caf` + "\ufffd" + `"},"kind":"ConfigMap","metadata":{"name":"a"}}`, 4, 17},
		{"ill-formed sequence", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: \xc3\x28\xe2\x82, k: v}\n"),
			`{"apiVersion":"v1","data":{"k":"v","x":"` + "\ufffd(\ufffd" + `"},"kind":"ConfigMap","metadata":{"name":"a"}}`, 4, 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range []*File{Parse("f.yaml", tt.in), readStream(t, tt.in)} {
				if len(f.Findings) != 0 || len(f.Documents) != 1 {
					t.Fatalf("got findings %+v and %d documents, want none and 1", f.Findings, len(f.Documents))
				}
				d := f.Documents[0]
				if string(d.JSON) != tt.json {
					t.Errorf("got JSON %s, want %s", d.JSON, tt.json)
				}
				if pos, exact := d.Locate("data.k"); !exact || pos != (Pos{tt.line, tt.col}) {
					t.Errorf("Locate(data.k) = %+v %v, want %d:%d", pos, exact, tt.line, tt.col)
				}
			}
			if docs, err := kubectlDocs(tt.in); err != nil || len(docs) != 1 {
				t.Errorf("kubectl: got %q, %v; want one document", docs, err)
			}
		})
	}
}

// readStream reads data through a DocReader over an io.Reader.
func readStream(t *testing.T, data []byte) *File {
	t.Helper()
	f, err := readAllDocs(NewDocReader("f.yaml", &chunkReader{data: data, rng: rand.New(rand.NewPCG(1, 2))}))
	if err != nil {
		t.Fatal(err)
	}
	return f
}
