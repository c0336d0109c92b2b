package prune

import (
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// TestRewriteCases pins the text surgery on layouts that are easy to get
// wrong; Rewrite itself verifies every result by decoding it again.
func TestRewriteCases(t *testing.T) {
	schema := `{type: object, properties: {spec: {type: object, properties: {
  keep: {type: string}, text: {type: string},
  items: {type: array, items: {type: object, properties: {name: {type: string}}}},
  inner: {type: object, properties: {a: {type: string}}}}}}}`
	v := kepVersion(t, schema)
	head := "apiVersion: example.com/v1\nkind: Foo\nmetadata:\n  name: x\n"
	tests := []struct {
		name, in, want string
		wantErr        string // the error, instead of want
	}{
		{"comment of a kept key survives, pruned key's goes",
			"spec:\n  # keep me\n  keep: a # line\n  # drop me\n  drop: b\n",
			"spec:\n  # keep me\n  keep: a # line\n", ""},
		{"folded scalar with more-indented lines next to a pruned key",
			"spec:\n  text: >-\n    ( a &&\n      b\n    ) || c\n  drop: 1\n",
			"spec:\n  text: >-\n    ( a &&\n      b\n    ) || c\n", ""},
		{"an earlier duplicate key stays as written (kubectl sends the last)",
			"spec:\n  keep: a\n  keep: b\n  drop: 1\n",
			"spec:\n  keep: a\n  keep: b\n", ""},
		{"flow mapping rewritten in place",
			"spec: {keep: a, drop: 1}\n",
			"spec: {keep: a}\n", ""},
		{"first key of a sequence item pruned",
			"spec:\n  items:\n  - drop: 1\n    name: n\n",
			"spec:\n  items:\n  -\n    name: n\n", ""},
		{"a mapping left empty becomes {}",
			"spec:\n  inner:\n    drop: 1\n  keep: a\n",
			"spec:\n  inner: {}\n  keep: a\n", ""},
		{"a sequence item left empty becomes {}",
			"spec:\n  items:\n  - drop: 1\n  - name: n\n",
			"spec:\n  items:\n  - {}\n  - name: n\n", ""},
		{"nothing to prune leaves the text alone",
			"spec:\n  keep:    a   # spacing kept\n",
			"spec:\n  keep:    a   # spacing kept\n", ""},
		{"an alias kept whose anchor is pruned becomes its value",
			"spec:\n  drop: &j 1\n  keep: *j\n",
			"spec:\n  keep: 1\n", ""},
		{"an alias kept whose pruned anchor holds a mapping",
			"spec:\n  drop: &j\n    a: \"x y\"\n  inner: *j\n",
			"spec:\n  inner: {a: \"x y\"}\n", ""},
		{"anchor and alias pruned together",
			"spec:\n  drop: &j {a: 1}\n  other: *j\n  keep: a\n",
			"spec:\n  keep: a\n", ""},
		{"an alias into a pruned flow mapping",
			"spec:\n  inner: {a: x, drop: &j y}\n  keep: *j\n",
			"spec:\n  inner: {a: x}\n  keep: y\n", ""},
		{"an alias stands for the last anchor of its name before it",
			"spec:\n  inner:\n    a: &j a\n  drop: &j b\n  keep: *j\n",
			"spec:\n  inner:\n    a: &j a\n  keep: b\n", ""},
		{"a pruned anchor holding anchors itself is refused",
			"spec:\n  drop: &j\n    a: &k x\n  inner: *j\n",
			"", "expand the anchor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(head + tt.in)
			f := source.Parse("x.yaml", data)
			if len(f.Documents) != 1 {
				t.Fatalf("input does not parse: %v", f.Findings)
			}
			d := f.Documents[0]
			var obj map[string]any
			if err := utiljson.Unmarshal(d.JSON, &obj); err != nil {
				t.Fatal(err)
			}
			if _, err := v.Prune(obj, false); err != nil {
				t.Fatal(err)
			}
			out, err := Rewrite(source.Parse("x.yaml", data), data, []Doc{{Document: d, Object: obj}})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one saying %q; output:\n%s", err, tt.wantErr, out)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v", err)
			}
			if got := string(out); got != head+tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, head+tt.want)
			}
		})
	}
}
