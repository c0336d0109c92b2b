package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/cli-runtime/pkg/resource"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/testutil"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// kubectlText is the text kubectl reads from a file's bytes: its
// FileVisitor reads through a decoder that honours a byte order mark and
// otherwise replaces what is not UTF-8.
func kubectlText(data []byte) []byte {
	b, err := io.ReadAll(transform.NewReader(bytes.NewReader(data), unicode.BOMOverride(unicode.UTF8.NewDecoder())))
	if err != nil {
		panic(err)
	}
	return b
}

// kubectlRead reads a file as `kubectl create -f FILE` and `kubectl apply
// -f FILE` do before they talk to a server: cli-runtime's resource
// builder, local (no cluster), unstructured, going on after an object it
// cannot decode, lists flattened. It returns the objects kubectl would
// send, in order, and the error that stopped the reading of the stream
// ("error parsing FILE: ..."), if any; errors about single objects (no
// kind, metadata of the wrong type) are left out: they drop that object.
func kubectlRead(path string) (objs []map[string]any, streamErr error) {
	r := resource.NewLocalBuilder().Unstructured().ContinueOnError().
		FilenameParam(false, &resource.FilenameOptions{Filenames: []string{path}}).
		Flatten().Do()
	infos, err := r.Infos()
	for _, info := range infos {
		objs = append(objs, info.Object.(*unstructured.Unstructured).Object)
	}
	prefix := "error parsing " + path + ": "
	for _, e := range flatErrors(err) {
		if strings.HasPrefix(e.Error(), prefix) {
			streamErr = errors.New(strings.TrimPrefix(e.Error(), prefix))
		}
	}
	return objs, streamErr
}

// flatErrors lists the errors of an aggregate, or err alone.
func flatErrors(err error) []error {
	if err == nil {
		return nil
	}
	var agg interface{ Errors() []error }
	if errors.As(err, &agg) {
		var out []error
		for _, e := range agg.Errors() {
			out = append(out, flatErrors(e)...)
		}
		return out
	}
	return []error{err}
}

// kubectlObjects is what kubectl's builder makes of one document's JSON
// as the loader produced it: the objects it would send (several when
// kubectl flattens further), or an error when it refuses the object.
func kubectlObjects(js []byte) ([]map[string]any, error) {
	infos, err := resource.NewLocalBuilder().Unstructured().
		Stream(bytes.NewReader(js), "doc").Flatten().Do().Infos()
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, info := range infos {
		out = append(out, info.Object.(*unstructured.Unstructured).Object)
	}
	return out, nil
}

// readerRules are the rules of findings that refuse what kubectl's
// reader refuses, or that the loader refuses on purpose.
var readerRules = map[string]bool{RuleSyntax: true, RuleAliasBudget: true, RuleDocumentSize: true}

// kubectlMessage is kubectl's error as the loader words it: YAML errors
// lose their wrapping and the line number, which is the position's.
var yamlLineRE = regexp.MustCompile(`^(error converting YAML to JSON: )?yaml: line \d+: `)

func kubectlMessage(err error) string {
	msg := err.Error()
	if m := yamlLineRE.FindString(msg); m != "" {
		return "yaml: " + msg[len(m):]
	}
	return strings.TrimPrefix(msg, "error converting YAML to JSON: ")
}

var jsonOffsetRE = regexp.MustCompile(`^json: offset (\d+): `)

// checkKubectlReads compares Read of the file at path with kubectl's
// reading of it (kubectlRead): where kubectl reads the stream to its end,
// the loader must report no reading error and give the same objects in
// the same order; where kubectl stops at an error, the loader must
// report one on the document where kubectl stopped, in kubectl's words,
// at the byte kubectl names (a JSON offset), and give the same objects
// before it. Objects are compared as kubectl decodes them; an object of
// the loader's that kubectl would refuse on its own (no kind, metadata of
// the wrong type) counts as refused on both sides, but one kubectl would
// flatten further is a difference. It reports false when the input is one
// of the documented differences (docs/rules.md, "Reading as kubectl
// reads"), checked by the caller: aliases over the loader's budget, a
// document over its size bound, text after a YAML document's root.
func checkKubectlReads(t *testing.T, path string) bool {
	t.Helper()
	f, err := Read(path, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var first *report.Finding
	for i, x := range f.Findings {
		if readerRules[x.Rule] {
			if x.Rule != RuleSyntax {
				return false // the loader's own bounds, which kubectl may take long to meet
			}
			if first == nil || x.Document < first.Document {
				first = &f.Findings[i]
			}
		}
	}
	want, kerr := kubectlRead(path)
	end := f.Count
	switch {
	case kerr == nil && first != nil:
		if text := f.Text(first.Document); text != nil && v3Refuses(KubectlLines(text)) {
			return false
		}
		t.Errorf("%s: kubectl reads the file, the loader reports %+v", path, *first)
	case kerr != nil && first == nil:
		t.Errorf("%s: kubectl refuses the file (%v), the loader reports no reading error (findings %+v)", path, kerr, f.Findings)
	case kerr != nil:
		end = first.Document
		msg := kubectlMessage(kerr)
		// YAML errors are compared by position elsewhere; a key JSON
		// cannot have is printed as YAML, not as kubectl's Go value.
		if first.Message != msg && !(strings.HasPrefix(msg, "yaml: ") && strings.HasPrefix(first.Message, "yaml: ")) &&
			!(strings.Contains(msg, "map key") && strings.Contains(first.Message, " map key: ")) {
			t.Errorf("%s: got %q, kubectl %q", path, first.Message, kerr)
		}
		if m := jsonOffsetRE.FindStringSubmatch(kerr.Error()); m != nil && first.Message == msg {
			data, _ := os.ReadFile(path)
			off, _ := strconv.Atoi(m[1])
			if p := bytePos(kubectlText(data), off-1); p != (Pos{first.Line, first.Column}) {
				t.Errorf("%s: %q at %d:%d, kubectl's offset %d is %d:%d", path, first.Message, first.Line, first.Column, off, p.Line, p.Column)
			}
		}
	}
	var got []map[string]any
	for _, d := range f.Documents {
		if d.Index >= end {
			break
		}
		objs, err := kubectlObjects(d.JSON)
		if err != nil {
			continue
		}
		if len(objs) != 1 {
			t.Errorf("%s: document %d/%d is %d objects to kubectl, one to the loader", path, d.Index, d.Item, len(objs))
		}
		var v map[string]any
		if err := utiljson.Unmarshal(d.JSON, &v); err != nil {
			t.Errorf("%s: document %d/%d: the server cannot decode %s: %v", path, d.Index, d.Item, d.JSON, err)
		}
		got = append(got, v)
	}
	var sent []map[string]any
	for _, obj := range want {
		if av, _ := obj["apiVersion"].(string); av == "" {
			continue // not an object to the loader: skipped and counted
		}
		sent = append(sent, serverView(t, obj))
	}
	if !reflect.DeepEqual(got, sent) {
		t.Errorf("%s: the loader reads %d objects, kubectl %d:\n%s", path, len(got), len(sent), firstDifference(got, sent))
	}
	return true
}

// serverView is the object the server decodes from the body kubectl sends
// for obj, an object of kubectl's builder: its JSON scheme's encoding.
func serverView(t *testing.T, obj map[string]any) map[string]any {
	body, err := runtime.Encode(unstructured.UnstructuredJSONScheme, &unstructured.Unstructured{Object: obj})
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := utiljson.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// bytePos is the 1-based line and column (in characters) of data[off].
func bytePos(data []byte, off int) Pos {
	off = max(0, min(off, len(data)))
	c := cursor{line: 1}
	c.advance(data[:off])
	return c.pos()
}

// firstDifference describes where two object lists first differ.
func firstDifference(got, want []map[string]any) string {
	for i := range max(len(got), len(want)) {
		var g, w any = "(none)", "(none)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if !reflect.DeepEqual(g, w) {
			return fmt.Sprintf("object %d:\n got %.300s\nwant %.300s", i, fmt.Sprint(g), fmt.Sprint(w))
		}
	}
	return ""
}

// writeTemp writes data to a file of the given name in a test's
// directory, for kubectl's builder, which reads files.
func writeTemp(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readsAsKubectl is checkKubectlReads on data as a file: the package's
// table tests check every input of theirs with it.
func readsAsKubectl(t *testing.T, data []byte) {
	t.Helper()
	checkKubectlReads(t, writeTemp(t, t.TempDir(), "f.yaml", data))
}

// TestReadsAsKubectlCorpus reads every file of the corpus as kubectl
// does and as the loader does.
func TestReadsAsKubectlCorpus(t *testing.T) {
	n := 0
	for _, sub := range []string{"crds", "crs"} {
		for _, p := range testutil.Files(t, sub) {
			if !checkKubectlReads(t, p) {
				t.Errorf("%s: a documented difference in the corpus", p)
			}
			n++
		}
	}
	if n < testutil.AtLeast(t, 1500, 400) {
		t.Errorf("only %d corpus files", n)
	}
}

// TestReadsAsKubectlHostile reads the hostile and odd inputs of the
// package's other tests as kubectl does, as .yaml and as .json files.
func TestReadsAsKubectlHostile(t *testing.T) {
	dir := t.TempDir()
	inputs := append(append([]string(nil), fuzzSeeds...), jsonStreamSeeds...)
	inputs = append(inputs, hostileInputs...)
	for i, in := range inputs {
		for _, ext := range []string{".yaml", ".json"} {
			p := writeTemp(t, dir, fmt.Sprintf("in%d%s", i, ext), []byte(in))
			checkKubectlReads(t, p)
		}
	}
}

// hostileInputs are inputs of the package's tests beyond the fuzz seeds.
var hostileInputs = []string{
	// Encodings kubectl's file reader transcodes.
	"\xef\xbb\xbfapiVersion: v1\nkind: ConfigMap\nmetadata: {name: bom}\n",
	"\xef\xbb\xbf{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"bom\"}}",
	"\xff\xfea\x00:\x00 \x001\x00\n\x00",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: latin1}\ndata: {k: caf\xe9}\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nb: 2\nc: \xc3\x28\n",
	// Nesting and lists.
	"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: inner}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: outer}}\n",
	"apiVersion: v1\nkind: ConfigMapList\nitems: []\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 5}\n",
	"kind: ConfigMap\nmetadata: {name: a}\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nitems: [{kind: X, apiVersion: v1}]\n",
	"apiVersion: example.com/v1\nkind: WidgetList\nitems:\n- metadata: {name: a}\n  spec: {size: 1e3}\n- {kind: Gadget, metadata: {name: b}}\n- {apiVersion: a/b/c, kind: X}\n",
	"apiVersion: v1\nkind: List\nitems: null\n",
	"apiVersion: v1\nkind: List\nitems: 5\n",
	"apiVersion: v1\nkind: List\n",
	"APIVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nItems: [{apiVersion: v1, kind: ConfigMap, metadata: {name: b}}]\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {version: 1}}\n",
	"{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"data\": {\"n\": 1e3, \"f\": 1.0, \"g\": 1.5, \"big\": 123456789012345678901234567890}}]}",
	"{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"n\"}, \"data\": {\"n\": 1e3, \"f\": 1.0, \"m\": -0.0}}",
	// JSON as kubectl 1.33 and later reads it, and as it refuses it.
	"{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"ConfigMap\",\n  \"metadata\": {\n    \"name\": \"a\",\n  }\n}\n",
	"{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\"}}\n{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"b\"}}\n{\"apiVersion\": \"v1\",}\n",
	"{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"\\ud83d\\ude00\",}}\n",
	"{\"a\": 1}\n\t{\"b\": 2,}",
	"a: 1\n\t\n",
	"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00\x1f\xf3\xffa",
}

// FuzzReadsAsKubectl compares the loader with kubectl's builder on
// anything, as a .yaml file and as a .json one.
func FuzzReadsAsKubectl(f *testing.F) {
	for _, s := range append(append(append([]string(nil), fuzzSeeds...), jsonStreamSeeds...), hostileInputs...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		checkKubectlReads(t, writeTemp(t, dir, "f.yaml", data))
	})
}
