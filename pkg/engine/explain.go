package engine

import (
	"reflect"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The strategy's Validate (customResourceStrategy.Validate with
// rest.ValidateCreate around it) returns one list of errors made by
// several parts:
//
//   - the type meta check: errors at kind and apiVersion, and then nothing
//     else from the validator;
//   - object meta validation (ValidateObjectMetaDeclaratively, then
//     ValidateObjectMetaAccessor): fields under "metadata";
//   - the OpenAPI schema (ValidateCustomResource);
//   - scale: fields named by the scale subresource's paths;
//   - embedded resources (schemaobjectmeta.Validate);
//   - list types (structurallisttype.ValidateListSetsAndMaps);
//   - CEL (the strategy's CEL validator, nil when the schema has no
//     x-kubernetes-validations; with a blocking error before it, its one
//     "some validation rules were not checked" error instead).
//
// Rule IDs need the origin of each error. Explain re-runs the schema,
// embedded and list-type parts on the validated object and looks an error
// up in their output, but only when the answer is not already known from
// static facts about the schema, computed once per version: a part that
// cannot report the error need not run, and without CEL errors (no
// rules, or CEL blocked by an earlier error) an error that no other part
// can have reported is the schema's. This matters because many objects
// with errors have only metadata errors (templates with ${VAR} names:
// 4,554 of the 5,775 in the benchmark), which no part but object meta
// can report under the schemas the server accepts, and because most
// schemas have no CEL rules or an invalid template blocks them.

// explainFacts are facts about a version's schema that settle some of
// Explain's questions without a re-run. Each is conservative: true
// whenever the part might report such an error.
type explainFacts struct {
	// listType: some node has x-kubernetes-list-type set or map, the
	// only lists ValidateListSetsAndMaps checks.
	listType bool
	// embedded: some node has x-kubernetes-embedded-resource, the only
	// objects schemaobjectmeta.Validate checks (isResourceRoot is false).
	embedded bool
	// cel: the strategy has a CEL validator. cel.NewValidator returns nil
	// exactly when hasXValidations is false, which walks what anyNode
	// walks.
	cel bool
	// metaListType, metaEmbedded, metaSchema: the part may report an
	// error whose field starts with "metadata".
	metaListType, metaEmbedded, metaSchema bool
	// dotSchema: the schema may report an error whose field starts with
	// ".", as the scale checks' do.
	dotSchema bool
	// metaRequired: the root requires metadata (argo, cert-manager and
	// some cluster-api CRDs do), which the schema reports only for an
	// object without metadata.
	metaRequired bool
	// scaleFields are the fields the scale checks report at.
	scaleFields []string
}

// newExplainFacts computes the facts for a version: s is its structural
// schema, props the schema its OpenAPI validator was built from (either
// may be nil) and scale its scale subresource (nil without one).
func newExplainFacts(s *structuralschema.Structural, props *apiextensions.JSONSchemaProps, scale *apiextensions.CustomResourceSubresourceScale) explainFacts {
	isListType := func(n *structuralschema.Structural) bool {
		return n.XListType != nil && (*n.XListType == "set" || *n.XListType == "map")
	}
	isEmbedded := func(n *structuralschema.Structural) bool { return n.XEmbeddedResource }
	hasCEL := func(n *structuralschema.Structural) bool { return len(n.XValidations) > 0 }
	f := explainFacts{
		listType: anyNode(s, isListType),
		embedded: anyNode(s, isEmbedded),
		cel:      anyNode(s, hasCEL),
		// An embedded resource at the root would validate the object's
		// own metadata as embedded metadata.
		metaEmbedded: s != nil && s.XEmbeddedResource,
		metaSchema:   schemaMayReport(props, "metadata"),
		dotSchema:    schemaMayReport(props, "."),
	}
	if props != nil {
		for _, r := range props.Required {
			f.metaRequired = f.metaRequired || r == "metadata"
		}
	}
	// Both walkers name a child by its key under the root: only children
	// whose key starts with "metadata", and any child an
	// additionalProperties schema applies to, can report such a field.
	var metaNodes []*structuralschema.Structural
	if s != nil {
		for k := range s.Properties {
			if strings.HasPrefix(k, "metadata") {
				p := s.Properties[k]
				metaNodes = append(metaNodes, &p)
			}
		}
		if s.AdditionalProperties != nil {
			metaNodes = append(metaNodes, s.AdditionalProperties.Structural)
		}
	}
	for _, n := range metaNodes {
		f.metaListType = f.metaListType || anyNode(n, isListType)
		f.metaEmbedded = f.metaEmbedded || anyNode(n, isEmbedded)
	}
	if scale != nil {
		f.scaleFields = append(f.scaleFields, field.NewPath(scale.SpecReplicasPath).String(), field.NewPath(scale.StatusReplicasPath).String())
		if scale.LabelSelectorPath != nil {
			f.scaleFields = append(f.scaleFields, field.NewPath(*scale.LabelSelectorPath).String())
		}
	}
	return f
}

// anyNode reports whether pred holds at s or at a node below it that the
// server's walkers (list types, embedded resources, hasXValidations)
// descend into: properties, additionalProperties and items.
func anyNode(s *structuralschema.Structural, pred func(*structuralschema.Structural) bool) bool {
	if s == nil {
		return false
	}
	if pred(s) || anyNode(s.Items, pred) {
		return true
	}
	if s.AdditionalProperties != nil && anyNode(s.AdditionalProperties.Structural, pred) {
		return true
	}
	for k := range s.Properties {
		p := s.Properties[k]
		if anyNode(&p, pred) {
			return true
		}
	}
	return false
}

// schemaMayReport reports whether the OpenAPI validator built from props
// may report an error whose field starts with prefix ("metadata", or "."
// which starts the scale paths), given that the object's metadata is a
// map whose name and generateName are strings when present, and is
// present if required (what coercion and PrepareForCreate leave;
// metadataCoerced checks it).
//
// The validator names an error by the path of the value it is about,
// which begins with the root key k ("k…" or ".k…", where … is empty or
// starts with "." or "["), and ValidateCustomResource trims one leading
// "." from it: a root key ".metadata" reports at "metadata…". So only
// what the root does with its keys that, as they are or without one
// leading ".", start with prefix or begin it ("" begins ".") matters:
// the schemas of such properties, required, and whatever else applies
// schemas to the root's values (additionalProperties, patternProperties,
// dependencies, allOf/anyOf/oneOf/not, $ref). The server's CRD
// validation allows at metadata only type object and constraints on
// name and generateName (validateStructuralMetadataInvariants) and
// forbids metadata in junctors; this checks the schema itself, so a CRD
// the server would refuse cannot make it wrong.
func schemaMayReport(props *apiextensions.JSONSchemaProps, prefix string) bool {
	if props == nil {
		return false
	}
	if len(props.AllOf) > 0 || len(props.AnyOf) > 0 || len(props.OneOf) > 0 || props.Not != nil ||
		props.AdditionalProperties != nil || len(props.PatternProperties) > 0 || len(props.Dependencies) > 0 ||
		props.Ref != nil || len(props.Definitions) > 0 {
		return true
	}
	overlaps := func(k string) bool {
		for _, k := range []string{k, strings.TrimPrefix(k, ".")} {
			if strings.HasPrefix(k, prefix) || strings.HasPrefix(prefix, k) {
				return true
			}
		}
		return false
	}
	for _, r := range props.Required {
		// Required "metadata" fails only when metadata is absent,
		// which metadataCoerced checks.
		if overlaps(r) && r != "metadata" {
			return true
		}
	}
	for k, p := range props.Properties {
		if overlaps(k) && !(k == "metadata" && trivialMetadata(p)) {
			return true
		}
	}
	return false
}

// trivialMetadata reports whether the metadata schema p only says what
// coerced metadata always is: an object whose name and generateName are
// strings (controller-gen writes `metadata: {type: object}`).
func trivialMetadata(p apiextensions.JSONSchemaProps) bool {
	for k, sub := range p.Properties {
		if (k != "name" && k != "generateName") || !annotationOnly(sub, "string") {
			return false
		}
	}
	p.Properties = nil
	return annotationOnly(p, "object")
}

// annotationOnly reports whether p validates nothing but its type typ
// (or none): everything else set is documentation.
func annotationOnly(p apiextensions.JSONSchemaProps, typ string) bool {
	if p.Type != "" && p.Type != typ {
		return false
	}
	p.Type, p.Description, p.Title, p.Example, p.ExternalDocs = "", "", "", nil, nil
	return reflect.DeepEqual(p, apiextensions.JSONSchemaProps{})
}

// Explanation tells, for the errors of one create verdict, which of the
// strategy's parts reported them. Each method answers exactly what
// looking the error up in that part's re-run on the verdict's object
// would answer, for any error of the verdict; it runs a part at most
// once, and only when the facts do not settle the question.
type Explanation struct {
	v   *Version
	obj map[string]any
	// noCEL: no error of the verdict is CEL's but the blocked one: the
	// version has no CEL validator, or the strategy did not run it.
	noCEL bool
	// The parts' errors keyed by field.Error.Error(), nil until run.
	schema, embedded, listType map[string]bool
}

// Explain starts the explanation of a create verdict's errors. It runs
// nothing yet; valid objects never ask.
func (v *Version) Explain(vd *Verdict) *Explanation {
	x := &Explanation{v: v, noCEL: !v.facts.cel}
	if vd.Object != nil {
		x.obj = vd.Object.UnstructuredContent()
	}
	for _, e := range vd.Errors {
		x.noCEL = x.noCEL || isBlocked(e)
	}
	return x
}

// blockedDetail is the detail of the error the strategy reports instead
// of running CEL when an earlier part reported a blocking error (type
// NotSupported, Required, TooLong, TooMany or TypeInvalid:
// customresource.hasBlockingErr, unexported).
const blockedDetail = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"

// isBlocked reports whether e is the strategy's blocked-CEL error,
// field.Invalid(nil, nil, blockedDetail). No other part makes an error
// with a nil value at the root: the schema's values are never nil
// (kubeOpenAPIResultToFieldErrors puts "" instead), CEL's are the node's
// type, its value (never nil: the validator skips nil) or
// OmitValueType, and the other parts name a field. So when the verdict
// has it, CEL did not run.
func isBlocked(e *field.Error) bool {
	return e.Type == field.ErrorTypeInvalid && e.Field == "<nil>" && e.BadValue == nil && e.Detail == blockedDetail
}

// ListType reports whether ValidateListSetsAndMaps reports e.
func (x *Explanation) ListType(e *field.Error) bool {
	f := x.v.facts
	if x.obj == nil || !f.listType || (isMetadata(e) && !f.metaListType) {
		return false
	}
	if x.listType == nil {
		x.listType = keys(structurallisttype.ValidateListSetsAndMaps(nil, x.v.structural, x.obj))
	}
	return x.listType[e.Error()]
}

// Embedded reports whether schemaobjectmeta.Validate reports e.
func (x *Explanation) Embedded(e *field.Error) bool {
	f := x.v.facts
	if x.obj == nil || !f.embedded || (isMetadata(e) && !f.metaEmbedded) {
		return false
	}
	if x.embedded == nil {
		x.embedded = keys(validateEmbedded(x.obj, x.v.structural))
	}
	return x.embedded[e.Error()]
}

// Schema reports whether the OpenAPI schema validation reports e.
func (x *Explanation) Schema(e *field.Error) bool {
	if x.obj == nil {
		return false
	}
	f := x.v.facts
	if isMetadata(e) && !f.metaSchema && metadataCoerced(x.obj, f.metaRequired) {
		return false
	}
	if strings.HasPrefix(e.Field, ".") && !f.dotSchema {
		return false
	}
	// Without CEL errors, an error that no other part can have reported
	// is the schema's: every part but the schema is ruled out by its
	// field (type meta, object meta, scale) or by asking it. The blocked
	// error itself is the strategy's: no kube-openapi message reads so.
	if x.noCEL && !isMetadata(e) && e.Field != "kind" && e.Field != "apiVersion" && !f.isScale(e) && !x.ListType(e) && !x.Embedded(e) {
		return !isBlocked(e)
	}
	if x.schema == nil {
		x.schema = keys(apiservervalidation.ValidateCustomResource(nil, x.obj, x.v.validator))
	}
	return x.schema[e.Error()]
}

// isMetadata: the error's field starts with "metadata", which is every
// object meta error's.
func isMetadata(e *field.Error) bool { return strings.HasPrefix(e.Field, "metadata") }

func (f explainFacts) isScale(e *field.Error) bool {
	for _, s := range f.scaleFields {
		if e.Field == s {
			return true
		}
	}
	return false
}

// metadataCoerced reports whether obj's metadata is what
// schemaMayReport assumes: a map whose name and generateName are
// strings when present, and present if required. Coercion (SetObjectMeta
// from an ObjectMeta) and PrepareForCreate (which sets the generation)
// always leave it so; this only guards that assumption.
func metadataCoerced(obj map[string]any, required bool) bool {
	m, ok := obj["metadata"]
	if !ok {
		return !required
	}
	mm, ok := m.(map[string]any)
	if !ok {
		return false
	}
	for _, k := range []string{"name", "generateName"} {
		if v, ok := mm[k]; ok {
			if _, ok := v.(string); !ok {
				return false
			}
		}
	}
	return true
}

func keys(errs field.ErrorList) map[string]bool {
	m := make(map[string]bool, len(errs))
	for _, e := range errs {
		m[e.Error()] = true
	}
	return m
}
