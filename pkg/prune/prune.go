package prune

import (
	"bytes"
	"encoding/json"
	"fmt"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// Doc is one document of a file and the object the server would store for
// it.
type Doc struct {
	Document *source.Document
	// Original is the document's object as kubectl sends it (nil: decode
	// it from the document's JSON).
	Original any
	Object   map[string]any
}

// Rewrite edits a file's text (f parsed from data; its CRD documents may
// have been taken out) so that each of docs decodes to its Object: pruned
// keys are removed with their comments, defaults (when Object has them)
// are added, and everything else stays byte for byte. The result is
// checked by decoding it again; an edit that would not give exactly the
// server's objects is an error, never a silent difference.
func Rewrite(f *source.File, data []byte, docs []Doc) ([]byte, error) {
	out, _, err := rewrite(f, data, docs)
	return out, err
}

// rewrite is Rewrite returning the documents' texts of the result too.
func rewrite(f *source.File, data []byte, docs []Doc) ([]byte, [][]byte, error) {
	path := f.Path
	t := newText(data)
	p := &planner{t: t}
	for _, d := range docs {
		have := d.Original
		if have == nil {
			if err := json.Unmarshal(d.Document.JSON, &have); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		if err := p.walk(d.Document.Root, d.Object, ctx{have: have, haveOK: true}); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	for _, d := range docs {
		if err := p.expandAliases(d.Document.Root); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if len(p.edits) == 0 {
		return data, f.Texts, nil
	}
	out, err := apply(data, p.edits)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	texts, err := verify(f, out, docs)
	if err != nil {
		return nil, nil, err
	}
	return out, texts, nil
}

type docID struct{ index, item int }

// verify decodes the rewritten text and compares every document with what
// it must be: the pruned object, or the original. Documents the rewrite
// did not touch must keep their text; the others are compared by value
// with the original file's documents (parsed again only for a List that
// mixes edited items with items taken out of f, such as CRDs).
func verify(orig *source.File, after []byte, docs []Doc) ([][]byte, error) {
	path := orig.Path
	edited := map[int]bool{}
	want := map[docID]any{}
	for _, d := range docs {
		edited[d.Document.Index] = true
		want[docID{d.Document.Index, d.Document.Item}] = d.Object
	}
	origJSON := map[docID][]byte{}
	for _, d := range orig.Documents {
		if edited[d.Index] {
			origJSON[docID{d.Index, d.Item}] = d.JSON
		}
	}
	got := source.Parse(path, after)
	if got.Count != orig.Count || len(got.Texts) != len(orig.Texts) {
		return nil, fmt.Errorf("%s: rewriting would change the documents of the file (a bug: please report it); use -o json", path)
	}
	for i := range got.Texts {
		if !edited[i] && !bytes.Equal(got.Texts[i], orig.Texts[i]) {
			return nil, fmt.Errorf("%s: rewriting would change the documents of the file (a bug: please report it); use -o json", path)
		}
	}
	found := map[docID]bool{}
	for _, d := range got.Documents {
		found[docID{d.Index, d.Item}] = true
	}
	for id := range want {
		if !found[id] {
			return nil, fmt.Errorf("%s: rewriting would change the documents of the file (a bug: please report it); use -o json", path)
		}
	}
	reparsed := map[int]bool{}
	for _, d := range got.Documents {
		if !edited[d.Index] {
			continue
		}
		id := docID{d.Index, d.Item}
		w, pruned := want[id]
		if !pruned {
			js, ok := origJSON[id]
			if !ok && !reparsed[d.Index] {
				reparsed[d.Index] = true
				for _, od := range source.Parse(path, orig.Texts[d.Index]).Documents {
					origJSON[docID{d.Index, od.Item}] = od.JSON
				}
				js, ok = origJSON[id]
			}
			if !ok {
				return nil, fmt.Errorf("%s: rewriting would change the documents of the file (a bug: please report it); use -o json", path)
			}
			if bytes.Equal(js, d.JSON) {
				continue
			}
			if err := json.Unmarshal(js, &w); err != nil {
				return nil, err
			}
		}
		var v any
		if err := json.Unmarshal(d.JSON, &v); err != nil {
			return nil, err
		}
		if !equalJSON(v, w) {
			pos := d.Root.Line
			return nil, fmt.Errorf("%s:%d: cannot rewrite this document without changing more than the pruned fields (a bug: please report it); use -o json", path, pos)
		}
	}
	return got.Texts, nil
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
