package crd

import (
	"context"
	"fmt"
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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/count"
)

// Version is one served CRD version compiled as the server's CRD handler
// compiles it (getOrCreateServingInfoFor): reused for every object.
type Version struct {
	// CRD is the version's CRD without the versions' decoded schemas
	// (those from the catalogue; compile's own result keeps them):
	// Structural and the compiled validators are the schema.
	CRD  *apiextensionsv1.CustomResourceDefinition
	GVK  schema.GroupVersionKind
	Spec apiextensionsv1.CustomResourceDefinitionVersion
	// Structural is the version's schema with defaults pruned, or nil when
	// the version has none.
	Structural *structuralschema.Structural
	Namespaced bool

	strategy  rest.RESTCreateStrategy
	validator apiservervalidation.SchemaValidator
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

func compile(crd *apiextensionsv1.CustomResourceDefinition, name string) (v *Version, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("the server could not serve this version: %v", r)
		}
	}()
	count.VersionCompiles.Add(1)
	v = &Version{CRD: crd, GVK: schema.GroupVersionKind{Group: crd.Spec.Group, Version: name, Kind: crd.Spec.Names.Kind},
		Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped}
	for _, s := range crd.Spec.Versions {
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
		v.Structural = s
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
	v.facts = newExplainFacts(v.Structural, props, scale)
	// The server also builds a validator for the status schema, used only
	// by updates of the status subresource, which no command makes: the
	// strategy gets none, which saves converting every status schema
	// again. It cannot fail where the whole schema's conversion above
	// succeeded, since status is part of it.
	v.strategy = customresource.NewStrategy(typer{}, v.Namespaced, v.GVK, validator, nil, v.Structural, status, scale, v.Spec.SelectableFields)
	return v, nil
}

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
	if v.Structural != nil {
		structuraldefaulting.Default(u.Object, v.Structural)
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
	vd.Errors = RESTValidateCreate(ctx, u, v.strategy)
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
	if defaults && v.Structural != nil {
		structuraldefaulting.Default(u.Object, v.Structural)
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
	if v.Structural != nil {
		unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, v.Structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, v.Structural)
	}
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, v.Structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true, DropInvalidFields: dropInvalid})
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

// CELValidator returns the server's CEL validator for this version's
// schema, compiled on first use (for transition rules and explanations).
func (v *Version) CELValidator() *cel.Validator {
	v.celOnce.Do(func() {
		if v.Structural != nil {
			v.celCached = cel.NewValidator(v.Structural, true, celconfig.PerCallLimit)
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
		c := v.CRD.DeepCopy()
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
	return v.update(oldObj, newObj, namespace, true)
}

// UpdateFromStorage is Update with oldObj as storage reads it (Read in the
// version it is stored in, then Convert to this one): it is not defaulted
// again in this version, as the server's storage codec defaults only in
// the stored version, before converting (versioning codec Decode).
func (v *Version) UpdateFromStorage(oldObj, newObj map[string]any, namespace string) *Verdict {
	return v.update(oldObj, newObj, namespace, false)
}

func (v *Version) update(oldObj, newObj map[string]any, namespace string, defaultOld bool) (vd *Verdict) {
	vd = &Verdict{}
	defer func() {
		if r := recover(); r != nil {
			vd.Panic = fmt.Sprint(r)
		}
	}()
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
	if v.Structural != nil {
		if defaultOld {
			structuraldefaulting.Default(old.Object, v.Structural)
		}
		structuraldefaulting.Default(us.Object, v.Structural)
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
	strategy.PrepareForUpdate(ctx, us, old)
	// rest.ValidateUpdate: the common ObjectMeta checks (as on create, and
	// the update's immutable metadata), then the strategy's. Warnings come
	// only with an accepted update, as rest.BeforeUpdate adds them.
	vd.Errors = RESTValidateUpdate(ctx, us, old, strategy)
	if len(vd.Errors) == 0 {
		vd.Warnings = strategy.WarningsOnUpdate(ctx, us, old)
	}
	vd.Object = us
	return vd
}

// CELErrors runs only the CEL validation of an update (new against old,
// both as stored), keyed by field.Error.Error(): it tells which of an
// update verdict's errors are CEL rules' (transition rules among them).
func (v *Version) CELErrors(newObj, oldObj map[string]any) map[string]bool {
	out := map[string]bool{}
	c := v.CELValidator()
	if c == nil {
		return out
	}
	errs, _ := c.Validate(context.Background(), nil, v.Structural, newObj, oldObj, celconfig.RuntimeCELCostBudget)
	for _, e := range errs {
		out[e.Error()] = true
	}
	return out
}

// DefaultNamespace is where kubectl sends a namespaced object that names
// none (with no namespace set in the kubeconfig context).
const DefaultNamespace = "default"

// FieldType is the schema type of a selectable field's JSONPath in this
// version, as the server resolves it (cel.ValidFieldPath without array
// notation): "" when the path resolves to nothing. Format and enum (the
// values the schema allows, as JSON values; nil when it does not say)
// qualify it.
func (v *Version) FieldType(jsonPath string) (typ, format string, enum []any) {
	if v.Structural == nil {
		return "", "", nil
	}
	_, s, err := cel.ValidFieldPath(jsonPath, v.Structural, cel.WithFieldPathAllowArrayNotation(false))
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
