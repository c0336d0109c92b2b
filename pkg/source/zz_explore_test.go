package source

import (
	"fmt"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"
)

func TestZZExplore(t *testing.T) {
	for _, in := range []string{
		"base: &b {x: 1}\nm: {\"<<\": *b}\n",
		"base: &b {x: 1}\nm: {!!merge '<<': *b}\n",
		"{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}\n",
		"{\"a\": 1}\n{\"b\": 2}\n",
		"017: a\n0x1F: b\n1.0: c\n1_000: d\n+1: e\n1e3: f\n.5: g\n0.1: h\n1.23456789: i\n-0: j\n0o17: k\n.inf: l\n",
		"? |\n  x\n: 1\n",
		"a: &k key\n*k : 1\n",
		"a: 1\n\"1\": 2\n1: 3\n",
	} {
		js, err := sigsyaml.YAMLToJSON([]byte(in))
		f := Parse("f.yaml", []byte(in))
		fmt.Printf("%q -> %s %v\n   %+v\n", in, js, err, f.Findings)
	}
}
