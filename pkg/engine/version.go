package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
)

// Version is one CRD version compiled as the server's CRD handler
// compiles it (getOrCreateServingInfoFor): reused for every object. Its
// exported fields are plain data, which no method changes.
type Version struct {
	GVK schema.GroupVersionKind
	// Spec is the version's entry of spec.versions, without its schema.
	Spec       apiextensionsv1.CustomResourceDefinitionVersion
	Namespaced bool

	// crd is what the version needs of its CRD beyond its compiled
	// schema: the spec without the versions' schemas, and the name.
	crd *apiextensionsv1.CustomResourceDefinition
	// structural is the version's schema with defaults pruned, or nil
	// when the version has none.
	structural *structuralschema.Structural

	strategy  rest.RESTCreateStrategy
	validator apiservervalidation.SchemaValidator
	// status is the status subresource, nil without one.
	status *statusSubresource
	// facts let Explain skip re-runs that cannot change its answers.
	facts explainFacts

	celOnce   sync.Once
	celCached *cel.Validator

	convOnce sync.Once
	conv     runtime.ObjectConvertor
	convErr  error

	// rules caches RuleErrors' one-rule validators (ruleKey -> ruleEntry).
	rules sync.Map
}

// Compile compiles version name of crd (a decoded CRD, DecodeCRD's) as
// the server's CRD handler does, whether the version is served or not:
// storage decodes objects stored in a version that is no longer served.
// The Version keeps crd's spec without its schemas (the rest is shared),
// so crd must not change afterwards. An error says why the server could
// not serve the version.
func Compile(crd *apiextensionsv1.CustomResourceDefinition, name string) (*Version, error) {
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == name {
			return compile(crd, name)
		}
	}
	return nil, fmt.Errorf("CRD %s has no version %q", crd.Name, name)
}

func compile(crd *apiextensionsv1.CustomResourceDefinition, name string) (v *Version, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("the server could not serve this version: %v", r)
		}
	}()
	v = &Version{crd: specOnly(crd), GVK: schema.GroupVersionKind{Group: crd.Spec.Group, Version: name, Kind: crd.Spec.Names.Kind},
		Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped}
	for _, s := range v.crd.Spec.Versions {
		if s.Name == name {
			v.Spec = s
		}
	}
	val, err := apihelpers.GetSchemaForVersion(crd, name)
	if err != nil {
		return nil, err
	}
	var props *apiextensions.JSONSchemaProps
	if val != nil {
		in := &apiextensions.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, in, nil); err != nil {
			return nil, err
		}
		props = in.OpenAPIV3Schema
		s, err := structuralschema.NewStructural(props)
		if err != nil {
			return nil, fmt.Errorf("the schema is not structural: %w", err)
		}
		s = s.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(s); err != nil {
			return nil, err
		}
		v.structural = s
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		return nil, err
	}
	v.validator = validator
	subresources, err := apihelpers.GetSubresourcesForVersion(crd, name)
	if err != nil {
		return nil, err
	}
	var (
		status *apiextensions.CustomResourceSubresourceStatus
		scale  *apiextensions.CustomResourceSubresourceScale
	)
	if subresources != nil && subresources.Status != nil {
		status = &apiextensions.CustomResourceSubresourceStatus{}
	}
	if subresources != nil && subresources.Scale != nil {
		scale = &apiextensions.CustomResourceSubresourceScale{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(subresources.Scale, scale, nil); err != nil {
			return nil, err
		}
	}
	v.facts = newExplainFacts(v.structural, props, scale)
	// The server also builds a validator for the status schema, used only
	// by updates of the status subresource (UpdateStatus), which most runs
	// never make: it is built on first use, from the status schema kept
	// here, which saves converting every status schema again. It cannot
	// fail where the whole schema's conversion above succeeded, since
	// status is part of it.
	v.strategy = customresource.NewStrategy(typer{}, v.Namespaced, v.GVK, validator, nil, v.structural, status, scale, v.Spec.SelectableFields)
	if status != nil {
		v.status = &statusSubresource{spec: status, scale: scale}
		if props != nil {
			if s, ok := props.Properties["status"]; ok {
				v.status.schema = &s
			}
		}
	}
	return v, nil
}

// statusSubresource is what the status subresource's strategy is built
// from, on first use (UpdateStatus).
type statusSubresource struct {
	spec  *apiextensions.CustomResourceSubresourceStatus
	scale *apiextensions.CustomResourceSubresourceScale
	// schema is the status property's schema, nil without one; let go
	// once the strategy is built.
	schema *apiextensions.JSONSchemaProps

	once     sync.Once
	strategy rest.RESTUpdateStrategy
	err      error
}

// statusStrategy is the strategy of the version's status subresource, as
// the CRD handler builds it: the custom resource strategy with a
// validator for the status schema, wrapped by NewStatusStrategy.
func (v *Version) statusStrategy() (rest.RESTUpdateStrategy, error) {
	st := v.status
	st.once.Do(func() {
		var statusValidator apiservervalidation.SchemaValidator
		if st.schema != nil {
			statusValidator, _, st.err = apiservervalidation.NewSchemaValidator(st.schema)
			if st.err != nil {
				return
			}
		}
		st.strategy = customresource.NewStatusStrategy(customresource.NewStrategy(typer{}, v.Namespaced, v.GVK, v.validator, statusValidator, v.structural, st.spec, st.scale, v.Spec.SelectableFields))
		st.schema = nil
	})
	return st.strategy, st.err
}

// WithoutSchemas is a copy of crd whose versions have no schema; the rest
// is shared.
func WithoutSchemas(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	own := *crd
	own.Spec.Versions = make([]apiextensionsv1.CustomResourceDefinitionVersion, len(crd.Spec.Versions))
	for i := range crd.Spec.Versions {
		own.Spec.Versions[i] = crd.Spec.Versions[i]
		own.Spec.Versions[i].Schema = nil
	}
	return &own
}

// specOnly is crd's name and spec without the versions' schemas: all a
// compiled version reads of it, without holding what else the CRD's
// decoded object holds (annotations, status).
func specOnly(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	own := WithoutSchemas(crd)
	own.ObjectMeta = metav1.ObjectMeta{Name: crd.Name}
	own.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	return own
}

// Resource is the version's resource, as request paths name it: the
// CRD's spec.names.plural.
func (v *Version) Resource() string { return v.crd.Spec.Names.Plural }

// HasStatus says whether the version has the status subresource.
func (v *Version) HasStatus() bool { return v.status != nil }

// typer answers the strategy's kind questions for unstructured objects.
type typer struct{}

func (typer) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	return []schema.GroupVersionKind{obj.GetObjectKind().GroupVersionKind()}, false, nil
}
func (typer) Recognizes(schema.GroupVersionKind) bool { return true }

// Verdict is the server's answer to a create of one custom resource.
type Verdict struct {
	// DecodeError is a 400: the body cannot be handled as the kind.
	DecodeError error
	// Unknown are the paths the server prunes (unknown field "<path>"):
	// warnings under fieldValidation=Warn, a 400 under Strict.
	Unknown []string
	// Errors is the validation's 422 verdict.
	Errors field.ErrorList
	// Warnings are the strategy's warnings (finalizer names).
	Warnings []string
	// Object is the object as the server would store it: pruned,
	// defaulted, with status dropped when the status subresource exists.
	// Nil on a decode error.
	Object *unstructured.Unstructured
	// Panic is set when the server's code panicked (a 500).
	Panic string
}

// Create runs a create of obj (a decoded JSON object, which Create takes
// over) through the server's steps, in its order: prune and coerce
// (schemaCoercingDecoder), default, rest.BeforeCreate (namespace,
// PrepareForCreate, strategy validation, ObjectMeta), warnings.
// namespace is the request's namespace: the object's, or kubectl's default.
func (v *Version) Create(obj map[string]any, namespace string) (vd *Verdict) {
	vd = &Verdict{}
	defer func() {
		if r := recover(); r != nil {
			vd.Panic = fmt.Sprint(r)
		}
	}()
	u := &unstructured.Unstructured{Object: obj}
	unknown, err := v.coerce(u)
	if err != nil {
		vd.DecodeError = err
		return vd
	}
	vd.Unknown = unknown
	if v.structural != nil {
		structuraldefaulting.Default(u.Object, v.structural)
	}
	if !v.Namespaced {
		namespace = ""
	}
	ctx := genericapirequest.WithNamespace(context.Background(), namespace)
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForScope(namespace, v.Namespaced), u); err != nil {
		vd.DecodeError = err
		return vd
	}
	if u.GetName() == "" && u.GetGenerateName() != "" {
		u.SetName(GenerateName(u.GetGenerateName()))
	}
	v.strategy.PrepareForCreate(ctx, u)
	vd.Errors = restValidateCreate(ctx, u, v.strategy)
	if len(vd.Errors) == 0 {
		// rest.BeforeCreate returns the 422 before adding warnings.
		vd.Warnings = v.strategy.WarningsOnCreate(ctx, u)
	}
	vd.Object = u
	return vd
}

// Prune turns obj (a decoded JSON object) into what the server's decoder
// makes of it before admission: pruned, metadata coerced, and with
// defaults applied when defaults is set. It returns the pruned paths in
// the server's notation. Status is kept: dropping it on create is the
// strategy's business, not pruning's.
func (v *Version) Prune(obj map[string]any, defaults bool) (unknown []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the server's pruning panicked: %v", r)
		}
	}()
	u := &unstructured.Unstructured{Object: obj}
	unknown, err = v.coerce(u)
	if err != nil {
		return nil, err
	}
	if defaults && v.structural != nil {
		structuraldefaulting.Default(u.Object, v.structural)
	}
	return unknown, nil
}

// coerce is the server's unstructuredSchemaCoercer.apply for a request
// with field validation (unknown paths tracked, malformed metadata an
// error rather than dropped).
func (v *Version) coerce(u *unstructured.Unstructured) ([]string, error) {
	return v.coerceWith(u, false)
}

// coerceWith is coerce; dropInvalid drops malformed metadata instead of
// failing, as the storage's decoder does for objects written long ago.
func (v *Version) coerceWith(u *unstructured.Unstructured, dropInvalid bool) ([]string, error) {
	kind, foundKind, err := unstructured.NestedString(u.Object, "kind")
	if err != nil {
		return nil, err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(u.Object, "apiVersion")
	if err != nil {
		return nil, err
	}
	objectMeta, foundObjectMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true, DropMalformedFields: dropInvalid})
	if err != nil {
		return nil, err
	}
	if v.structural != nil {
		unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, v.structural)
	}
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, v.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true, DropInvalidFields: dropInvalid})
	if ferr != nil {
		return nil, ferr
	}
	unknown = append(unknown, paths...)
	if foundKind {
		u.SetKind(kind)
	}
	if foundAPIVersion {
		u.SetAPIVersion(apiVersion)
	}
	if foundObjectMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
			return nil, err
		}
	}
	return unknown, nil
}

// celValidator returns the server's CEL validator for this version's
// schema, compiled on first use (for CELErrors).
func (v *Version) celValidator() *cel.Validator {
	v.celOnce.Do(func() {
		if v.structural != nil {
			v.celCached = cel.NewValidator(v.structural, true, celconfig.PerCallLimit)
		}
	})
	return v.celCached
}

// GenerateName is the name the registry gives an object with only
// generateName (Store.create, before BeforeCreate): names.SimpleNameGenerator
// truncates the base to 58 characters and appends 5 random characters of
// its alphabet; a fixed suffix from that alphabet keeps verdicts
// deterministic.
func GenerateName(base string) string {
	const maxBase = 63 - 5
	if len(base) > maxBase {
		base = base[:maxBase]
	}
	return base + "crdlt"
}

// FieldSet is what the server's field selectors match for obj: the
// strategy's GetAttrs (metadata.name, metadata.namespace for namespaced
// kinds, and each selectable field, "" when absent).
func (v *Version) FieldSet(obj runtime.Object) (fields.Set, error) {
	ga, ok := v.strategy.(interface {
		GetAttrs(runtime.Object) (labels.Set, fields.Set, error)
	})
	if !ok {
		return nil, fmt.Errorf("the custom resource strategy has no GetAttrs")
	}
	_, set, err := ga.GetAttrs(obj)
	return set, err
}

var converterFactory = sync.OnceValues(func() (*conversion.CRConverterFactory, error) {
	return conversion.NewCRConverterFactory(nil, nil)
})

// ConvertFieldLabel is the server's check of a field selector's label for
// this version (crConverter.ConvertFieldLabel): "field label not
// supported: <label>" for anything that is not selectable.
func (v *Version) ConvertFieldLabel(label, value string) (string, string, error) {
	v.convOnce.Do(func() {
		f, err := converterFactory()
		if err != nil {
			v.convErr = err
			return
		}
		// Field labels do not depend on how versions convert; a webhook
		// strategy would need a client this offline tool does not have.
		c := v.crd.DeepCopy()
		c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
		_, v.conv, v.convErr = f.NewConverter(c)
	})
	if v.convErr != nil {
		return "", "", v.convErr
	}
	return v.conv.ConvertFieldLabel(v.GVK, label, value)
}

// Update runs an update from oldObj to newObj (decoded JSON objects, which
// Update takes over) through the server's steps: both are pruned,
// coerced and defaulted (old as read from storage, new as decoded from
// the request), the new object inherits the old one's system metadata as
// a patch or apply would, then PrepareForUpdate (status kept from the old
// object with a status subresource) and rest.ValidateUpdate (ObjectMeta,
// then the strategy's ValidateUpdate),
// which ratchets unchanged invalid values and runs CEL transition rules
// (oldSelf) with the runtime budget.
func (v *Version) Update(oldObj, newObj map[string]any, namespace string) (vd *Verdict) {
	return v.update(oldObj, newObj, namespace, true, false)
}

// UpdateStatus runs an update of the status subresource (a PUT of
// .../status) from oldObj to newObj as Update does, with the status
// subresource's strategy: PrepareForUpdate keeps everything of the old
// object but the new one's status, and ValidateUpdate validates the
// status against the status schema alone, ratcheting unchanged invalid
// values, then the list types and CEL rules. A version without the
// status subresource has no such endpoint: the verdict's DecodeError
// says so (the server answers 404 Not Found).
func (v *Version) UpdateStatus(oldObj, newObj map[string]any, namespace string) *Verdict {
	return v.update(oldObj, newObj, namespace, true, true)
}

// UpdateFromStorage is Update with oldObj as storage reads it (Read in the
// version it is stored in, then Convert to this one): it is not defaulted
// again in this version, as the server's storage codec defaults only in
// the stored version, before converting (versioning codec Decode).
func (v *Version) UpdateFromStorage(oldObj, newObj map[string]any, namespace string) *Verdict {
	return v.update(oldObj, newObj, namespace, false, false)
}

// UpdateStatusFromStorage is UpdateStatus with oldObj as storage reads
// it, not defaulted again in this version (UpdateFromStorage).
func (v *Version) UpdateStatusFromStorage(oldObj, newObj map[string]any, namespace string) *Verdict {
	return v.update(oldObj, newObj, namespace, false, true)
}

// ErrNoStatus is UpdateStatus's DecodeError for a version without the
// status subresource (the server's 404).
var ErrNoStatus = fmt.Errorf("the server could not find the requested resource")

func (v *Version) update(oldObj, newObj map[string]any, namespace string, defaultOld, status bool) (vd *Verdict) {
	vd = &Verdict{}
	defer func() {
		if r := recover(); r != nil {
			vd.Panic = fmt.Sprint(r)
		}
	}()
	if status && v.status == nil {
		vd.DecodeError = ErrNoStatus
		return vd
	}
	us := &unstructured.Unstructured{Object: newObj}
	old := &unstructured.Unstructured{Object: oldObj}
	if _, err := v.coerce(old); err != nil {
		vd.DecodeError = fmt.Errorf("old object: %w", err)
		return vd
	}
	unknown, err := v.coerce(us)
	if err != nil {
		vd.DecodeError = err
		return vd
	}
	vd.Unknown = unknown
	if v.structural != nil {
		if defaultOld {
			structuraldefaulting.Default(old.Object, v.structural)
		}
		structuraldefaulting.Default(us.Object, v.structural)
	}
	if !v.Namespaced {
		namespace = ""
	}
	for _, u := range []*unstructured.Unstructured{old, us} {
		u.SetNamespace(namespace)
	}
	// What storage holds for the old object, and what a patch copies
	// into the new one.
	if old.GetResourceVersion() == "" {
		old.SetResourceVersion("1")
	}
	if old.GetUID() == "" {
		old.SetUID("00000000-0000-0000-0000-000000000000")
	}
	if old.GetGeneration() == 0 {
		old.SetGeneration(1)
	}
	us.SetResourceVersion(old.GetResourceVersion())
	us.SetUID(old.GetUID())
	us.SetCreationTimestamp(old.GetCreationTimestamp())
	us.SetGeneration(old.GetGeneration())
	ctx := genericapirequest.WithNamespace(context.Background(), namespace)
	strategy, ok := v.strategy.(rest.RESTUpdateStrategy)
	if !ok {
		vd.DecodeError = fmt.Errorf("the custom resource strategy cannot update")
		return vd
	}
	if status {
		if strategy, err = v.statusStrategy(); err != nil {
			vd.DecodeError = err
			return vd
		}
	}
	// A CEL rule that fails on a value the update leaves unchanged
	// ratchets: the server sends its error as a warning
	// (warning.AddWarning in the CEL validator), on the request's
	// recorder, accepted or not.
	rec := &warnings{}
	ctx = warning.WithWarningRecorder(ctx, rec)
	strategy.PrepareForUpdate(ctx, us, old)
	// rest.ValidateUpdate: the common ObjectMeta checks (as on create, and
	// the update's immutable metadata), then the strategy's. The
	// strategy's warnings come only with an accepted update, as
	// rest.BeforeUpdate adds them, after those of validation.
	vd.Errors = restValidateUpdate(ctx, us, old, strategy)
	if len(vd.Errors) == 0 {
		for _, w := range strategy.WarningsOnUpdate(ctx, us, old) {
			rec.AddWarning("", w)
		}
	}
	vd.Warnings = rec.msgs
	vd.Object = us
	return vd
}

// CELErrors runs only the CEL validation of an update (new against old,
// both as stored), keyed by field.Error.Error(): it tells which of an
// update verdict's errors are CEL rules' (transition rules among them).
func (v *Version) CELErrors(newObj, oldObj map[string]any) map[string]bool {
	out := map[string]bool{}
	c := v.celValidator()
	if c == nil {
		return out
	}
	errs, _ := c.Validate(context.Background(), nil, v.structural, newObj, oldObj, celconfig.RuntimeCELCostBudget)
	for _, e := range errs {
		out[e.Error()] = true
	}
	return out
}

// FieldType is the schema type of a selectable field's JSONPath in this
// version, as the server resolves it (cel.ValidFieldPath without array
// notation): "" when the path resolves to nothing. Format and enum (the
// values the schema allows, as JSON values; nil when it does not say)
// qualify it.
func (v *Version) FieldType(jsonPath string) (typ, format string, enum []any) {
	if v.structural == nil {
		return "", "", nil
	}
	_, s, err := cel.ValidFieldPath(jsonPath, v.structural, cel.WithFieldPathAllowArrayNotation(false))
	if err != nil || s == nil {
		return "", "", nil
	}
	if s.ValueValidation == nil {
		return s.Type, "", nil
	}
	for _, e := range s.ValueValidation.Enum {
		enum = append(enum, e.Object)
	}
	return s.Type, s.ValueValidation.Format, enum
}

// Estimated heap per node of a compiled schema (the structural schema,
// the OpenAPI validator's copy, the CEL declarations), and per CEL rule:
// measured on the corpus's CRDs, to within a factor of two, which is all
// a budget needs.
const (
	bytesPerSchemaNode = 1500
	bytesPerCELRule    = 24 << 10
)

// Size is the heap the compiled version holds, roughly: for a cache of
// compiled versions to keep within a budget.
func (v *Version) Size() int64 { return estimate(v.structural) }

func estimate(s *structuralschema.Structural) int64 {
	if s == nil {
		return bytesPerSchemaNode
	}
	n := int64(bytesPerSchemaNode) + int64(len(s.XValidations))*bytesPerCELRule
	if s.Items != nil {
		n += estimate(s.Items)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
		n += estimate(s.AdditionalProperties.Structural)
	}
	for _, p := range s.Properties {
		n += estimate(&p)
	}
	return n
}

// Structural is the version's structural schema with defaults pruned, as
// the server's handler holds it (nil without a schema): for differential
// tests, which run the server's own packages on it to check the engine's
// answers. Code outside the engine never calls it (TestEngineBoundary):
// the tool talks to the engine in plain data.
func (v *Version) Structural() *structuralschema.Structural { return v.structural }

// warnings records a request's warnings as the server's recorder does
// (filters.WithWarningRecorder): in order, each text once.
type warnings struct{ msgs []string }

func (w *warnings) AddWarning(agent, text string) {
	if text == "" || slices.Contains(w.msgs, text) {
		return
	}
	w.msgs = append(w.msgs, text)
}
