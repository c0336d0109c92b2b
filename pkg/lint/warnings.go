package lint

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/engine"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// serverWarnings positions the warnings the server returns on create. The
// server words them without a path; each is reported at every schema node
// that causes it.
func serverWarnings(d *source.Document, v1 *apiextensionsv1.CustomResourceDefinition, v *engine.CRDVerdict) []report.Finding {
	if len(v.Warnings) == 0 {
		return nil
	}
	want := make(map[string]bool, len(v.Warnings))
	for _, w := range v.Warnings {
		want[w] = true
	}
	var out []report.Finding
	seen := map[string]bool{}
	for i := range v1.Spec.Versions {
		s, path := versionSchema(v1, i)
		walkSchema(s, path, func(n schemaVisit) {
			if n.s.Format != "" {
				for _, f := range engine.UnrecognizedFormats(n.s.Format, n.s.Type) {
					msg := fmt.Sprintf("unrecognized format %q", f)
					if want[msg] {
						seen[msg] = true
						out = append(out, finding(d, RuleCRDUnrecognizedFormat, report.Warning, n.path+".format", msg))
					}
				}
			}
			if n.s.XListType != nil && *n.s.XListType == "set" && n.s.Items != nil && n.s.Items.Schema != nil {
				msg := fmt.Sprintf("x-kubernetes-list-type: set for items of type %q is not supported by server-side apply or CEL validation rules", n.s.Items.Schema.Type)
				if want[msg] {
					seen[msg] = true
					out = append(out, finding(d, RuleCRDListSetObjects, report.Warning, n.path+".x-kubernetes-list-type", msg))
				}
			}
		})
	}
	// A warning this tool cannot place still reaches the user.
	for _, w := range v.Warnings {
		if !seen[w] {
			seen[w] = true
			out = append(out, finding(d, RuleCRDInvalid, report.Warning, "", w))
		}
	}
	return out
}

// beyondServer are the warnings for what the server accepts but users
// regret. They run only on CRDs the server would accept, whose schemas are
// structural.
func beyondServer(d *source.Document, def *apiextensionsv1.CustomResourceDefinition, v *engine.CRDVerdict) []report.Finding {
	if len(v.Errors) > 0 {
		return nil
	}
	var out []report.Finding
	add := func(rule, field, msg string) {
		out = append(out, finding(d, rule, report.Warning, field, msg))
	}
	for i, ver := range def.Spec.Versions {
		vp := "spec.versions[" + strconv.Itoa(i) + "]"
		s, path := versionSchema(def, i)
		if s != nil {
			if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
				add(RuleCRDNoPruning, path+".x-kubernetes-preserve-unknown-fields",
					"pruning is disabled at the root: unknown and misspelt fields are stored as sent")
			}
			walkSchema(s, path, func(n schemaVisit) {
				if n.spine && !n.meta && n.path != path && isEmptyObject(n.s) {
					add(RuleCRDEmptyObject, n.path,
						"object schema has neither properties, additionalProperties nor x-kubernetes-preserve-unknown-fields: every field set below it is pruned")
				}
			})
			if _, ok := s.Properties["status"]; ok && (ver.Subresources == nil || ver.Subresources.Status == nil) {
				add(RuleCRDStatusNoSubresource, path+".properties[status]",
					fmt.Sprintf("version %q has a status property but no status subresource: status is written through the main resource", ver.Name))
			}
		}
		for j, c := range ver.AdditionalPrinterColumns {
			if s != nil && !schemaHasPath(s, c.JSONPath) {
				add(RuleCRDColumnPath, vp+".additionalPrinterColumns["+strconv.Itoa(j)+"].jsonPath",
					fmt.Sprintf("jsonPath %q refers to a field the schema of version %q does not have: the column is always empty", c.JSONPath, ver.Name))
			}
		}
		if sc := scale(ver); sc != nil && s != nil {
			for _, p := range []struct{ name, path string }{
				{"specReplicasPath", sc.SpecReplicasPath},
				{"statusReplicasPath", sc.StatusReplicasPath},
				{"labelSelectorPath", deref(sc.LabelSelectorPath)},
			} {
				if p.path != "" && !schemaHasPath(s, p.path) {
					add(RuleCRDScalePath, vp+".subresources.scale."+p.name,
						fmt.Sprintf("%s %q refers to a field the schema of version %q does not have", p.name, p.path, ver.Name))
				}
			}
		}
		if ver.Served && ver.Deprecated && ver.DeprecationWarning == nil {
			add(RuleCRDDeprecatedNoWarning, vp+".deprecated",
				fmt.Sprintf("version %q is served and deprecated but has no deprecationWarning: clients see only a generic warning", ver.Name))
		}
	}
	out = append(out, conversionNone(d, def)...)
	out = append(out, celCostWarnings(d, v.Costs)...)
	return out
}

func scale(v apiextensionsv1.CustomResourceDefinitionVersion) *apiextensionsv1.CustomResourceSubresourceScale {
	if v.Subresources == nil {
		return nil
	}
	return v.Subresources.Scale
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// isEmptyObject: an object whose every field the server prunes.
func isEmptyObject(s *apiextensionsv1.JSONSchemaProps) bool {
	return s.Type == "object" && len(s.Properties) == 0 && s.AdditionalProperties == nil &&
		(s.XPreserveUnknownFields == nil || !*s.XPreserveUnknownFields) && !s.XEmbeddedResource
}

// schemaHasPath reports whether a simple JSONPath (.spec.a.b, .status.c[0].d,
// .status.conditions[?(@.type=="Ready")].status) can name a field of the
// schema. Anything under metadata, a preserve-unknown-fields node or an
// additionalProperties map counts as present.
func schemaHasPath(root *apiextensionsv1.JSONSchemaProps, jsonPath string) bool {
	p := strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(jsonPath, "{"), "}"), "$")
	s := root
	first := true
	for p != "" {
		if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
			return true
		}
		switch {
		case p[0] == '.':
			p = p[1:]
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			name := p[:end]
			p = p[end:]
			if first && name == "metadata" {
				return true
			}
			first = false
			if prop, ok := s.Properties[name]; ok {
				s = &prop
			} else if s.AdditionalProperties != nil {
				if s.AdditionalProperties.Schema == nil {
					return s.AdditionalProperties.Allows
				}
				s = s.AdditionalProperties.Schema
			} else {
				return false
			}
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return true // not a path this check understands
			}
			inner := strings.Trim(p[1:end], `'"`)
			p = p[end+1:]
			if s.Type == "array" && s.Items != nil && s.Items.Schema != nil {
				s = s.Items.Schema
			} else if prop, ok := s.Properties[inner]; ok {
				s = &prop
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
				s = s.AdditionalProperties.Schema
			} else {
				return false
			}
		default:
			return true
		}
	}
	return true
}

// conversionNone: served versions whose schemas differ, relabelled rather
// than converted.
func conversionNone(d *source.Document, def *apiextensionsv1.CustomResourceDefinition) []report.Finding {
	if c := def.Spec.Conversion; c != nil && c.Strategy != apiextensionsv1.NoneConverter {
		return nil
	}
	var served []apiextensionsv1.CustomResourceDefinitionVersion
	for _, v := range def.Spec.Versions {
		if v.Served {
			served = append(served, v)
		}
	}
	if len(served) < 2 {
		return nil
	}
	first := withoutDocs(served[:1])
	for _, v := range served[1:] {
		other := withoutDocs([]apiextensionsv1.CustomResourceDefinitionVersion{v})
		if !apiequality.Semantic.DeepEqual(other, first) {
			var names []string
			for _, s := range served {
				names = append(names, s.Name)
			}
			field := "spec.conversion.strategy"
			if _, exact := d.Locate(field); !exact {
				field = "spec.versions"
			}
			return []report.Finding{finding(d, RuleCRDConversionNone, report.Warning, field,
				fmt.Sprintf("versions %s are served with different schemas but conversion strategy None: objects are relabelled, not converted, between them%s",
					strings.Join(names, ", "), schemaDifference(def, served[0].Name, first, v.Name, other)))}
		}
	}
	return nil
}

// schemaDifference says where the schemas a and b (of versions named
// aName and bName) first differ, keys in sorted order, as a path into
// the version that has it (b's when both do): "; v1beta1 and v1 first
// differ at spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[size]
// (only in v1)". The warning names the versions; this names the cause.
func schemaDifference(def *apiextensionsv1.CustomResourceDefinition, aName string, a *apiextensionsv1.JSONSchemaProps, bName string, b *apiextensionsv1.JSONSchemaProps) string {
	var av, bv any
	if ja, err := json.Marshal(a); err != nil || json.Unmarshal(ja, &av) != nil {
		return ""
	}
	if jb, err := json.Marshal(b); err != nil || json.Unmarshal(jb, &bv) != nil {
		return ""
	}
	segs, only := firstDifference(av, bv, aName, bName)
	in, schema := bName, b
	if only == aName {
		in, schema = aName, a
	}
	index := slices.IndexFunc(def.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == in })
	head := source.ParsePath(fmt.Sprintf("spec.versions[%d].schema.openAPIV3Schema", index))
	if schema == nil {
		head = source.ParsePath(fmt.Sprintf("spec.versions[%d].schema", index))
	}
	where := source.JoinPath(schemaBrackets(append(head, segs...)))
	if only != "" {
		only = " (only in " + only + ")"
	}
	return fmt.Sprintf("; %s and %s first differ at %s%s", aName, bName, where, only)
}

// firstDifference is the path of the first place where the JSON values
// a and b differ, in the order encoding/json writes them, and, when one
// of them lacks it, the name of the one that has it.
func firstDifference(a, b any, aName, bName string) ([]source.Segment, string) {
	switch {
	case a == nil && b != nil:
		return nil, bName
	case b == nil && a != nil:
		return nil, aName
	}
	switch at := a.(type) {
	case map[string]any:
		bt, ok := b.(map[string]any)
		if !ok {
			return nil, ""
		}
		union := maps.Clone(at)
		maps.Copy(union, bt)
		for _, k := range slices.Sorted(maps.Keys(union)) {
			av, inA := at[k]
			bv, inB := bt[k]
			switch {
			case !inA:
				return []source.Segment{{Name: k}}, bName
			case !inB:
				return []source.Segment{{Name: k}}, aName
			case !reflect.DeepEqual(av, bv):
				segs, only := firstDifference(av, bv, aName, bName)
				return append([]source.Segment{{Name: k}}, segs...), only
			}
		}
	case []any:
		bt, ok := b.([]any)
		if !ok {
			return nil, ""
		}
		for i := range min(len(at), len(bt)) {
			if !reflect.DeepEqual(at[i], bt[i]) {
				segs, only := firstDifference(at[i], bt[i], aName, bName)
				return append([]source.Segment{{Name: strconv.Itoa(i), Bracket: true}}, segs...), only
			}
		}
	}
	return nil, ""
}

// celCostWarnings flags expressions above half of a budget, before a small
// change pushes them over and the server starts rejecting the CRD.
func celCostWarnings(d *source.Document, costs []engine.CELCost) []report.Finding {
	var out []report.Finding
	totalsWarned := map[string]bool{}
	for _, c := range costs {
		if c.Cost > engine.RuleCostLimit/2 && c.Cost <= engine.RuleCostLimit {
			out = append(out, finding(d, RuleCRDCELCost, report.Warning, c.Field,
				fmt.Sprintf("estimated cost %d is %.0f%% of the per-expression budget %d", c.Cost, pct(c.Cost, engine.RuleCostLimit), engine.RuleCostLimit)))
		}
		if c.Total > engine.CRDCostLimit/2 && c.Total <= engine.CRDCostLimit && !totalsWarned[c.Version] {
			totalsWarned[c.Version] = true
			i := strings.Index(c.Field, ".openAPIV3Schema") + len(".openAPIV3Schema")
			out = append(out, finding(d, RuleCRDCELCost, report.Warning, c.Field[:i],
				fmt.Sprintf("estimated cost of all rules of version %q is %d, %.0f%% of the per-CRD budget %d", c.Version, c.Total, pct(c.Total, engine.CRDCostLimit), engine.CRDCostLimit)))
		}
	}
	return out
}

func pct(a, b uint64) float64 { return float64(a) * 100 / float64(b) }

// withoutDocs returns the first version's schema with descriptions
// removed: versions that differ only in documentation convert fine.
func withoutDocs(vs []apiextensionsv1.CustomResourceDefinitionVersion) *apiextensionsv1.JSONSchemaProps {
	if len(vs) == 0 || vs[0].Schema == nil || vs[0].Schema.OpenAPIV3Schema == nil {
		return nil
	}
	s := vs[0].Schema.OpenAPIV3Schema.DeepCopy()
	walkSchemaMut(s)
	return s
}

func walkSchemaMut(s *apiextensionsv1.JSONSchemaProps) {
	stack := []*apiextensionsv1.JSONSchemaProps{s}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n.Description = ""
		for k, p := range n.Properties {
			walkSchemaMut(&p)
			n.Properties[k] = p
		}
		if n.Items != nil && n.Items.Schema != nil {
			stack = append(stack, n.Items.Schema)
		}
		if n.AdditionalProperties != nil && n.AdditionalProperties.Schema != nil {
			stack = append(stack, n.AdditionalProperties.Schema)
		}
	}
}
