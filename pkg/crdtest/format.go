package crdtest

import (
	"path/filepath"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// The keys of crdlint's format, in the order docs/testing-crds.md gives
// them.
var (
	suiteKeys  = []string{"apiVersion", "kind", "name", "crds", "crdName", "kubernetesVersions", "namespace", "fieldValidation", "tests"}
	caseKeys   = []string{"name", "object", "objectFile", "oldObject", "oldObjectFile", "subresource", "namespace", "fieldValidation", "kubernetesVersions", "expect"}
	expectKeys = []string{"accepted", "reason", "message", "messageContains", "errors", "stored", "pruned", "warnings"}
	errorKeys  = []string{"field", "reason", "message", "messageContains"}
)

// FieldValidations are the values of fieldValidation, as the server
// spells them.
var FieldValidations = []string{"Strict", "Warn", "Ignore"}

func (r *reader) crdlint(s *Suite, root *yaml.Node) error {
	var tests *yaml.Node
	namespace, fv := "", "Warn"
	err := r.fields(root, "the suite", suiteKeys, func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "apiVersion":
			var a string
			if a, err = r.str(v, key); err == nil && a != APIVersion {
				return r.errorf(v, "apiVersion must be %s, not %q", APIVersion, a)
			}
		case "kind":
			var kd string
			if kd, err = r.str(v, key); err == nil && kd != Kind {
				return r.errorf(v, "kind must be %s, not %q", Kind, kd)
			}
		case "name":
			s.Name, err = r.str(v, key)
		case "crds":
			var crds []string
			if crds, err = r.strs(v, key); err == nil {
				for _, c := range crds {
					s.CRDs = append(s.CRDs, r.crdPath(c))
				}
			}
		case "crdName":
			s.CRDName, err = r.str(v, key)
		case "kubernetesVersions":
			s.Minors, err = r.minors(v)
		case "namespace":
			namespace, err = r.str(v, key)
		case "fieldValidation":
			fv, err = r.fieldValidation(v)
		case "tests":
			tests = v
		}
		return err
	})
	if err != nil {
		return err
	}
	if mapValue(root, "apiVersion") == nil || mapValue(root, "kind") == nil {
		return r.errorf(root, "a suite starts with apiVersion: %s and kind: %s", APIVersion, Kind)
	}
	if tests == nil {
		return r.errorf(root, "the suite has no tests:")
	}
	if tests.Kind != yaml.SequenceNode {
		return r.errorf(tests, "tests must be a list of cases, not %s", describe(tests))
	}
	names := map[string]int{}
	for _, cn := range tests.Content {
		c, err := r.crdlintCase(resolve(cn), namespace, fv)
		if err != nil {
			return err
		}
		if line, dup := names[c.Name]; dup {
			return r.errorf(cn, "a case named %q is already at line %d: names identify cases in reports", c.Name, line)
		}
		names[c.Name] = c.Pos.Line
		s.Cases = append(s.Cases, c)
	}
	return nil
}

// crdPath resolves a CRD source against the suite's directory; URLs are
// kept.
func (r *reader) crdPath(c string) string {
	if strings.Contains(c, "://") || filepath.IsAbs(c) {
		return c
	}
	return filepath.Join(r.dir, c)
}

func (r *reader) fieldValidation(v *yaml.Node) (string, error) {
	s, err := r.str(v, "fieldValidation")
	if err != nil {
		return "", err
	}
	for _, f := range FieldValidations {
		if strings.EqualFold(f, s) {
			return f, nil
		}
	}
	return "", r.errorf(v, "fieldValidation must be one of %s, not %q", strings.Join(FieldValidations, ", "), s)
}

func (r *reader) crdlintCase(cn *yaml.Node, namespace, fv string) (*Case, error) {
	c := &Case{Pos: source.Pos{Line: cn.Line, Column: cn.Column}, node: cn}
	st := &Step{Op: Create, Namespace: namespace, FieldValidation: fv}
	var subresource string
	var objNode, oldNode *yaml.Node
	err := r.fields(cn, "a case", caseKeys, func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "name":
			c.Name, err = r.str(v, key)
		case "object":
			st.Object, err = r.object(v, key)
			objNode = k
		case "objectFile":
			st.Object, err = r.objectFile(v, key)
			objNode = k
		case "oldObject":
			st.Old, err = r.object(v, key)
			oldNode = k
		case "oldObjectFile":
			st.Old, err = r.objectFile(v, key)
			oldNode = k
		case "subresource":
			if subresource, err = r.str(v, key); err == nil && subresource != "status" {
				return r.errorf(v, "subresource must be status, the one subresource with a schema of its own, not %q", subresource)
			}
		case "namespace":
			st.Namespace, err = r.str(v, key)
		case "fieldValidation":
			st.FieldValidation, err = r.fieldValidation(v)
		case "kubernetesVersions":
			c.Minors, err = r.minors(v)
		case "expect":
			st.Expect, err = r.expect(v)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	switch {
	case c.Name == "":
		return nil, r.errorf(cn, "a case needs a name:")
	case mapValue(cn, "object") != nil && mapValue(cn, "objectFile") != nil:
		return nil, r.errorf(objNode, "%q: give object or objectFile, not both", c.Name)
	case mapValue(cn, "oldObject") != nil && mapValue(cn, "oldObjectFile") != nil:
		return nil, r.errorf(oldNode, "%q: give oldObject or oldObjectFile, not both", c.Name)
	case st.Object == nil:
		return nil, r.errorf(cn, "%q: the case needs the request's object (object: or objectFile:)", c.Name)
	case subresource != "" && st.Old == nil:
		return nil, r.errorf(cn, "%q: a write of the status subresource is an update: give the stored object (oldObject: or oldObjectFile:)", c.Name)
	}
	if st.Old != nil {
		st.Op = Update
		if subresource == "status" {
			st.Op = UpdateStatus
		}
	}
	if st.Expect == nil {
		st.Expect = &Expect{Pos: c.Pos, Missing: true}
	}
	c.Steps = []*Step{st}
	return c, nil
}

func (r *reader) expect(v *yaml.Node) (*Expect, error) {
	e := &Expect{Pos: source.Pos{Line: v.Line, Column: v.Column}}
	err := r.fields(v, "expect", expectKeys, func(key string, k, v *yaml.Node) error {
		var err error
		switch key {
		case "accepted":
			var b bool
			b, err = r.bool(v, key)
			e.Accepted = &b
		case "reason":
			e.Reason, err = r.str(v, key)
		case "message":
			e.Message, err = r.str(v, key)
		case "messageContains":
			e.MessageContains, err = r.strs(v, key)
		case "errors":
			e.Errors, err = r.errors(v)
		case "stored":
			e.Stored, err = r.object(v, key)
		case "pruned":
			e.Pruned, err = r.strs(v, key)
			e.PrunedSet = true
		case "warnings":
			e.Warnings, err = r.strs(v, key)
			e.WarningsSet = true
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if e.Accepted != nil && *e.Accepted && (e.Reason != "" || e.Message != "" || len(e.MessageContains) > 0 || len(e.Errors) > 0) {
		return nil, r.errorf(v, "expect: accepted: true, yet it describes an error (reason, message, messageContains, errors)")
	}
	if e.rejects() && e.Stored != nil {
		return nil, r.errorf(v, "expect: a refused request stores nothing: stored: goes with an accepted one")
	}
	return e, nil
}

func (r *reader) errors(v *yaml.Node) ([]ErrorExpect, error) {
	if v.Kind != yaml.SequenceNode {
		return nil, r.errorf(v, "errors must be a list of {field, reason, message}, not %s", describe(v))
	}
	out := []ErrorExpect{}
	for _, it := range v.Content {
		it = resolve(it)
		var ee ErrorExpect
		err := r.fields(it, "an error", errorKeys, func(key string, k, v *yaml.Node) error {
			var err error
			switch key {
			case "field":
				ee.Field, err = r.str(v, key)
			case "reason":
				ee.Reason, err = r.str(v, key)
			case "message":
				ee.Message, err = r.str(v, key)
			case "messageContains":
				ee.MessageContains, err = r.str(v, key)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, ee)
	}
	return out, nil
}
