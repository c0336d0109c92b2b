package source

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// Rule IDs of the findings the loader itself produces.
const (
	RuleSyntax      = "yaml-syntax"
	RuleDuplicate   = "duplicate-field"
	RuleNotAnObject = "document-not-object"
	// RuleAliasBudget: a document whose aliases would expand beyond
	// MaxAliasNodes or MaxAliasBytes; it is refused before anything
	// expands it.
	RuleAliasBudget = "yaml-alias-budget"
	// RuleDocumentSize: a document over DocReader.MaxDocumentSize.
	RuleDocumentSize = "document-too-large"
	// RuleYAML11Key: a plain key that kubectl's YAML 1.1 reads as a
	// boolean ("on", "y", "no"), so the object gets "true" or "false".
	RuleYAML11Key = "yaml11-key"
)

// SkipNotObject is why the documents File.Skipped counts are skipped, as
// summaries say it.
const SkipNotObject = "not a Kubernetes object"

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

	// value is JSON as the server decodes it, when parsing built it.
	value atomic.Pointer[map[string]any]
	// keys indexes the large mappings Locate looks into.
	keys keyIndex
}

// TakeValue returns the document's JSON decoded as the API server decodes
// a request body (k8s.io/apimachinery/pkg/util/json), when parsing built
// it on the way, and forgets it: the caller owns it and may change it.
// Otherwise, or on a second call, it returns false and the caller decodes
// JSON itself.
func (d *Document) TakeValue() (map[string]any, bool) {
	if p := d.value.Swap(nil); p != nil {
		return *p, true
	}
	return nil, false
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
	// Skipped counts non-empty documents that are not Kubernetes objects:
	// mappings without apiVersion and kind, and, in a text that names no
	// kind (HasKind), lists, scalars and documents that do not parse.
	Skipped int
	// Templates counts documents that hold Go template actions and do
	// not parse as YAML (or JSON): templates to render (Helm's files/,
	// clusterloader2's, Hugo's), not manifests with a syntax error.
	Templates int
	// Partial counts, in a command's input, CustomResourceDefinitions
	// that are fragments of one (partialCRD): patches, overlays, a
	// test's expected state.
	Partial int
	// Substitutions counts, in a command's input, documents that a tool
	// substitutes placeholders in before applying them
	// (substitutionTemplate: clusterctl's and envsubst's ${VAR},
	// chainsaw's bindings).
	Substitutions int
	// Count is the number of non-empty documents in the file.
	Count int
	// Texts holds each non-empty document's text as kubectl's reader
	// returns it (a leading "---" included when it had one; for a JSON
	// stream, the value), by Index - Base; nil for a document over the
	// size bound.
	Texts [][]byte
	// Base is the Index of the first document counted here: 0 for a
	// whole file, the document's own for a File from DocReader.Next.
	Base int
	// Line is the file line where a File from DocReader.Next starts its
	// text (YAML; 0 for JSON, which has no comments to place).
	Line int

	// noKind: the text this File comes from names no kind at its top
	// level (DocReader.NoKind).
	noKind bool
	// input: Go templates are counted, not syntax errors
	// (DocReader.Input).
	input bool
}

// Skips counts the documents of f that are not objects to judge, by
// reason (SkipNotObject, SkipTemplate, SkipPartialCRD,
// SkipSubstitution), as every command's summary counts them.
func (f *File) Skips() report.Summary {
	var s report.Summary
	s.SkipN(SkipNotObject, f.Skipped)
	s.SkipN(SkipTemplate, f.Templates)
	s.SkipN(SkipPartialCRD, f.Partial)
	s.SkipN(SkipSubstitution, f.Substitutions)
	return s
}

// Text returns the text of the document with the given Index, or nil.
func (f *File) Text(index int) []byte {
	if i := index - f.Base; i >= 0 && i < len(f.Texts) {
		return f.Texts[i]
	}
	return nil
}

var lineRE = regexp.MustCompile(`^yaml: line (\d+): `)

// Parse splits data into documents and decodes each one, as a DocReader
// reading data would. It never fails: everything wrong with the text is
// a finding at its position.
func Parse(path string, data []byte) *File {
	f, _ := readAllDocs(newBytesReader(path, data))
	return f
}

// ParseInput is Parse for a file a command was given, which may not be
// meant for kubectl at all: a text that names no kind (HasKind is false:
// Hugo data, translations, JSON 6902 patches, a tool's own files) is
// read with DocReader.NoKind, its lists, scalars and documents that do
// not parse counted in Skipped rather than reported.
func ParseInput(path string, data []byte) *File {
	r := newBytesReader(path, data)
	r.NoKind = !HasKind(r.w.buf) // as kubectl reads the text (UTF-16 transcoded)
	r.Input = true
	f, _ := readAllDocs(r)
	return f
}

// parseChunk adds a document to f. It returns the index in f.Findings of
// the error that kubectl's decoder would fail with, or -1.
func (f *File) parseChunk(c chunk) int {
	var n yaml.Node
	err := yaml.Unmarshal(c.text, &n)
	if err != nil {
		pos, msg := errorPos(err, c, nil)
		// Where kubectl fails too, report its words (go.yaml.in/yaml/v2
		// behind sigs.k8s.io/yaml): they are what the user would see. Its
		// line is the problem's, where v3's is the context's (the
		// enclosing mapping, the plain scalar before a bad tab), except
		// for the problems whose context is the culprit: the string left
		// open, the key without ":".
		if _, kerr := sigsyaml.YAMLToJSON(c.text); kerr != nil {
			kpos, kmsg := errorPos(kerr, c, nil)
			if kmsg != msg || !contextProblems[strings.TrimPrefix(kmsg, "yaml: ")] {
				pos = kpos
			}
			msg = kmsg
		}
		pos, msg = tabHint(c, pos, msg)
		i := f.unparsed(f.Base+f.Count, pos, msg, c.text)
		count.Parses.Add(1)
		f.Count++
		f.Texts = append(f.Texts, c.text)
		return i
	}
	if n.Kind == 0 || len(n.Content) == 0 {
		return -1 // empty or comments only: kubectl skips it
	}
	root := n.Content[0]
	js, obj, fast, err := toJSON(c, &n)
	relocate(&n, c)
	if err == nil && string(js) == "null" {
		// kubectl drops null documents. Ask its library, not v3's tags:
		// v3 calls "!" null where v2 makes it "", and "!!null x" null
		// where v2 fails.
		return -1
	}
	index := f.Base + f.Count
	// Counted with the documents the stream counts (an empty or null one
	// parses too, but is no document).
	count.Parses.Add(1)
	f.Count++
	f.Texts = append(f.Texts, c.text)
	var le *limitError
	if errors.As(err, &le) {
		f.Findings = append(f.Findings, report.Finding{
			Rule: le.rule, Severity: report.Error, File: f.Path, Document: index,
			Line: le.node.Line, Column: le.node.Column, Message: le.msg,
		})
		if le.rule == RuleSyntax {
			return len(f.Findings) - 1
		}
		return -1
	}
	if err != nil {
		pos, msg := errorPos(err, c, root)
		return f.unparsed(index, pos, msg, c.text)
	}
	var keys []report.Finding
	if !fast {
		// The fast path gives up on repeated keys and on keys that YAML
		// 1.1 reads as booleans.
		keys = keyFindings(root, f.Path, index)
	}
	f.addDocument(root, js, obj, index, keys, c.text)
	return -1
}

// addDocument adds the document whose node is root and whose JSON kubectl
// sends is js; obj is that JSON as the server decodes it, when known.
// keys are the findings about its keys (repeated keys, YAML 1.1
// booleans): hints about what kubectl sends, reported only for a
// Kubernetes object (or a List), as a document that is none is never sent.
// text is the document's text.
func (f *File) addDocument(root *yaml.Node, js []byte, obj map[string]any, index int, keys []report.Finding, text []byte) {
	if root.Kind != yaml.MappingNode {
		if f.noKind && !holdsObjects(root) {
			// Data (Hugo data, i18n, a JSON 6902 patch) in a file that
			// names no kind: not meant for kubectl.
			f.Skipped++
			return
		}
		f.Findings = append(f.Findings, report.Finding{
			Rule: RuleNotAnObject, Severity: report.Error, File: f.Path, Document: index,
			Line: root.Line, Column: root.Column,
			Message: fmt.Sprintf("document is a %s, not an object: Kubernetes manifests are mappings with apiVersion and kind", kindName(root)),
		})
		return
	}
	d := &Document{File: f.Path, Index: index, Item: -1, Root: root, JSON: js}
	var id identity
	if obj != nil {
		id = identityOf(obj)
	} else if utiljson.Unmarshal(js, &id) != nil {
		f.Skipped++
		return
	}
	isObject := d.identify(id)
	// A list needs only a kind: kubectl's decoder reads one without
	// apiVersion, and sends its items.
	if id.Items != nil && d.Object.Kind != "" {
		n := len(f.Documents)
		if f.addList(d, index) {
			f.Findings = append(f.Findings, itemKeys(keys, d, f.Documents[n:])...)
			return
		}
		f.Findings = append(f.Findings, keys...)
		keys = nil
	}
	if !isObject {
		f.Skipped++
		return
	}
	if f.input && f.unapplied(d, id, obj, text) {
		return
	}
	f.Findings = append(f.Findings, keys...)
	if obj != nil && d.Object.Kind != "CustomResourceDefinition" {
		d.value.Store(&obj)
	}
	f.Documents = append(f.Documents, d)
	f.nameFindings(index, d.Object)
	f.checkSize(d)
}

// unapplied counts, and reports, an object of a command's input that is
// not meant to be applied as it is written: a partial CRD or a
// substitution template. Its hints (keys) go with it: kubectl never
// sends its text.
func (f *File) unapplied(d *Document, id identity, obj map[string]any, text []byte) bool {
	if substitutionTemplate(id.Metadata, d.Root, text) {
		f.Substitutions++
		return true
	}
	if g, _ := d.GroupVersion(); g == "apiextensions.k8s.io" && d.Object.Kind == "CustomResourceDefinition" {
		if obj == nil && utiljson.Unmarshal(d.JSON, &obj) != nil {
			return false
		}
		if partialCRD(obj) {
			f.Partial++
			return true
		}
	}
	return false
}

// nameFindings makes the text's findings of a document (repeated keys,
// YAML 1.1 keys) name the object they are in, as every finding does.
func (f *File) nameFindings(index int, obj report.ObjectRef) {
	for i := range f.Findings {
		if fd := &f.Findings[i]; fd.Document == index && fd.Object.Kind == "" {
			fd.Object = obj
		}
	}
}

// identity is what kubectl reads of an object to tell what it is, under
// the exact keys its unstructured objects use (k8s.io/apimachinery's
// unstructured decoding, which decodes with util/json: case-sensitive).
type identity struct {
	APIVersion any `json:"apiVersion"`
	Kind       any `json:"kind"`
	Metadata   any `json:"metadata"`
	// Items is set when the object has an items field: kubectl's decoder
	// then reads it as a list, whatever its kind (unstructuredJSONScheme's
	// detector).
	Items json.RawMessage `json:"items"`
}

// identityOf is the identity of an object decoded already.
func identityOf(obj map[string]any) identity {
	id := identity{APIVersion: obj["apiVersion"], Kind: obj["kind"], Metadata: obj["metadata"]}
	if _, ok := obj["items"]; ok {
		id.Items = json.RawMessage("?") // decided by addList, which decodes it
	}
	return id
}

// identify fills Object and reports whether the document is a Kubernetes
// object: a string apiVersion and kind.
func (d *Document) identify(id identity) bool {
	av, _ := id.APIVersion.(string)
	k, _ := id.Kind.(string)
	d.Object.APIVersion, d.Object.Kind = av, k
	if m, ok := id.Metadata.(map[string]any); ok {
		d.Object.Name, _ = m["name"].(string)
		d.Object.Namespace, _ = m["namespace"].(string)
	}
	return av != "" && k != ""
}

func kindName(n *yaml.Node) string {
	if n == nil {
		return "node"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "node"
}

// holdsObjects reports whether a list document's items include a
// Kubernetes object (a mapping with apiVersion and kind): a list meant as
// manifests, which kubectl refuses (a List needs kind: List and items:).
func holdsObjects(n *yaml.Node) bool {
	n = deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return false
	}
	for _, item := range n.Content {
		av, k := lookup(item, "apiVersion"), lookup(item, "kind")
		if av != nil && k != nil && av.Kind == yaml.ScalarNode && k.Kind == yaml.ScalarNode {
			return true
		}
	}
	return false
}

// unparsed records a document kubectl's decoder refuses, whose text is
// text: in a command's input, a template (File.Templates) when it holds
// Go template actions, else a syntax error. It returns the error's index in f.Findings, or -1.
func (f *File) unparsed(index int, pos Pos, msg string, text []byte) int {
	if f.input && isTemplate(text) {
		f.Templates++
		return -1
	}
	return f.syntaxError(index, pos, msg)
}

// syntaxError records an error of kubectl's decoder and returns its index
// in f.Findings; in a text that names no kind (DocReader.NoKind) the
// document is counted as skipped instead, and the index is -1.
func (f *File) syntaxError(index int, pos Pos, msg string) int {
	if f.noKind {
		f.Skipped++
		return -1
	}
	f.Findings = append(f.Findings, report.Finding{
		Rule: RuleSyntax, Severity: report.Error, File: f.Path, Document: index,
		Line: pos.Line, Column: pos.Column, Message: msg,
	})
	return len(f.Findings) - 1
}

// parserProblems are the libyaml parser's (not scanner's) problems. Both
// YAML libraries print a parser problem's 0-based line, a scanner
// problem's 1-based one; v3 prefers the line of the context ("while
// parsing a block mapping") to the problem's, v2 the other way round.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// contextProblems are the scanner problems found only after the text at
// fault: v3's line, the context's, is the one to report.
var contextProblems = map[string]bool{
	"could not find expected ':'":    true,
	"found unexpected end of stream": true,
}

var (
	anchorRE = regexp.MustCompile(`unknown anchor '(.*)' referenced|anchor '(.*)' value contains itself`)
	decodeRE = regexp.MustCompile("cannot decode \\S+ `(.*)` as a (\\S+)$")
	// The YAML 1.1 infinities and NaN, which JSON cannot hold.
	infRE = regexp.MustCompile(`^([-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`)
)

// errorPos turns a YAML error into a file position and a message without
// the chunk-relative line prefix. root is the chunk's tree when only the
// conversion to JSON failed: the errors that only go.yaml.in/yaml/v2
// raises carry no line, but name something the tree can find.
func errorPos(err error, c chunk, root *yaml.Node) (Pos, string) {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
	if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
		msg = "yaml: " + te.Errors[0]
	}
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
		if parserProblems[msg] {
			n++
		}
		return c.pos(n, 1), "yaml: " + msg
	}
	if n := blame(root, msg); n != nil {
		return Pos{Line: n.Line, Column: n.Column}, keyMessage(c, n, msg)
	}
	if m := anchorRE.FindStringSubmatch(msg); m != nil {
		if p, ok := findAlias(c.text, m[1]+m[2]); ok {
			return c.filePos(p), msg
		}
	}
	// Errors without a line are at the chunk's first line (the libraries
	// omit "line 1") or are about bytes (control characters, bad UTF-8),
	// whose first offender is where the user has to look.
	return c.filePos(Pos{Line: 1 + badByteLine(c.text), Column: 1}), msg
}

// keyMessage rewrites the conversion's error about a key JSON cannot
// have, which prints the key as a Go value ("invalid map key:
// map[interface {}]interface {}{".Name":interface {}(nil)}", "unsupported
// map key of type: %!s(<nil>)"), with the key as YAML, what it is, and a
// hint when the line holds a template action ("{{ .Name }}" is a mapping
// in a mapping to YAML). Other messages are returned as they are.
func keyMessage(c chunk, key *yaml.Node, msg string) string {
	var head string
	switch {
	case strings.Contains(msg, "invalid map key"):
		head = "yaml: invalid map key: "
	case strings.Contains(msg, "unsupported map key"):
		head = "yaml: unsupported map key: "
	default:
		return msg
	}
	n := deref(key)
	if n == nil {
		return msg
	}
	what := kindName(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		what = "null"
	}
	out := head + flowYAML(n) + " (" + aOrAn(what) + ": a key must be a string, a number or a boolean)"
	if line, ok := chunkLine(c.text, key.Line-c.line); ok && bytes.Contains(line, []byte("{{")) {
		out += "; {{ starts a template action: render the template first"
	}
	return out
}

// aOrAn is a noun with its article; null has none.
func aOrAn(what string) string {
	switch what {
	case "null":
		return what
	case "alias":
		return "an " + what
	}
	return "a " + what
}

// flowYAML prints a node as one line of YAML, collections in flow style,
// at most 80 characters of it.
func flowYAML(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		if n.Tag == "!!null" && n.Value == "" {
			return "~"
		}
		return n.Value
	}
	var flow func(n *yaml.Node, depth int) *yaml.Node
	flow = func(n *yaml.Node, depth int) *yaml.Node {
		if depth > 20 {
			// Deep or cyclic through aliases: enough is shown.
			return &yaml.Node{Kind: yaml.ScalarNode, Value: "..."}
		}
		cp := &yaml.Node{Kind: n.Kind, Tag: n.Tag, Value: n.Value, Style: n.Style &^ (yaml.LiteralStyle | yaml.FoldedStyle)}
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == "" {
			cp.Value = "null"
		}
		if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
			cp.Style = yaml.FlowStyle
		}
		if n.Kind == yaml.AliasNode {
			if d := deref(n); d != nil && d.Kind != yaml.AliasNode {
				return flow(d, depth+1)
			}
			return &yaml.Node{Kind: yaml.ScalarNode, Value: "*" + n.Value}
		}
		for _, c := range n.Content {
			cp.Content = append(cp.Content, flow(c, depth+1))
		}
		return cp
	}
	out, err := yaml.Marshal(flow(n, 0))
	if err != nil {
		return "?"
	}
	s := strings.Join(strings.Fields(string(out)), " ")
	if utf8.RuneCountInString(s) > 80 {
		s = string([]rune(s)[:77]) + "..."
	}
	return s
}

// blame finds the first node, in document order, that a line-less error
// of go.yaml.in/yaml/v2 or sigs.k8s.io/yaml is about.
func blame(root *yaml.Node, msg string) *yaml.Node {
	if root == nil {
		return nil
	}
	var bad func(parent, n *yaml.Node, key bool) bool
	switch {
	case strings.Contains(msg, "invalid map key"), strings.Contains(msg, "unsupported map key"):
		bad = func(_, n *yaml.Node, key bool) bool {
			n = deref(n)
			return key && n != nil && (n.Kind != yaml.ScalarNode || n.Tag == "!!null")
		}
	case strings.Contains(msg, "map merge requires map or sequence of maps"):
		bad = func(parent, n *yaml.Node, key bool) bool {
			return key && isMerge(n) && !mergeable(parent, n)
		}
	case strings.Contains(msg, "!!binary value contains invalid base64"):
		bad = func(_, n *yaml.Node, _ bool) bool {
			if n.Kind != yaml.ScalarNode || n.Tag != "!!binary" {
				return false
			}
			_, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(n.Value), ""))
			return err != nil
		}
	case strings.Contains(msg, "json: unsupported value: "):
		bad = func(_, n *yaml.Node, key bool) bool {
			return !key && n.Kind == yaml.ScalarNode && n.Style == 0 && infRE.MatchString(n.Value)
		}
	default:
		m := decodeRE.FindStringSubmatch(msg)
		if m == nil {
			return nil
		}
		bad = func(_, n *yaml.Node, _ bool) bool {
			return n.Kind == yaml.ScalarNode && n.Tag == m[2] && n.Value == m[1]
		}
	}
	type frame struct {
		parent, n *yaml.Node
		key       bool
	}
	stack := []frame{{nil, root, false}}
	for len(stack) > 0 {
		fr := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if bad(fr.parent, fr.n, fr.key) {
			return fr.n
		}
		for i := len(fr.n.Content) - 1; i >= 0; i-- {
			key := fr.n.Kind == yaml.MappingNode && i%2 == 0
			stack = append(stack, frame{fr.n, fr.n.Content[i], key})
		}
	}
	return nil
}

// mergeable reports whether the merge key k of mapping m has a value that
// go.yaml.in/yaml/v2 can merge: a mapping or a sequence of mappings.
func mergeable(m, k *yaml.Node) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i] != k {
			continue
		}
		v := deref(m.Content[i+1])
		if v == nil {
			return false
		}
		if v.Kind == yaml.SequenceNode {
			for _, s := range v.Content {
				if s = deref(s); s == nil || s.Kind != yaml.MappingNode {
					return false
				}
			}
			return true
		}
		return v.Kind == yaml.MappingNode
	}
	return true
}

// findAlias finds the first use of alias *name in text, as a chunk
// position: the parser that rejects it says neither where nor which use.
func findAlias(text []byte, name string) (Pos, bool) {
	needle := []byte("*" + name)
	for off := 0; ; {
		i := bytes.Index(text[off:], needle)
		if i < 0 {
			return Pos{}, false
		}
		i += off
		end := i + len(needle)
		if end == len(text) || strings.IndexByte(" \t\r\n,]}", text[end]) >= 0 {
			start := bytes.LastIndexByte(text[:i], '\n') + 1
			return Pos{
				Line:   bytes.Count(text[:i], []byte("\n")) + 1,
				Column: utf8.RuneCount(text[start:i]) + 1,
			}, true
		}
		off = i + 1
	}
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

// relocate makes chunk-relative node positions file positions. It walks
// Content only: alias targets are already in the tree.
func relocate(n *yaml.Node, c chunk) {
	if c.line == 1 && c.starts == nil && c.col0 == 0 {
		return
	}
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		p := c.pos(n.Line, n.Column)
		n.Line, n.Column = p.Line, p.Column
		stack = append(stack, n.Content...)
	}
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// KeyString is a mapping key as the JSON kubectl sends spells it (YAML
// 1.1 booleans, numeric keys as sigs.k8s.io/yaml prints them, aliases).
func KeyString(k *yaml.Node) string { return keyString(k) }

// keyString is a mapping key as the JSON kubectl sends spells it:
// go.yaml.in/yaml/v2 resolves plain keys by YAML 1.1 rules, and
// sigs.k8s.io/yaml prints the booleans and numbers it gets back, so "on"
// is "true", "0x1F" is "31" and "1.0" is "1". Alias keys are their
// anchor's value.
func keyString(k *yaml.Node) string {
	if k = deref(k); k == nil {
		return ""
	}
	if k.Kind != yaml.ScalarNode || k.Style != 0 {
		return k.Value
	}
	switch v := k.Value; v {
	case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE":
		return "true"
	case "n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE":
		return "false"
	default:
		if v == "" || strings.IndexByte("0123456789+-.", v[0]) < 0 || plainDecimal(v) {
			return v
		}
		return numericKey(v)
	}
}

// plainDecimal reports whether s is an integer that every YAML reading and
// JSON printing leave as it is.
func plainDecimal(s string) bool {
	if len(s) > 18 || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// numericKey asks sigs.k8s.io/yaml itself how it spells a plain key that
// may be a YAML 1.1 number (octal, hex, underscores, floats printed with
// 32-bit precision, .inf): porting those rules would drift from them.
func numericKey(v string) string {
	js, err := sigsyaml.YAMLToJSON([]byte("? " + v + "\n: 0\n"))
	if err != nil {
		return v
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(js, &m) != nil || len(m) != 1 {
		return v
	}
	for k := range m {
		return k
	}
	return v
}

func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Tag == "!!merge"
}

// lookup returns the value node of key in mapping m, following aliases and
// merge keys.
func lookup(m *yaml.Node, key string) *yaml.Node {
	if _, v := lookupPair(m, key, 0); v != nil {
		return deref(v)
	}
	return nil
}

// lookupPair finds the pair whose value the JSON holds for key. In
// go.yaml.in/yaml/v2, which sigs.k8s.io/yaml uses, pairs apply in order
// and a merge key writes all of its keys where it stands, so the last
// writer wins, even a merge after an explicit key.
func lookupPair(m *yaml.Node, key string, depth int) (k, v *yaml.Node) {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode || depth > 10 {
		return nil, nil
	}
	for i := len(m.Content) - 2; i >= 0; i -= 2 {
		kn := m.Content[i]
		if !isMerge(kn) {
			if keyString(kn) == key {
				return kn, m.Content[i+1]
			}
			continue
		}
		src := deref(m.Content[i+1])
		if src != nil && src.Kind == yaml.SequenceNode {
			// Of several merged mappings the earliest wins.
			for _, s := range src.Content {
				if k, v := lookupPair(s, key, depth+1); k != nil {
					return k, v
				}
			}
		} else if k, v := lookupPair(src, key, depth+1); k != nil {
			return k, v
		}
	}
	return nil, nil
}

// itemKeys gives the key findings of list to the items kubectl sends
// (items): a repeated key under items[N] is the item's, at its path in
// the item, as every other finding about the item is; one elsewhere in
// the list stays the list's, named so (a finding of the document's index
// without an object would be taken for its first item's).
func itemKeys(keys []report.Finding, list *Document, items []*Document) []report.Finding {
	byIndex := make(map[int]*Document, len(items))
	for _, it := range items {
		byIndex[it.Item] = it
	}
	for i := range keys {
		k := &keys[i]
		k.Object = list.Object
		n, rest, ok := itemPath(k.Field)
		if !ok {
			continue
		}
		if it := byIndex[n]; it != nil {
			k.Field, k.Object = rest, it.Object
			if k.Rule == RuleDuplicate {
				k.Message = fmt.Sprintf("duplicate field %q", rest)
			}
		}
	}
	return keys
}

// itemPath splits "items[N]<rest>" into N and rest, the path in the item
// (in the one notation: a first key that is no plain name stays quoted).
func itemPath(field string) (int, string, bool) {
	segs, err := ParseField(field)
	if err != nil || len(segs) < 3 || segs[0].Name != "items" || segs[0].Bracket || !segs[1].Bracket {
		return 0, "", false
	}
	n, err := strconv.Atoi(segs[1].Name)
	if err != nil {
		return 0, "", false
	}
	return n, JoinPath(segs[2:]), true
}

// keyFindings reports every mapping key that repeats an earlier key of
// the same mapping, at the repeated key, in the strict decoder's words,
// and every plain key that kubectl's YAML 1.1 turns into a boolean; in
// document order.
func keyFindings(root *yaml.Node, file string, index int) []report.Finding {
	type frame struct {
		n    *yaml.Node
		path *step
		// key is the key whose value n is, dup whether it repeats one.
		key *yaml.Node
		dup bool
	}
	var out []report.Finding
	stack := []frame{{n: root}}
	for len(stack) > 0 {
		fr := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if k := fr.key; k != nil {
			if fr.dup {
				field := fr.path.String()
				out = append(out, report.Finding{
					Rule: RuleDuplicate, Severity: report.Warning, File: file, Document: index,
					Line: k.Line, Column: k.Column, Field: field,
					Message: fmt.Sprintf("duplicate field %q", field),
				})
			}
			if yaml11Bool(k) {
				out = append(out, report.Finding{
					Rule: RuleYAML11Key, Severity: report.Warning, File: file, Document: index,
					Line: k.Line, Column: k.Column, Field: fr.path.String(),
					Message: fmt.Sprintf("key %q is YAML 1.1's boolean %s as kubectl reads it (the object gets a field %q); quote it (%q) to keep the name",
						k.Value, fr.path.name, fr.path.name, k.Value),
				})
			}
		}
		switch c := fr.n.Content; fr.n.Kind {
		case yaml.MappingNode:
			names := make([]string, len(c)/2)
			dups := make([]bool, len(c)/2)
			seen := make(map[string]bool, len(c)/2)
			for i := range names {
				k := c[2*i]
				names[i] = keyString(k)
				dups[i] = seen[names[i]] && !isMerge(k)
				seen[names[i]] = true
			}
			for i := len(names) - 1; i >= 0; i-- {
				stack = append(stack, frame{n: c[2*i+1], path: &step{parent: fr.path, name: names[i], index: -1}, key: c[2*i], dup: dups[i]})
			}
		case yaml.SequenceNode:
			for i := len(c) - 1; i >= 0; i-- {
				stack = append(stack, frame{n: c[i], path: &step{parent: fr.path, index: i}})
			}
		}
	}
	return out
}

// step is one step of a path from the root, built only when a finding
// needs it: deep documents would otherwise cost the square of their
// depth in path strings.
type step struct {
	parent *step
	name   string
	index  int // a sequence item's, or -1 for a key
}

// String is the path in the one notation (JoinPath): spec.items[0].x,
// metadata.annotations["example.com/x"].
func (s *step) String() string {
	var segs []Segment
	for p := s; p != nil; p = p.parent {
		if p.index >= 0 {
			segs = append(segs, Segment{Name: strconv.Itoa(p.index), Bracket: true})
		} else {
			segs = append(segs, Segment{Name: p.name})
		}
	}
	slices.Reverse(segs)
	return JoinPath(segs)
}

// yaml11Bool reports whether k is a key written as a plain scalar that
// kubectl's YAML 1.1 reads as a boolean spelt otherwise ("on" is true,
// "No" is false); "true" and "false" mean what they say.
func yaml11Bool(k *yaml.Node) bool {
	if k.Kind != yaml.ScalarNode || k.Style != 0 || k.Tag == "!!merge" {
		return false
	}
	name := keyString(k)
	return (name == "true" || name == "false") && k.Value != name
}
