package prune

import (
	"encoding/json"
	"fmt"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Doc is one document of a file and the object the server would store for
// it.
type Doc struct {
	Document *source.Document
	Object   map[string]any
}

// Rewrite edits a file's text so that each of docs decodes to its Object:
// pruned keys are removed with their comments, defaults (when Object has
// them) are added, and everything else stays byte for byte. The result is
// checked by decoding it again; an edit that would not give exactly the
// server's objects is an error, never a silent difference.
func Rewrite(path string, data []byte, docs []Doc) ([]byte, error) {
	t := newText(data)
	p := &planner{t: t}
	for _, d := range docs {
		var have any
		if err := json.Unmarshal(d.Document.JSON, &have); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if err := p.walk(d.Document.Root, d.Object, ctx{have: have, haveOK: true}); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if len(p.edits) == 0 {
		return data, nil
	}
	out, err := apply(data, p.edits)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := verify(path, data, out, docs); err != nil {
		return nil, err
	}
	return out, nil
}

type docID struct{ index, item int }

// verify decodes the rewritten text and compares every document with what
// it must be: the pruned object, or the original for the others.
func verify(path string, before, after []byte, docs []Doc) error {
	want := map[docID]any{}
	orig := source.Parse(path, before)
	for _, d := range orig.Documents {
		var v any
		if err := json.Unmarshal(d.JSON, &v); err != nil {
			return err
		}
		want[docID{d.Index, d.Item}] = v
	}
	for _, d := range docs {
		want[docID{d.Document.Index, d.Document.Item}] = d.Object
	}
	got := source.Parse(path, after)
	if len(got.Documents) != len(orig.Documents) || got.Count != orig.Count {
		return fmt.Errorf("%s: rewriting would change the documents of the file (a bug: please report it); use -o json", path)
	}
	for _, d := range got.Documents {
		var v any
		if err := json.Unmarshal(d.JSON, &v); err != nil {
			return err
		}
		if !equalJSON(v, want[docID{d.Index, d.Item}]) {
			pos := d.Root.Line
			return fmt.Errorf("%s:%d: cannot rewrite this document without changing more than the pruned fields (a bug: please report it); use -o json", path, pos)
		}
	}
	return nil
}

// OrderedJSON renders an object as indented JSON with the keys in the
// order the document wrote them (new keys, such as defaults, after them in
// sorted order), so that JSON output reads like its input.
func OrderedJSON(n *yaml.Node, obj any) ([]byte, error) {
	nn, err := rebuild(n, obj)
	if err != nil {
		return nil, err
	}
	return jsonOf(nn, "")
}

// Removed counts the fields of orig that are gone from stored: each
// removed key once, however much lies below it.
func Removed(orig, stored any) int {
	switch o := orig.(type) {
	case map[string]any:
		s, ok := stored.(map[string]any)
		if !ok {
			return 0
		}
		n := 0
		for k, v := range o {
			if sv, ok := s[k]; ok {
				n += Removed(v, sv)
			} else {
				n++
			}
		}
		return n
	case []any:
		s, ok := stored.([]any)
		if !ok || len(s) != len(o) {
			return 0
		}
		n := 0
		for i := range o {
			n += Removed(o[i], s[i])
		}
		return n
	}
	return 0
}
