package report

// A focused XML Schema validator: enough of XSD 1.0 for
// testdata/schema/junit-10.xsd (see testdata/schema/README.md for why it
// is not a library). It reads the schema file, and any construct it does
// not implement is an error, never silently accepted.

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const xsdNS = "http://www.w3.org/2001/XMLSchema"

// xnode is a parsed XML element.
type xnode struct {
	name     string
	attrs    map[string]string
	children []*xnode
	text     string // character data directly inside, concatenated
	line     int
}

func parseXML(data []byte) (*xnode, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var stack []*xnode
	var root *xnode
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		line, _ := dec.InputPos()
		switch t := tok.(type) {
		case xml.StartElement:
			n := &xnode{name: t.Name.Local, attrs: map[string]string{}, line: line}
			if t.Name.Space != "" && t.Name.Space != xsdNS {
				return nil, fmt.Errorf("line %d: namespaced element %s:%s not supported", line, t.Name.Space, t.Name.Local)
			}
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					continue
				}
				if a.Name.Space != "" {
					return nil, fmt.Errorf("line %d: namespaced attribute %s:%s not supported", line, a.Name.Space, a.Name.Local)
				}
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			} else if root != nil {
				return nil, fmt.Errorf("line %d: second root element", line)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(t)
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("no root element")
	}
	return root, nil
}

// particle is a content model node: an element, a sequence or a choice,
// with its occurrence bounds (max < 0: unbounded).
type particle struct {
	kind     string // element, sequence, choice
	name     string
	min, max int
	children []particle
}

// ends returns every position reachable after matching p against names
// from position i.
func (p particle) ends(names []string, i int) []int {
	once := func(start int) []int {
		switch p.kind {
		case "element":
			if start < len(names) && names[start] == p.name {
				return []int{start + 1}
			}
			return nil
		case "sequence":
			cur := []int{start}
			for _, c := range p.children {
				var next []int
				for _, s := range cur {
					next = appendUnique(next, c.ends(names, s)...)
				}
				cur = next
			}
			return cur
		default: // choice
			var out []int
			for _, c := range p.children {
				out = appendUnique(out, c.ends(names, start)...)
			}
			return out
		}
	}
	var out []int
	cur := []int{i}
	if p.min == 0 {
		out = append(out, i)
	}
	for n := 1; p.max < 0 || n <= p.max; n++ {
		var next []int
		for _, s := range cur {
			for _, e := range once(s) {
				// A repetition that consumes nothing cannot lead anywhere new.
				if e != s || n <= p.min {
					next = appendUnique(next, e)
				}
			}
		}
		if len(next) == 0 {
			break
		}
		if n >= p.min {
			out = appendUnique(out, next...)
		}
		if slices.Equal(next, cur) {
			break
		}
		cur = next
	}
	return out
}

func appendUnique(s []int, vs ...int) []int {
	for _, v := range vs {
		if !slices.Contains(s, v) {
			s = append(s, v)
		}
	}
	return s
}

// xsdAttr is a declared attribute.
type xsdAttr struct {
	required bool
	pattern  *regexp.Regexp // nil: any string
}

// xsdType is what an element may hold.
type xsdType struct {
	simple  bool // text only (xs:string or a restriction of it)
	pattern *regexp.Regexp
	mixed   bool
	content *particle // nil: no child elements
	attrs   map[string]xsdAttr
}

type xsdSchema struct {
	elements map[string]*xsdType // global element declarations
}

// loadXSD reads the subset of XSD that junit-10.xsd uses.
func loadXSD(data []byte) (*xsdSchema, error) {
	root, err := parseXML(data)
	if err != nil {
		return nil, err
	}
	if root.name != "schema" {
		return nil, fmt.Errorf("root is %s, not xs:schema", root.name)
	}
	simple := map[string]*regexp.Regexp{}
	complexDefs := map[string]*xnode{}
	var elementDefs []*xnode
	for _, c := range root.children {
		switch c.name {
		case "simpleType":
			re, err := simpleTypePattern(c)
			if err != nil {
				return nil, err
			}
			simple[c.attrs["name"]] = re
		case "complexType":
			complexDefs[c.attrs["name"]] = c
		case "element":
			elementDefs = append(elementDefs, c)
		default:
			return nil, fmt.Errorf("line %d: top-level xs:%s not supported", c.line, c.name)
		}
	}
	s := &xsdSchema{elements: map[string]*xsdType{}}
	typeOf := func(name string) (*xsdType, error) {
		switch {
		case name == "xs:string":
			return &xsdType{simple: true}, nil
		case simple[name] != nil:
			return &xsdType{simple: true, pattern: simple[name]}, nil
		case complexDefs[name] != nil:
			return complexType(complexDefs[name], simple)
		}
		return nil, fmt.Errorf("unknown type %q", name)
	}
	for _, e := range elementDefs {
		name := e.attrs["name"]
		if err := onlyAttrs(e, "name", "type"); err != nil {
			return nil, err
		}
		var t *xsdType
		switch {
		case e.attrs["type"] != "" && len(e.children) == 0:
			t, err = typeOf(e.attrs["type"])
		case e.attrs["type"] == "" && len(e.children) == 1 && e.children[0].name == "complexType":
			t, err = complexType(e.children[0], simple)
		default:
			err = fmt.Errorf("line %d: element %s: unsupported declaration", e.line, name)
		}
		if err != nil {
			return nil, err
		}
		s.elements[name] = t
	}
	return s, nil
}

func onlyAttrs(n *xnode, allowed ...string) error {
	for a := range n.attrs {
		if !slices.Contains(allowed, a) {
			return fmt.Errorf("line %d: xs:%s attribute %q not supported", n.line, n.name, a)
		}
	}
	return nil
}

func simpleTypePattern(n *xnode) (*regexp.Regexp, error) {
	if len(n.children) != 1 || n.children[0].name != "restriction" || n.children[0].attrs["base"] != "xs:string" {
		return nil, fmt.Errorf("line %d: simple type %s: only restrictions of xs:string are supported", n.line, n.attrs["name"])
	}
	var pats []string
	for _, f := range n.children[0].children {
		if f.name != "pattern" {
			return nil, fmt.Errorf("line %d: facet xs:%s not supported", f.line, f.name)
		}
		pats = append(pats, f.attrs["value"])
	}
	if len(pats) != 1 {
		return nil, fmt.Errorf("line %d: simple type %s: want one pattern", n.line, n.attrs["name"])
	}
	// XSD patterns match the whole value.
	return regexp.Compile("^(?:" + pats[0] + ")$")
}

func complexType(n *xnode, simple map[string]*regexp.Regexp) (*xsdType, error) {
	if err := onlyAttrs(n, "name", "mixed"); err != nil {
		return nil, err
	}
	t := &xsdType{mixed: n.attrs["mixed"] == "true", attrs: map[string]xsdAttr{}}
	for _, c := range n.children {
		switch c.name {
		case "sequence", "choice":
			if t.content != nil {
				return nil, fmt.Errorf("line %d: two content models", c.line)
			}
			p, err := contentModel(c)
			if err != nil {
				return nil, err
			}
			t.content = &p
		case "attribute":
			if err := onlyAttrs(c, "name", "type", "use"); err != nil {
				return nil, err
			}
			a := xsdAttr{required: c.attrs["use"] == "required"}
			if u := c.attrs["use"]; u != "" && u != "required" && u != "optional" {
				return nil, fmt.Errorf("line %d: use=%q not supported", c.line, u)
			}
			switch typ := c.attrs["type"]; {
			case typ == "xs:string":
			case simple[typ] != nil:
				a.pattern = simple[typ]
			default:
				return nil, fmt.Errorf("line %d: attribute type %q not supported", c.line, typ)
			}
			t.attrs[c.attrs["name"]] = a
		default:
			return nil, fmt.Errorf("line %d: xs:%s in a complex type not supported", c.line, c.name)
		}
	}
	return t, nil
}

func occurs(n *xnode) (int, int, error) {
	lo, hi := 1, 1
	if v, ok := n.attrs["minOccurs"]; ok {
		i, err := strconv.Atoi(v)
		if err != nil {
			return 0, 0, fmt.Errorf("line %d: minOccurs %q", n.line, v)
		}
		lo = i
	}
	if v, ok := n.attrs["maxOccurs"]; ok {
		if v == "unbounded" {
			hi = -1
		} else {
			i, err := strconv.Atoi(v)
			if err != nil {
				return 0, 0, fmt.Errorf("line %d: maxOccurs %q", n.line, v)
			}
			hi = i
		}
	}
	return lo, hi, nil
}

func contentModel(n *xnode) (particle, error) {
	lo, hi, err := occurs(n)
	if err != nil {
		return particle{}, err
	}
	p := particle{kind: n.name, min: lo, max: hi}
	switch n.name {
	case "element":
		if err := onlyAttrs(n, "ref", "minOccurs", "maxOccurs", "name", "type"); err != nil {
			return p, err
		}
		// Local declarations (name + xs:string) appear only in rerunType;
		// refs name global elements.
		p.name = n.attrs["ref"]
		if p.name == "" {
			if n.attrs["type"] != "xs:string" {
				return p, fmt.Errorf("line %d: local element %s of type %q not supported", n.line, n.attrs["name"], n.attrs["type"])
			}
			p.name = n.attrs["name"]
		}
		return p, nil
	case "sequence", "choice":
		if err := onlyAttrs(n, "minOccurs", "maxOccurs"); err != nil {
			return p, err
		}
		for _, c := range n.children {
			cp, err := contentModel(c)
			if err != nil {
				return p, err
			}
			p.children = append(p.children, cp)
		}
		return p, nil
	}
	return p, fmt.Errorf("line %d: xs:%s in a content model not supported", n.line, n.name)
}

// validate checks an XML document against the schema and returns every
// violation, each naming the element's line.
func (s *xsdSchema) validate(data []byte) []string {
	root, err := parseXML(data)
	if err != nil {
		return []string{err.Error()}
	}
	var errs []string
	var walk func(n *xnode, t *xsdType)
	walk = func(n *xnode, t *xsdType) {
		bad := func(format string, a ...any) {
			errs = append(errs, fmt.Sprintf("line %d: <%s>: ", n.line, n.name)+fmt.Sprintf(format, a...))
		}
		if t.simple {
			if len(n.children) > 0 {
				bad("child elements in a text-only element")
			}
			if t.pattern != nil && !t.pattern.MatchString(n.text) {
				bad("text %q does not match %s", n.text, t.pattern)
			}
			if len(n.attrs) > 0 {
				bad("attributes on a text-only element")
			}
			return
		}
		for name, a := range t.attrs {
			v, ok := n.attrs[name]
			if !ok && a.required {
				bad("missing required attribute %q", name)
			}
			if ok && a.pattern != nil && !a.pattern.MatchString(v) {
				bad("attribute %s=%q does not match %s", name, v, a.pattern)
			}
		}
		for name := range n.attrs {
			if _, ok := t.attrs[name]; !ok {
				bad("undeclared attribute %q", name)
			}
		}
		if !t.mixed && strings.TrimSpace(n.text) != "" {
			bad("text in element-only content: %q", strings.TrimSpace(n.text))
		}
		names := make([]string, len(n.children))
		for i, c := range n.children {
			names[i] = c.name
		}
		model := particle{kind: "sequence", min: 1, max: 1}
		if t.content != nil {
			model = *t.content
		}
		if !slices.Contains(model.ends(names, 0), len(names)) {
			bad("children %v do not match the content model", names)
		}
		for _, c := range n.children {
			ct, ok := s.elements[c.name]
			if !ok {
				// rerunType's local elements are text-only.
				ct = &xsdType{simple: true}
			}
			walk(c, ct)
		}
	}
	t, ok := s.elements[root.name]
	if !ok {
		return []string{fmt.Sprintf("root element <%s> is not declared", root.name)}
	}
	walk(root, t)
	return errs
}

func loadJUnitSchema(t *testing.T) *xsdSchema {
	t.Helper()
	data, err := os.ReadFile("testdata/schema/junit-10.xsd")
	if err != nil {
		t.Fatal(err)
	}
	s, err := loadXSD(data)
	if err != nil {
		t.Fatalf("junit-10.xsd: %v", err)
	}
	return s
}

// TestXSDValidator shows that the validator catches each kind of
// violation, so that a clean result means something.
func TestXSDValidator(t *testing.T) {
	s := loadJUnitSchema(t)
	tests := []struct {
		name, doc string
		want      string // substring of the first error; "" for valid
	}{
		{"valid", `<testsuites><testsuite name="a" tests="1" failures="1" errors="0"><testcase name="x"><failure message="m">text</failure><system-out>o</system-out></testcase></testsuite></testsuites>`, ""},
		{"valid empty", `<testsuites/>`, ""},
		{"valid time", `<testsuites time="1,234.5"/>`, ""},
		{"valid rerun", `<testsuite name="a" tests="1" failures="0" errors="0"><testcase name="x"><flakyFailure type="t"><stackTrace>s</stackTrace></flakyFailure></testcase></testsuite>`, ""},
		{"undeclared root", `<report/>`, "not declared"},
		{"missing required attribute", `<testsuites><testsuite name="a" tests="1" failures="0"/></testsuites>`, `missing required attribute "errors"`},
		{"undeclared attribute", `<testsuites skipped="1"/>`, `undeclared attribute "skipped"`},
		{"undeclared attribute on testcase", `<testsuite name="a" tests="1" failures="0" errors="0"><testcase name="x" file="f"/></testsuite>`, `undeclared attribute "file"`},
		{"pattern", `<testsuites time="soon"/>`, "does not match"},
		{"child not allowed", `<testsuites><testcase name="x"/></testsuites>`, "content model"},
		{"text in element-only content", `<testsuites>hello</testsuites>`, "text in element-only content"},
		{"children in text-only element", `<testsuite name="a" tests="1" failures="0" errors="0"><system-out><b/></system-out></testsuite>`, "child elements"},
		{"required attribute of a nested type", `<testsuite name="a" tests="1" failures="0" errors="0"><testcase name="x"><rerunFailure/></testcase></testsuite>`, `missing required attribute "type"`},
		{"sequence order", `<testsuite name="a" tests="1" failures="0" errors="0"><testcase name="x"><flakyError type="t"><system-out/><stackTrace/></flakyError></testcase></testsuite>`, "content model"},
		{"malformed", `<testsuites>`, "XML syntax error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := s.validate([]byte(tt.doc))
			switch {
			case tt.want == "" && len(errs) > 0:
				t.Errorf("got errors %q, want none", errs)
			case tt.want != "" && len(errs) == 0:
				t.Errorf("got no error, want one containing %q", tt.want)
			case tt.want != "" && !strings.Contains(errs[0], tt.want):
				t.Errorf("got error %q, want one containing %q", errs[0], tt.want)
			}
		})
	}
}

// TestXSDLoaderRefusesUnknownConstructs keeps a schema update from being
// half-checked.
func TestXSDLoaderRefusesUnknownConstructs(t *testing.T) {
	tests := []struct{ name, xsd string }{
		{"top-level group", `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:group name="g"/></xs:schema>`},
		{"facet", `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:simpleType name="t"><xs:restriction base="xs:string"><xs:maxLength value="3"/></xs:restriction></xs:simpleType></xs:schema>`},
		{"all", `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="e"><xs:complexType><xs:all/></xs:complexType></xs:element></xs:schema>`},
		{"attribute type", `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="e"><xs:complexType><xs:attribute name="a" type="xs:int"/></xs:complexType></xs:element></xs:schema>`},
		{"element default", `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="e" type="xs:string" default="x"/></xs:schema>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := loadXSD([]byte(tt.xsd)); err == nil {
				t.Errorf("got nil error, want one")
			}
		})
	}
}
