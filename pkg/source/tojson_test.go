package source

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
)

// checkNodeJSON compares, for every document of data that v3 parses,
// nodeJSON with sigs.k8s.io/yaml.YAMLToJSON: when nodeJSON answers, kubectl's
// library must succeed with the same bytes, and the object it gives must
// be what the server's decoder reads from them. It returns how many documents
// took the fast path and how many were compared in all.
func checkNodeJSON(t testing.TB, name string, data []byte) (fast, all int) {
	chunks, _ := split(data)
	for i, c := range chunks {
		var n yaml.Node
		if yaml.Unmarshal(c.text, &n) != nil || n.Kind == 0 || len(n.Content) == 0 {
			continue
		}
		all++
		js, obj, ok := nodeJSON(c, &n)
		if !ok {
			continue
		}
		if obj != nil {
			var server map[string]any
			if err := utiljson.Unmarshal(js, &server); err != nil {
				t.Fatalf("%s: document %d: the server cannot decode %s: %v", name, i, js, err)
			}
			if !reflect.DeepEqual(obj, server) {
				t.Fatalf("%s: document %d: nodeJSON's object\n%#v\nthe server's\n%#v\ntext:\n%s", name, i, obj, server, c.text)
			}
			// Identifying from the object reads what decoding the JSON
			// reads.
			var id identity
			if err := utiljson.Unmarshal(js, &id); err != nil {
				t.Fatalf("%s: document %d: %v", name, i, err)
			}
			slow, fast := &Document{}, &Document{}
			okSlow, okFast := slow.identify(id), fast.identify(identityOf(obj))
			if okSlow != okFast || slow.Object != fast.Object {
				t.Fatalf("%s: document %d: identify from the object: %v %+v, from the JSON: %v %+v", name, i, okFast, fast.Object, okSlow, slow.Object)
			}
			if (id.Items != nil) != (identityOf(obj).Items != nil) {
				t.Fatalf("%s: document %d: items from the object: %v, from the JSON: %v", name, i, identityOf(obj).Items != nil, id.Items != nil)
			}
		}
		fast++
		if d := keyFindings(n.Content[0], name, i); len(d) > 0 {
			t.Fatalf("%s: document %d: nodeJSON answered for a document with a repeated key: %v", name, i, d[0].Message)
		}
		want, err := sigsyaml.YAMLToJSON(c.text)
		if err != nil {
			t.Fatalf("%s: document %d: nodeJSON gave %s where sigs.k8s.io/yaml fails: %v\n%s", name, i, js, err, c.text)
		}
		if !bytes.Equal(js, want) {
			t.Fatalf("%s: document %d: nodeJSON\n%s\nsigs.k8s.io/yaml\n%s\ntext:\n%s", name, i, js, want, c.text)
		}
	}
	return fast, all
}

// nodeJSONCases are the YAML 1.1 readings kubectl's library gives that a
// YAML 1.2 reader would not, and the constructs nodeJSON leaves to it.
var nodeJSONCases = []string{
	"a: yes\nb: no\nc: on\nd: off\ne: y\nf: N\ng: True\nh: FALSE\ni: YES\nj: Off\n",
	"a: 0755\nb: 0x1F\nc: 0b101\nd: -0b11\ne: 1_000\nf: +12\ng: -0\nh: 0o17\ni: 08\nj: 0_7\n",
	"a: 1e3\nb: 1.0\nc: .5\nd: 1.\ne: -1.5e-3\nf: 1e400\ng: 6.02E+23\nh: 1_0.5\ni: +.5\nj: 3.14159265358979323846\n",
	"a: 9223372036854775807\nb: 9223372036854775808\nc: 18446744073709551615\nd: 18446744073709551616\ne: -9223372036854775809\n",
	"a: 2001-12-14\nb: 2001-12-14t21:59:43.10-05:00\nc: 2001-12-14 21:59:43.10\nd: 2001-12-14T21:59:43Z\ne: 2001-13-14\nf: 12001-12-14\n",
	"a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: ''\ng: \"\"\nh: nULL\n",
	"a: .inf\n", "a: -.Inf\n", "a: +.INF\n", "a: .nan\n", "a: .NaN\n", "a: .infinity\n", "a: .5e999\n",
	"a: &x {b: 1}\nc: *x\n", "a: &x 1\n", "<<: {a: 1}\nb: 2\n", "a:\n  <<: [{b: 1}, {c: 2}]\n",
	"a: !!str 123\n", "a: !!int '7'\n", "a: ! 12\n", "a: !foo bar\n", "a: !!binary aGVsbG8=\n", "!!map {a: 1}\n", "a: !!null\n",
	"a: '!'\nb: \"!x\"\nc: x!\nd: [!a]\n", "a: ! \n", "? !!str a\n: b\n",
	"a: 1\na: 2\n", "1: a\n'1': b\n", "1: a\n", "true: a\n", "~: a\n", "1.5: a\n", "? [a]\n: b\n", "? {a: 1}\n: b\n",
	"a: |\n  x\n  y\nb: >\n  x\n  y\n\n  z\nc: |-\n  t\nd: >+\n  u\n\n",
	"a: 'it''s'\nb: \"tab\\there \\u00e9 \\x41 \\\"q\\\"\"\nc: \"<&>\"\nd: plain text with: colon\ne: multi\n  line plain\n",
	"- 1\n- [2, 3]\n- {a: b}\n- - nested\n",
	"{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"j\"}, \"data\": {\"x\": 1.50}}\n",
	"a: \"\u2028\"\nb: é\nc: \"\\u2029\"\n", "\xef\xbb\xbfa: 1\n", "a: 1\r\nb: 2\r\n", "a: b\rc: d\n",
	"a: 1\n...\nb: 2\n", "%YAML 1.1\n---\na: 1\n", "scalar\n", "42\n", "[1, 2]\n", "'quoted'\n",
	"a: [1, 2\n", "a: b: c\n", "a:\n\t- b\n", "a: @x\n", "a: `x\n", "key: value # comment\n",
	"a: -0.0\nb: -0\nc: 0.0\nd: -1.0\ne: 1e2\nf: 12345678901234567890.0\ng: 1e-7\nh: \"\\xff\"\n",
	"a: 0.1\nb: 100000000000000000000.0\nc: 1e21\nd: 1e20\ne: 0.000001\nf: 0.0000001\ng: 123456789.123456789e-3\n",
	"a: -\nb: +\nc: .\nd: -.\ne: 0x\nf: 0b\ng: -0b\nh: 1e\ni: 1.2.3\nj: 1__2\nk: _1\n",
	"y: 1\nn: 2\nyes: 3\n",
	"ApiVersion: v1\nKIND: X\nkind: Y\nMetadata: {name: a}\nmetadata: {name: b, namespace: 3}\n",
	"APIVERSION: v1\nApiversion: v2\nkind: [x]\nitems: 1\n", "apiVersion: v1\nkind: List\nItems: [{apiVersion: v1, kind: A}]\n",
	"apiVersion: 1\nkind: K\nmetadata: [a]\n", "apiVersion: v1\nkind: K\nmetadata: {name: 7, namespace: ns}\n", "ÀpiVersion: v1\nkind: K\n",
	"apiVersion: v1\nkind: K\nſpec: 1\nitems: null\n", "apiVersion: v1\nkind: \"\"\n",
	// UTF-16BE with a BOM: a bare "!" tag makes 12 a string (found in review).
	"\xfe\xff\x00a\x00:\x00 \x00!\x00 \x001\x002\x00\n\x00b\x00:\x00 \x00!\x00 \x00y\x00e\x00s\x00\n",
}

func TestNodeJSON(t *testing.T) {
	for _, s := range nodeJSONCases {
		checkNodeJSON(t, "case", []byte(s))
	}
	for _, s := range fuzzSeeds {
		checkNodeJSON(t, "seed", []byte(s))
	}
	// The fast path must be the common one: YAML 1.1 scalars, quoted
	// strings and block scalars all take it.
	fast, _ := checkNodeJSON(t, "readings", []byte(strings.Join(nodeJSONCases[:5], "---\n")))
	if fast != 5 {
		t.Errorf("only %d of the 5 plain-scalar documents took the fast path", fast)
	}
}

// TestNodeJSONCorpus compares nodeJSON with sigs.k8s.io/yaml on every
// document of the shared corpus, and requires the fast path to be taken
// for nearly all of them.
func TestNodeJSONCorpus(t *testing.T) {
	var fast, all int
	for _, sub := range []string{"crds", "crs"} {
		for _, p := range testutil.Files(t, sub) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			f, a := checkNodeJSON(t, p, data)
			fast, all = fast+f, all+a
		}
	}
	t.Logf("%d of %d corpus documents took the fast path", fast, all)
	if fast < all*9/10 {
		t.Errorf("only %d of %d corpus documents took the fast path", fast, all)
	}
}

func FuzzNodeJSON(f *testing.F) {
	for _, s := range nodeJSONCases {
		f.Add([]byte(s))
	}
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	corpusSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		checkNodeJSON(t, "fuzz", data)
	})
}
