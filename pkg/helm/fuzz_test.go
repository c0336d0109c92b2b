package helm

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// FuzzParse holds Parse to pkg/source's cuts: the same documents, with
// the same texts, so that a finding's Document always indexes its
// Source; lines increase and stay inside the stream.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed streams under testdata: %v", err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"", "---", "---\n---\n", "~\n", "null\n---\n# x\n", "--- # c\na: 1\n", "a: 1\r\n---\r\n", "!!null\n", "? a\n", "*x\n", "\xef\xbb\xbfa: 1\n", "a: 1\u2028b: 2\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := Parse(data)
		sf := source.Parse("<stdin>", data)
		if utilyaml.IsJSONBuffer(data[:min(len(data), jsonPeek)]) {
			if got != nil {
				t.Fatalf("a JSON stream gives %d Sources, want none", len(got))
			}
			return
		}
		if len(got) != sf.Count {
			t.Fatalf("Parse gives %d documents, source.Parse %d", len(got), sf.Count)
		}
		var texts [][]byte
		for _, c := range split(source.KubectlText(data)) {
			if counts(c.text) {
				texts = append(texts, c.text)
			}
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		last := 0
		for i, s := range got {
			if !bytes.Equal(texts[i], sf.Texts[i]) {
				t.Fatalf("document %d: text %q, source's %q", i, texts[i], sf.Texts[i])
			}
			if s.Document != i || s.Line <= last || s.Line > lines+1 || s.PathLine != 0 && (s.PathLine < s.Line || s.PathLine > lines) {
				t.Fatalf("document %d of %d lines: %+v after line %d", i, lines, s, last)
			}
			last = s.Line
		}
	})
}
