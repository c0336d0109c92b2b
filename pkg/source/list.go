package source

import (
	"encoding/json"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// RuleList: a list (an object with an items field) that kubectl cannot
// turn into the objects it sends, or an item of one it does not send.
const RuleList = "list-invalid"

// addList adds the items of d, an object with an items field, as
// kubectl's builder sends them: its unstructured decoder reads any such
// object as a list, whatever its kind, giving items without apiVersion
// and kind those of the list (kind without its "List" suffix), and the
// builder flattens the list and sends each item on its own
// (FlattenListVisitor). The same library code decides here, so that what
// kubectl refuses is refused, in its words:
//
//   - an items field that is not a list, or an item that is not an
//     object: the whole document (unable to decode);
//   - an item that is a list itself: the whole document (the builder
//     cannot flatten it);
//   - an item without apiVersion or kind: that item alone.
//
// It reports false when kubectl does not read d as a list after all.
func (f *File) addList(d *Document, index int) bool {
	obj, _, err := unstructured.UnstructuredJSONScheme.Decode(d.JSON, nil, nil)
	if err != nil {
		at, msg := badItem(d.Root)
		if at == nil {
			// Not a case of badItem's: kubectl's words, whatever they are.
			at, msg = d.Root, "kubectl cannot decode this list: "+err.Error()
		}
		f.listError(d, index, at, msg)
		return true
	}
	list, ok := obj.(*unstructured.UnstructuredList)
	if !ok {
		return false
	}
	seq := lookup(d.Root, "items")
	nodes := make([]*yaml.Node, len(list.Items))
	for i := range nodes {
		// The tree and the JSON hold the same items; should they ever not,
		// the list's own position stands for them.
		nodes[i] = d.Root
		if seq != nil && seq.Kind == yaml.SequenceNode && len(seq.Content) == len(list.Items) {
			nodes[i] = seq.Content[i]
		}
	}
	for i := range list.Items {
		// kubectl's builder fails to flatten it (meta.ExtractList of an
		// item: "is not a list: no Items field").
		if it := &list.Items[i]; it.IsList() {
			f.listError(d, index, nodes[i], fmt.Sprintf("item %d of this list is a list itself: kubectl flattens one list, not a list inside a list, and sends none of the items", i))
			return true
		}
	}
	typer := unstructuredscheme.NewUnstructuredObjectTyper()
	for i := range list.Items {
		it := &list.Items[i]
		if _, _, err := typer.ObjectKinds(it); err != nil {
			msg := fmt.Sprintf("kubectl does not send item %d of this list: %v", i, err)
			switch {
			case it.GetKind() == "":
				msg = fmt.Sprintf("item %d of this list has no kind: kubectl does not send it", i)
			case it.GetAPIVersion() == "":
				msg = fmt.Sprintf("item %d of this list has no apiVersion: kubectl does not send it", i)
			}
			f.listError(d, index, nodes[i], msg)
			continue
		}
		// What kubectl sends: the item as it decoded it (with the list's
		// apiVersion and kind when it had neither).
		js, err := json.Marshal(it.Object)
		if err != nil {
			continue
		}
		item := &Document{File: d.File, Index: index, Item: i, Root: deref(nodes[i]), JSON: js}
		item.identify(identityOf(it.Object))
		f.Documents = append(f.Documents, item)
		f.checkSize(item)
	}
	f.nameFindings(index, d.Object)
	return true
}

// listError records what kubectl refuses of a list, at node.
func (f *File) listError(d *Document, index int, node *yaml.Node, msg string) {
	f.Findings = append(f.Findings, report.Finding{
		Rule: RuleList, Severity: report.Error, File: f.Path, Document: index,
		Line: node.Line, Column: node.Column, Object: d.Object, Message: msg,
	})
}

// badItem is where a list kubectl's decoder refuses goes wrong, and why:
// an items field that is not a sequence, or the first item that is not a
// mapping. It returns a nil node for any other cause.
func badItem(root *yaml.Node) (*yaml.Node, string) {
	k, v := lookupPair(root, "items", 0)
	if k == nil {
		return nil, ""
	}
	const none = ": kubectl cannot decode the list and sends none of it"
	seq := deref(v)
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return k, "items is a " + kindName(seq) + ", not a list" + none
	}
	for i, it := range seq.Content {
		if n := deref(it); n == nil || n.Kind != yaml.MappingNode {
			return it, fmt.Sprintf("item %d of this list is a %s, not an object%s", i, kindName(n), none)
		}
	}
	return nil, ""
}
