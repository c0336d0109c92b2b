package source

import (
	"fmt"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

func TestZZExplore(t *testing.T) {
	for _, in := range []string{
		"a: 1\na: 2\n",
		"spec:\n  a: 1\n  b: 2\n  a: 3\n",
		"base: &b {x: 1, y: 2}\nm:\n  x: 9\n  <<: *b\n",
		"base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  x: 9\n",
		"on: yes\nyes: no\n",
		"a: 1\r\nb: |\r\n  x\r\n  y\r\n",
		"a: \"x\r\n  y\"\r\n",
		"- a\n- b\n",
		"foo\n",
		"null\n",
		"~\n",
		"",
		"# c\n",
		"a: 1\n...\n",
		"a: 1\n...\nb: 2\n",
		"--- foo\n",
		"a: [1, 2\n",
		"a: b: c\n",
		"a:\n\tb: 1\n",
		"a: \x00\n",
		"k: 1\n1: 2\n",
		"? [a, b]\n: 1\n",
		"a: &x 1\nb: *y\n",
	} {
		js, err := sigsyaml.YAMLToJSON([]byte(in))
		var n yaml.Node
		err3 := yaml.Unmarshal([]byte(in), &n)
		f := Parse("f.yaml", []byte(in))
		fmt.Printf("%q\n  sigs: %s err=%v\n  v3 err=%v kind=%v\n  parse: count=%d docs=%d skipped=%d findings=%+v\n", in, js, err, err3, n.Kind, f.Count, len(f.Documents), f.Skipped, f.Findings)
	}
	var b strings.Builder
	b.WriteString("a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	st := time.Now()
	f := Parse("bomb.yaml", []byte(b.String()))
	fmt.Printf("bomb: %v %+v\n", time.Since(st), f.Findings)
	for _, n := range []int{10000, 100000} {
		st = time.Now()
		f = Parse("deep.yaml", []byte(strings.Repeat("[", n)+strings.Repeat("]", n)))
		fmt.Printf("deep flow %d: %v %+v\n", n, time.Since(st), f.Findings)
		var sb strings.Builder
		for i := 0; i < n; i++ {
			sb.WriteString(strings.Repeat(" ", i) + "a:\n")
		}
		st = time.Now()
		f = Parse("deepb.yaml", []byte(sb.String()))
		fmt.Printf("deep block %d: %v %+v\n", n, time.Since(st), f.Findings)
	}
}
