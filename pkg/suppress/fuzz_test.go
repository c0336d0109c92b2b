package suppress

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// FuzzScan: any text scans without panicking; directives cover lines of
// the file and start no later than they end; and no directive comes from
// inside a string: each is a comment by the YAML parser's own account
// (go.yaml.in/yaml/v3 attaches the comments it reads to nodes) or at
// least not in the text of any scalar (v3 drops some junk, with its
// comments, after a document's root: " -\n0 # c").
func FuzzScan(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("a: |\n  # crdlint:ignore crd-no-pruning -- r\nb: 1\n"))
	f.Add([]byte("a: \"x\n  # crdlint:ignore crd-no-pruning -- r\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := Scan("f.yaml", data, testRules)
		lines := strings.Count(string(data), "\n") + 1
		real, scalars := yamlText(data)
		for _, d := range s.Directives {
			if d.First < 1 || d.First > d.Last || d.Last > lines || d.Line < 1 || d.Line > lines || d.Column < 1 {
				t.Fatalf("directive %+v out of the file's %d lines", d, lines)
			}
			text := commentAt(data, d.Line, d.Column)
			if !real[text] && strings.Contains(scalars, strings.TrimSpace(strings.TrimPrefix(text, "#"))) {
				t.Fatalf("directive at %d:%d %q is not a comment the YAML parser saw", d.Line, d.Column, text)
			}
		}
		for _, x := range s.Invalid {
			if x.Line < 1 || x.Column < 1 || x.Rule != RuleInvalid {
				t.Fatalf("bad invalid-suppression %+v", x)
			}
		}
		fs := []report.Finding{{Rule: ruleA, File: "f.yaml", Line: 1}, {Rule: ruleB, File: "f.yaml", Line: lines}}
		kept, sup, _ := s.Apply(fs, nil)
		if len(kept)+len(sup) != len(fs) {
			t.Fatal("Apply lost findings")
		}
	})
}

// yamlText is every comment line go.yaml.in/yaml/v3 attaches to the
// nodes of each document, trimmed, and the values of all their scalars.
func yamlText(data []byte) (map[string]bool, string) {
	out := map[string]bool{}
	var scalars strings.Builder
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 1000 {
			return
		}
		for _, c := range []string{n.HeadComment, n.LineComment, n.FootComment} {
			for _, l := range strings.Split(c, "\n") {
				out[strings.TrimSpace(l)] = true
			}
		}
		if n.Kind == yaml.ScalarNode {
			scalars.WriteString(n.Value + "\x00")
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	for _, c := range chunks(data) {
		var doc yaml.Node
		if yaml.Unmarshal(data[c.start:c.end], &doc) == nil {
			walk(&doc, 0)
		}
	}
	return out, scalars.String()
}

// commentAt is the text from the "#" at line:col to the end of the line.
func commentAt(data []byte, line, col int) string {
	l := strings.Split(string(data), "\n")[line-1]
	i := 0
	for c := 1; c < col && i < len(l); c++ {
		_, size := utf8.DecodeRuneInString(l[i:])
		i += size
	}
	return strings.TrimSpace(strings.TrimRight(l[i:], "\r"))
}
