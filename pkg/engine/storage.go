package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// What storage does with custom resources, for judging objects that
// already exist when their CRD changes: the CRD handler's storage codec
// (crdConversionRESTOptionsGetter) decodes an object stored in etcd with
// the schema of the version it was stored in (schemaCoercingDecoder,
// dropping malformed metadata), defaults it in that version, and encodes
// what it writes in the storage version, converting with the CRD's
// strategy and pruning by the target version's schema
// (schemaCoercingConverter). Under the None strategy converting only
// relabels apiVersion; a webhook cannot be called offline, so callers
// convert only under None.

// Read is storage decoding obj (a decoded JSON object stored in this
// version, changed in place): metadata coerced with malformed fields
// dropped, pruned by the schema, non-nullable nulls dropped, then
// defaulted. It returns the pruned paths in the server's notation: data
// that is gone from the object from now on, and from etcd at its next
// write.
func (v *Version) Read(obj map[string]any) (pruned []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			pruned, err = nil, fmt.Errorf("the server's storage decoding panicked: %v", r)
		}
	}()
	u := &unstructured.Unstructured{Object: obj}
	pruned, err = v.coerceWith(u, true)
	if err != nil {
		return nil, err
	}
	if v.structural != nil {
		structuraldefaulting.Default(u.Object, v.structural)
	}
	return pruned, nil
}

// Convert is the None strategy converting obj (changed in place) into
// this version: apiVersion relabelled, then pruned by this version's
// schema as the converter that wraps the strategy does (no defaulting).
// It returns the pruned paths.
func (v *Version) Convert(obj map[string]any) (pruned []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			pruned, err = nil, fmt.Errorf("the server's conversion panicked: %v", r)
		}
	}()
	u := &unstructured.Unstructured{Object: obj}
	u.SetAPIVersion(v.GVK.GroupVersion().String())
	return v.coerceWith(u, false)
}

// RuleErrors evaluates one x-kubernetes-validations rule of this
// version's schema, alone, on obj as the server's CEL validator does,
// with old as the object's previous state (nil for a create, where
// transition rules do not run): it tells which objects that rule refuses
// whatever the other rules say. node is the custom resource field the
// rule's self is bound to, as object property names with "[*]" for list
// items and map values; rule is the rule as the schema holds it there.
// The errors are the server's.
func (v *Version) RuleErrors(node []string, rule apiextensionsv1.ValidationRule, obj, old map[string]any) (field.ErrorList, error) {
	val, err := v.ruleValidator(node, rule)
	if err != nil {
		return nil, err
	}
	var oldAny any
	if old != nil {
		oldAny = old
	}
	errs, _ := val.Validate(context.Background(), nil, nil, obj, oldAny, celconfig.RuntimeCELCostBudget)
	return errs, nil
}

type ruleKey struct {
	node string
	rule string // the rule as JSON
}

type ruleEntry struct {
	val *cel.Validator
	err error
}

func (v *Version) ruleValidator(node []string, rule apiextensionsv1.ValidationRule) (*cel.Validator, error) {
	js, err := json.Marshal(rule)
	if err != nil {
		return nil, err
	}
	k := ruleKey{strings.Join(node, "\x00"), string(js)}
	if e, ok := v.rules.Load(k); ok {
		return e.(ruleEntry).val, e.(ruleEntry).err
	}
	e := ruleEntry{}
	e.val, e.err = v.newRuleValidator(node, rule)
	v.rules.Store(k, e)
	return e.val, e.err
}

func (v *Version) newRuleValidator(node []string, rule apiextensionsv1.ValidationRule) (val *cel.Validator, err error) {
	defer func() {
		if r := recover(); r != nil {
			val, err = nil, fmt.Errorf("the server's CEL compilation panicked: %v", r)
		}
	}()
	if v.structural == nil {
		return nil, fmt.Errorf("version %s has no schema", v.GVK.Version)
	}
	target := schemaAt(v.structural, node)
	if target == nil {
		return nil, fmt.Errorf("version %s has no schema for field %s", v.GVK.Version, strings.Join(node, "."))
	}
	if !slices.ContainsFunc(target.XValidations, func(r apiextensionsv1.ValidationRule) bool { return apiequality.Semantic.DeepEqual(r, rule) }) {
		return nil, fmt.Errorf("field %s of version %s has no rule %q", strings.Join(node, "."), v.GVK.Version, rule.Rule)
	}
	s := v.structural.DeepCopy()
	clearRules(s)
	setRule(s, node, rule)
	val = cel.NewValidator(s, true, celconfig.PerCallLimit)
	if val == nil {
		return nil, fmt.Errorf("the server compiled no validator for rule %q", rule.Rule)
	}
	return val, nil
}

// schemaAt is the schema of the field node names ("[*]": list items or
// map values), or nil.
func schemaAt(s *structuralschema.Structural, node []string) *structuralschema.Structural {
	for _, name := range node {
		switch {
		case s == nil:
			return nil
		case name == "[*]" && s.Items != nil:
			s = s.Items
		case name == "[*]" && s.AdditionalProperties != nil:
			s = s.AdditionalProperties.Structural
		default:
			p, ok := s.Properties[name]
			if !ok {
				return nil
			}
			s = &p
		}
	}
	return s
}

// clearRules drops every x-kubernetes-validations rule of s (a copy the
// caller owns; properties are values, so each is written back).
func clearRules(s *structuralschema.Structural) {
	if s == nil {
		return
	}
	s.XValidations = nil
	for k, p := range s.Properties {
		clearRules(&p)
		s.Properties[k] = p
	}
	clearRules(s.Items)
	if s.AdditionalProperties != nil {
		clearRules(s.AdditionalProperties.Structural)
	}
}

// setRule gives the field node names the one rule.
func setRule(s *structuralschema.Structural, node []string, rule apiextensionsv1.ValidationRule) {
	if s == nil {
		return
	}
	if len(node) == 0 {
		s.XValidations = apiextensionsv1.ValidationRules{rule}
		return
	}
	switch name := node[0]; {
	case name == "[*]" && s.Items != nil:
		setRule(s.Items, node[1:], rule)
	case name == "[*]" && s.AdditionalProperties != nil:
		setRule(s.AdditionalProperties.Structural, node[1:], rule)
	default:
		if p, ok := s.Properties[name]; ok {
			setRule(&p, node[1:], rule)
			s.Properties[name] = p
		}
	}
}
