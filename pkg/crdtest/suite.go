package crdtest

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// APIVersion and Kind name crdlint's own suite format.
const (
	APIVersion = "crdlint.dev/v1alpha1"
	Kind       = "CRDTestSuite"
)

// Suffix is the naming convention discovery looks for: a file whose name
// ends with it is a suite.
const Suffix = ".crdtest.yaml"

// Format is the format a suite was written in.
type Format string

const (
	// Crdlint is this package's format (APIVersion, Kind).
	Crdlint Format = "crdlint"
	// OpenShift is openshift/api's tests/<crd>/*.yaml format, read as it
	// is (crdName, featureGates, tests.onCreate/onUpdate).
	OpenShift Format = "openshift"
)

// Op is what a step asks the server.
type Op string

const (
	Create       Op = "create"
	Update       Op = "update"
	UpdateStatus Op = "updateStatus"
)

// Suite is one suite file, read.
type Suite struct {
	File   string
	Format Format
	Name   string
	// CRDs are the suite's CRD sources as written (files, directories,
	// URLs), paths resolved against the suite's directory.
	CRDs []string
	// CRDName picks the CRD under test by name among the sources
	// (openshift's crdName); "" for any.
	CRDName string
	// FeatureGates are openshift's gates: "G" must be enabled in the CRD
	// (annotation feature-gate.release.openshift.io/G: "true"), "-G" not.
	FeatureGates []string
	// Version is openshift's version: the CRD version under test, the
	// only one its CRD serves and stores during the suite; "": the
	// CRD's single version.
	Version string
	// Minors are the Kubernetes minors the suite's cases must hold on
	// (kubernetesVersions), resolved; nil: the newest.
	Minors []string
	Cases  []*Case
	// Warnings are what reading the suite ignored (openshift's format:
	// keys its generator does not read), at their positions.
	Warnings []*Error

	data []byte
	root *yaml.Node
}

// Case is one named test: one or more steps, the last of which carries
// the expectation (the others must be accepted).
type Case struct {
	Name string
	Pos  source.Pos
	// Minors override the suite's kubernetesVersions; nil: the suite's.
	Minors []string
	Steps  []*Step
	// node is the case's mapping (crdlint format), for --update.
	node *yaml.Node
	// index is the case's in its file, which names it to another minor's
	// engine (Filter keeps it).
	index int
}

// Step is one request.
type Step struct {
	Op Op
	// Old is the stored object an update starts from (pruned and
	// defaulted as storage reads it); nil: the previous step's result.
	Old map[string]any
	// Object is the request's body (for a status write, the status
	// subresource's strategy keeps all of the stored object but its
	// status).
	Object map[string]any
	// Set, for a step without Object, makes its body the previous step's
	// stored object with these top-level fields set.
	Set map[string]any
	// StoredName sends the request to the stored object's name and
	// namespace whatever Object says (openshift's generator sets them on
	// updated).
	StoredName bool
	Namespace  string
	// FieldValidation is the request's fieldValidation: Strict, Warn
	// (client-go's default: it sends none) or Ignore.
	FieldValidation string
	// CRDPatches are JSON patches applied to the CRD for this step only
	// (openshift's initialCRDPatches), as raw JSON.
	CRDPatches []byte
	// Expect is nil for a step that must merely be accepted.
	Expect *Expect
	// Why names the step in failures ("create the initial object").
	Why string
}

// Expect is what a case expects of the server.
type Expect struct {
	// Accepted is nil when the expectation does not say (then any field
	// that describes an error implies a refusal).
	Accepted *bool
	// Reason is the Status reason (Invalid, BadRequest, NotFound).
	Reason string
	// Message is the whole error text, exact; MessageContains are
	// substrings of it.
	Message         string
	MessageContains []string
	// Errors are the causes; nil when not compared.
	Errors []ErrorExpect
	// Stored is the object as stored, compared without the metadata the
	// server generates; nil when not compared.
	Stored map[string]any
	// Pruned are the unknown fields' paths the server drops.
	Pruned      []string
	PrunedSet   bool
	Warnings    []string
	WarningsSet bool
	// Missing is a case without expect: it fails until --update records
	// what the server says.
	Missing bool
	Pos     source.Pos
}

// ErrorExpect is one expected cause; empty fields are not compared.
type ErrorExpect struct {
	Field, Reason, Message, MessageContains string
}

// rejects says whether the expectation is a refusal.
func (e *Expect) rejects() bool {
	if e.Accepted != nil {
		return !*e.Accepted
	}
	return e.Reason != "" || e.Message != "" || len(e.MessageContains) > 0 || len(e.Errors) > 0
}

// Error is a suite that cannot be read: where and why.
type Error struct {
	File string
	Pos  source.Pos
	Msg  string
}

func (e *Error) Error() string {
	if e.Pos.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	if e.Pos.Column == 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Pos.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Pos.Line, e.Pos.Column, e.Msg)
}

// Read reads a suite (either format, told apart by its apiVersion and
// kind or openshift's crdName and tests.onCreate/onUpdate). file names it
// in errors and resolves relative paths. Errors are *Error.
func Read(file string, data []byte) (s *Suite, err error) {
	defer func() {
		// The reader walks untrusted YAML; a bug must be an error at the
		// file, never a panic of the command.
		if r := recover(); r != nil {
			s, err = nil, &Error{File: file, Msg: fmt.Sprintf("cannot read the suite: %v", r)}
		}
	}()
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		pos := yamlErrorPos(err)
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = strings.TrimPrefix(msg, fmt.Sprintf("line %d: ", pos.Line))
		return nil, &Error{File: file, Pos: pos, Msg: msg}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{File: file, Pos: source.Pos{Line: extra.Line, Column: extra.Column}, Msg: "a suite is one YAML document; this file has more"}
	}
	if len(doc.Content) == 0 {
		return nil, &Error{File: file, Msg: "the suite is empty"}
	}
	root := doc.Content[0]
	r := &reader{file: file, dir: filepath.Dir(file)}
	if root.Kind != yaml.MappingNode {
		return nil, r.errorf(root, "a suite is a mapping (apiVersion: %s, kind: %s, tests: ...), not %s", APIVersion, Kind, describe(root))
	}
	s = &Suite{File: file, data: data, root: root}
	if isOpenShift(root) {
		s.Format = OpenShift
		err = r.openshift(s, root)
	} else {
		s.Format = Crdlint
		err = r.crdlint(s, root)
	}
	if err != nil {
		return nil, err
	}
	s.Warnings = r.warnings
	for i, c := range s.Cases {
		c.index = i
	}
	return s, nil
}

type reader struct {
	file, dir string
	warnings  []*Error
}

func (r *reader) errorf(n *yaml.Node, format string, a ...any) error {
	return &Error{File: r.file, Pos: source.Pos{Line: n.Line, Column: n.Column}, Msg: fmt.Sprintf(format, a...)}
}

func (r *reader) warnf(n *yaml.Node, format string, a ...any) {
	r.warnings = append(r.warnings, r.errorf(n, format, a...).(*Error))
}

// fields walks a mapping's keys, refusing unknown and repeated ones.
func (r *reader) fields(m *yaml.Node, what string, known []string, fn func(key string, k, v *yaml.Node) error) error {
	// YAML aliases stand for their anchors' nodes (a case's old object
	// repeated as another's, say).
	m = resolve(m)
	if m.Kind != yaml.MappingNode {
		return r.errorf(m, "%s must be a mapping, not %s", what, describe(m))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		key := k.Value
		if seen[key] {
			return r.errorf(k, "%s: %s is given twice", what, key)
		}
		seen[key] = true
		ok := false
		for _, kn := range known {
			ok = ok || kn == key
		}
		if !ok {
			return r.errorf(k, "%s: unknown key %q (known: %s)", what, key, strings.Join(known, ", "))
		}
		if err := fn(key, k, resolve(v)); err != nil {
			return err
		}
	}
	return nil
}

func (r *reader) str(v *yaml.Node, key string) (string, error) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return "", r.errorf(v, "%s must be a string, not %s", key, describe(v))
	}
	return v.Value, nil
}

func (r *reader) bool(v *yaml.Node, key string) (bool, error) {
	var b bool
	if v.Kind != yaml.ScalarNode || v.Decode(&b) != nil {
		return false, r.errorf(v, "%s must be true or false, not %s", key, describe(v))
	}
	return b, nil
}

// strs reads a string or a list of strings.
func (r *reader) strs(v *yaml.Node, key string) ([]string, error) {
	v = resolve(v)
	if v.Kind == yaml.ScalarNode {
		s, err := r.str(v, key)
		return []string{s}, err
	}
	if v.Kind != yaml.SequenceNode {
		return nil, r.errorf(v, "%s must be a string or a list of strings, not %s", key, describe(v))
	}
	out := []string{}
	for _, it := range v.Content {
		s, err := r.str(resolve(it), key+" entries")
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// object reads an object given inline as YAML: what kubectl or a client
// would send, YAML 1.1 scalars and all (sigs.k8s.io/yaml), with the
// server's numbers (int64 or float64).
func (r *reader) object(v *yaml.Node, key string) (map[string]any, error) {
	v = resolve(v)
	if v.Kind != yaml.MappingNode {
		return nil, r.errorf(v, "%s must be an object (a mapping), not %s", key, describe(v))
	}
	budget := maxExpanded
	whole := expandAliases(v, &budget)
	if whole == nil {
		return nil, r.errorf(v, "%s: excessive aliasing (more than %d nodes)", key, maxExpanded)
	}
	text, err := yaml.Marshal(whole)
	if err != nil {
		return nil, r.errorf(v, "%s: %v", key, err)
	}
	return r.objectText(v, key, text)
}

// maxExpanded bounds the nodes an object's aliases may expand to: a
// "billion laughs" of nested aliases is an error, as it is for yaml.v3's
// own decoder, not a hang.
const maxExpanded = 200000

// expandAliases is a copy of n with every alias replaced by a copy of its
// anchor's node, so that n is whole on its own; nil when that would take
// more than *budget nodes.
func expandAliases(n *yaml.Node, budget *int) *yaml.Node {
	if n == nil {
		return nil
	}
	if *budget--; *budget < 0 {
		return nil
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return expandAliases(n.Alias, budget)
	}
	c := *n
	c.Anchor = ""
	if len(n.Content) > 0 {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, k := range n.Content {
			if c.Content[i] = expandAliases(k, budget); c.Content[i] == nil {
				return nil
			}
		}
	}
	return &c
}

// objectText decodes one object's YAML or JSON text.
func (r *reader) objectText(at *yaml.Node, key string, text []byte) (map[string]any, error) {
	js, err := sigsyaml.YAMLToJSON(text)
	if err != nil {
		return nil, r.errorf(at, "%s: %v", key, err)
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(js, &obj); err != nil || obj == nil {
		return nil, r.errorf(at, "%s must be an object", key)
	}
	return obj, nil
}

// objectFile reads an object from a file next to the suite.
func (r *reader) objectFile(v *yaml.Node, key string) (map[string]any, error) {
	p, err := r.str(v, key)
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.dir, p)
	}
	data, err := source.ReadBytes(p)
	if err != nil {
		return nil, r.errorf(v, "%s: %v", key, err)
	}
	return r.objectText(v, key+" "+p, data)
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "null"
	}
	return fmt.Sprintf("%q", n.Value)
}

// yamlErrorPos finds "line N" in a yaml.v3 error.
func yamlErrorPos(err error) source.Pos {
	var line int
	msg := err.Error()
	if i := strings.Index(msg, "line "); i >= 0 {
		fmt.Sscanf(msg[i+5:], "%d", &line)
	}
	return source.Pos{Line: line}
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
