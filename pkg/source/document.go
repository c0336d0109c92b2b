package source

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// Rule IDs of the findings the loader itself produces.
const (
	RuleSyntax      = "yaml-syntax"
	RuleDuplicate   = "duplicate-field"
	RuleNotAnObject = "document-not-object"
)

// Pos is a 1-based position in a file.
type Pos struct{ Line, Column int }

// Document is one Kubernetes object read from a file, with the YAML node
// tree kept so that any field path maps back to a line and column.
type Document struct {
	// File is the path as the user gave it (joined with the relative path
	// for files found inside a directory argument; "<stdin>" for "-").
	File string
	// Index is the 0-based index among the file's non-empty documents.
	Index int
	// Item is the index inside a kind: List document, or -1.
	Item int
	// Root is the object's mapping node; its positions are file positions.
	Root *yaml.Node
	// JSON is the object exactly as kubectl would send it: YAML 1.1 scalars
	// resolved by sigs.k8s.io/yaml, duplicate keys collapsed (last wins).
	JSON []byte
	// Object names the object for reports; fields that are missing or not
	// strings are empty.
	Object report.ObjectRef
}

// GroupVersion splits the document's apiVersion into group and version.
func (d *Document) GroupVersion() (group, version string) {
	av := d.Object.APIVersion
	if i := strings.LastIndexByte(av, '/'); i >= 0 {
		return av[:i], av[i+1:]
	}
	return "", av
}

// File is what one input file yields: its objects and the findings about
// its text (syntax, duplicates, non-objects).
type File struct {
	Path      string
	Documents []*Document
	Findings  []report.Finding
	// Skipped counts non-empty documents that are not Kubernetes objects.
	Skipped int
	// Count is the number of non-empty documents in the file.
	Count int
}

var lineRE = regexp.MustCompile(`^yaml: line (\d+): `)

// Parse splits data into documents and decodes each one. It never fails:
// everything wrong with the text is a finding at its position.
func Parse(path string, data []byte) *File {
	f := &File{Path: path}
	chunks, bad := split(data)
	for _, b := range bad {
		f.Findings = append(f.Findings, report.Finding{
			Rule: RuleSyntax, Severity: report.Error, File: path, Line: b.line, Column: 4,
			Message: "invalid Yaml document separator: " + b.rest,
		})
	}
	for _, c := range chunks {
		f.parseChunk(c)
	}
	return f
}

func (f *File) parseChunk(c chunk) {
	var n yaml.Node
	err := yaml.Unmarshal(c.text, &n)
	if err != nil {
		line, msg := errorLine(err, c)
		f.Findings = append(f.Findings, report.Finding{
			Rule: RuleSyntax, Severity: report.Error, File: f.Path, Document: f.Count,
			Line: line, Column: 1, Message: msg,
		})
		f.Count++
		return
	}
	if n.Kind == 0 || len(n.Content) == 0 {
		return // empty or comments only: kubectl skips it
	}
	root := n.Content[0]
	shiftLines(&n, c.line-1)
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return // "null" decodes to nothing, as in kubectl
	}
	index := f.Count
	f.Count++
	js, err := sigsyaml.YAMLToJSON(c.text)
	if err != nil {
		line, msg := errorLine(err, c)
		f.Findings = append(f.Findings, report.Finding{
			Rule: RuleSyntax, Severity: report.Error, File: f.Path, Document: index,
			Line: line, Column: 1, Message: msg,
		})
		return
	}
	f.Findings = append(f.Findings, duplicates(root, f.Path, index)...)
	if root.Kind != yaml.MappingNode {
		f.Findings = append(f.Findings, report.Finding{
			Rule: RuleNotAnObject, Severity: report.Error, File: f.Path, Document: index,
			Line: root.Line, Column: root.Column,
			Message: fmt.Sprintf("document is a %s, not an object: Kubernetes manifests are mappings with apiVersion and kind", kindName(root)),
		})
		return
	}
	d := &Document{File: f.Path, Index: index, Item: -1, Root: root, JSON: js}
	if !d.identify() {
		f.Skipped++
		return
	}
	if items, ok := d.listItems(); ok {
		f.Documents = append(f.Documents, items...)
		return
	}
	f.Documents = append(f.Documents, d)
}

// identify fills Object and reports whether the document looks like a
// Kubernetes object (string apiVersion and kind).
func (d *Document) identify() bool {
	var tm struct {
		APIVersion any `json:"apiVersion"`
		Kind       any `json:"kind"`
		Metadata   any `json:"metadata"`
	}
	if json.Unmarshal(d.JSON, &tm) != nil {
		return false
	}
	av, _ := tm.APIVersion.(string)
	k, _ := tm.Kind.(string)
	d.Object.APIVersion, d.Object.Kind = av, k
	if m, ok := tm.Metadata.(map[string]any); ok {
		d.Object.Name, _ = m["name"].(string)
		d.Object.Namespace, _ = m["namespace"].(string)
	}
	return av != "" && k != ""
}

// listItems expands kind: List (and any *List with an items array), as
// kubectl's resource builder flattens lists before sending each item.
func (d *Document) listItems() ([]*Document, bool) {
	if !strings.HasSuffix(d.Object.Kind, "List") {
		return nil, false
	}
	var l struct {
		Items []json.RawMessage `json:"items"`
	}
	if json.Unmarshal(d.JSON, &l) != nil || l.Items == nil {
		return nil, false
	}
	seq := lookup(d.Root, "items")
	if seq == nil || seq.Kind != yaml.SequenceNode || len(seq.Content) != len(l.Items) {
		return nil, false
	}
	var out []*Document
	for i, raw := range l.Items {
		item := &Document{File: d.File, Index: d.Index, Item: i, Root: deref(seq.Content[i]), JSON: raw}
		if item.Root.Kind != yaml.MappingNode || !item.identify() {
			continue
		}
		out = append(out, item)
	}
	return out, true
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "node"
}

// errorLine turns a YAML error into a file line and a message without the
// chunk-relative line prefix.
func errorLine(err error, c chunk) (int, string) {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
	if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
		msg = "yaml: " + te.Errors[0]
	}
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return c.line + n - 1, "yaml: " + msg[len(m[0]):]
	}
	// Errors without a line (control characters, bad UTF-8) point at the
	// first offending byte, which is where the user has to look.
	return c.line + badByteLine(c.text), msg
}

func badByteLine(b []byte) int {
	line := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == '\n':
			line++
		case r == utf8.RuneError && size <= 1, r < 0x20 && r != '\t' && r != '\r', r == 0x7f:
			return line
		}
		b = b[size:]
	}
	return 0
}

// shiftLines makes chunk-relative node positions file positions. It walks
// Content only: alias targets are already in the tree.
func shiftLines(n *yaml.Node, by int) {
	if by == 0 {
		return
	}
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n.Line += by
		stack = append(stack, n.Content...)
	}
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// keyString is a mapping key as the JSON kubectl sends spells it: YAML 1.1
// booleans in plain keys become "true"/"false".
func keyString(k *yaml.Node) string {
	if k.Kind == yaml.ScalarNode && k.Style == 0 {
		switch k.Value {
		case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE":
			return "true"
		case "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE":
			return "false"
		}
	}
	return k.Value
}

// lookup returns the value node of key in mapping m, following aliases and
// merge keys.
func lookup(m *yaml.Node, key string) *yaml.Node {
	if _, v := lookupPair(m, key, 0); v != nil {
		return deref(v)
	}
	return nil
}

func lookupPair(m *yaml.Node, key string, depth int) (k, v *yaml.Node) {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode || depth > 10 {
		return nil, nil
	}
	// Later keys win, as in the JSON kubectl sends.
	for i := len(m.Content) - 2; i >= 0; i -= 2 {
		if keyString(m.Content[i]) == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "<<" && m.Content[i].Tag == "!!merge" {
			src := deref(m.Content[i+1])
			if src != nil && src.Kind == yaml.SequenceNode {
				for _, s := range src.Content {
					if k, v := lookupPair(s, key, depth+1); k != nil {
						return k, v
					}
				}
			} else if k, v := lookupPair(src, key, depth+1); k != nil {
				return k, v
			}
		}
	}
	return nil, nil
}

// duplicates reports every mapping key that repeats an earlier key of the
// same mapping, at the repeated key, in the strict decoder's words.
func duplicates(root *yaml.Node, file string, index int) []report.Finding {
	type frame struct {
		n    *yaml.Node
		path string
	}
	var out []report.Finding
	stack := []frame{{root, ""}}
	for len(stack) > 0 {
		fr := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch fr.n.Kind {
		case yaml.MappingNode:
			seen := make(map[string]bool, len(fr.n.Content)/2)
			for i := 0; i+1 < len(fr.n.Content); i += 2 {
				k := fr.n.Content[i]
				name := keyString(k)
				p := name
				if fr.path != "" {
					p = fr.path + "." + name
				}
				if seen[name] && k.Tag != "!!merge" {
					out = append(out, report.Finding{
						Rule: RuleDuplicate, Severity: report.Warning, File: file, Document: index,
						Line: k.Line, Column: k.Column, Field: p,
						Message: fmt.Sprintf("duplicate field %q", p),
					})
				}
				seen[name] = true
				stack = append(stack, frame{fr.n.Content[i+1], p})
			}
		case yaml.SequenceNode:
			for i, c := range fr.n.Content {
				stack = append(stack, frame{c, fr.path + "[" + strconv.Itoa(i) + "]"})
			}
		}
	}
	return out
}
