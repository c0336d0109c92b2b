package source_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// A stream read one document at a time: each File is one document's
// worth, with its findings at file positions.
func ExampleNewDocReader() {
	in := `apiVersion: v1
kind: ConfigMap
metadata: {name: one}
data:
  on: "1"
---
apiVersion: v1
kind: ConfigMap
metadata:
	name: two
`
	r := source.NewDocReader("cm.yaml", strings.NewReader(in))
	for {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, d := range f.Documents {
			pos, _ := d.Locate("data[true]")
			fmt.Printf("document %d: %s %s, data[true] at %d:%d\n", d.Index, d.Object.Kind, d.Object.Name, pos.Line, pos.Column)
		}
		for _, x := range f.Findings {
			fmt.Printf("%s:%d:%d: %s %s: %s\n", x.File, x.Line, x.Column, x.Severity, x.Rule, x.Message)
		}
	}
	// Output:
	// document 0: ConfigMap one, data[true] at 5:3
	// cm.yaml:5:3: warning yaml11-key: key "on" is YAML 1.1's boolean true as kubectl reads it (the object gets a field "true"); quote it ("on") to keep the name
	// cm.yaml:10:1: error yaml-syntax: yaml: found character that cannot start any token (a tab: YAML indentation must use spaces)
}

// Parse reads a whole file; a JSON stream is read as kubectl reads it.
func ExampleParse() {
	f := source.Parse("cms.json", []byte(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}`))
	for _, d := range f.Documents {
		pos, _ := d.Locate("metadata.name")
		fmt.Printf("%s at %d:%d: %s\n", d.Object.Name, pos.Line, pos.Column, d.JSON)
	}
	// Output:
	// a at 1:56: {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}
	// b at 2:56: {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}
}
