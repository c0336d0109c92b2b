package lint

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	"k8s.io/apimachinery/pkg/runtime"
	serializerjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
)

// scheme knows apiextensions.k8s.io in all its versions, with defaulting
// and conversion functions, exactly as the API server registers it.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	apiextensionsinstall.Install(s)
	return s
}()

// strictDecoder is the serializer the server uses for a request with
// fieldValidation=Strict or Warn: unknown and duplicate fields come back as
// a strict decoding error next to a fully decoded object.
var strictDecoder = serializerjson.NewSerializerWithOptions(serializerjson.DefaultMetaFactory, scheme, scheme,
	serializerjson.SerializerOptions{Strict: true})

// CRDVerdict is what the API server says to a create of one CRD.
type CRDVerdict struct {
	// V1 is the decoded and defaulted object (nil when decoding failed).
	V1 *apiextensionsv1.CustomResourceDefinition
	// Internal is the converted object the validation ran on.
	Internal *apiextensions.CustomResourceDefinition
	// DecodeError is a non-strict decoding failure: a 400 for the request.
	DecodeError error
	// Unknown holds the strict decoder's messages (unknown field "..."):
	// warnings under fieldValidation=Warn, a 400 under Strict.
	Unknown []string
	// Errors is the validation's verdict in the server's internal paths.
	Errors field.ErrorList
	// Warnings are the strategy's warnings on create.
	Warnings []string
	// Panic is set when the server's validation code panicked: the API
	// server recovers and answers 500 Internal Server Error, so the create
	// fails.
	Panic string
}

// Rejected reports whether the server refuses the create under
// fieldValidation=Warn (strict=false) or Strict.
func (v *CRDVerdict) Rejected(strict bool) bool {
	return v.DecodeError != nil || len(v.Errors) > 0 || v.Panic != "" || (strict && len(v.Unknown) > 0)
}

// DecodeCRD decodes and defaults a v1 CRD as the server stores it; unknown
// fields are dropped, as under fieldValidation=Warn.
func DecodeCRD(js []byte) (*apiextensionsv1.CustomResourceDefinition, error) {
	crd, _, err := decodeCRD(js)
	return crd, err
}

// decodeCRD is the server's strict decoding and v1 defaulting of a CRD:
// the object, the strict decoder's messages (unknown and duplicate
// fields) and a decoding error that fails the request.
func decodeCRD(js []byte) (*apiextensionsv1.CustomResourceDefinition, []string, error) {
	var unknown []string
	obj, _, err := strictDecoder.Decode(js, nil, &apiextensionsv1.CustomResourceDefinition{})
	if err != nil {
		if !runtime.IsStrictDecodingError(err) {
			return nil, nil, err
		}
		if se, ok := runtime.AsStrictDecodingError(err); ok {
			for _, e := range se.Errors() {
				unknown = append(unknown, e.Error())
			}
		}
	}
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return nil, nil, fmt.Errorf("decoded %T, not a CustomResourceDefinition", obj)
	}
	scheme.Default(crd)
	return crd, unknown, nil
}

// ValidateCRD runs a CRD through the server's create path: strict decode
// of the apiextensions.k8s.io/v1 JSON, v1 defaulting, conversion to the
// internal type, namespace reconciliation, PrepareForCreate, the CRD
// strategy's validation (ValidateCreate, as rest.BeforeCreate calls it) and
// its warnings.
func ValidateCRD(js []byte) *CRDVerdict {
	crd, unknown, err := decodeCRD(js)
	if err != nil {
		return &CRDVerdict{DecodeError: err}
	}
	return validateDecoded(crd, unknown)
}

// validateDecoded is ValidateCRD after decoding: crd is the decoded and
// defaulted object (only read) and unknown the strict decoder's messages.
func validateDecoded(crd *apiextensionsv1.CustomResourceDefinition, unknown []string) *CRDVerdict {
	v := &CRDVerdict{Unknown: unknown, V1: crd}
	// The conversion shares slices and maps with crd rather than copying
	// them; that is safe because nothing below writes into them:
	// validation only reads, and PrepareForCreate replaces whole fields of
	// in (status, generation, a generated name). TestValidateLeavesV1
	// holds this over the corpus.
	in := &apiextensions.CustomResourceDefinition{}
	if err := scheme.Convert(crd, in, nil); err != nil {
		v.DecodeError = err
		return v
	}
	v.Internal = in
	// in is this verdict's own copy: validating it in place only sets what
	// PrepareForCreate sets (status, generation, a generated name), which
	// nothing reads afterwards, so it needs no second copy.
	v.Errors, v.Warnings, v.Panic = validateInternal(in)
	if v.Panic != "" {
		// The server's selectableFields check dereferences the structural
		// schema even when building it failed (apiextensions-apiserver
		// v0.37.2, ValidateCustomResourceSelectableFields). Validating
		// without selectableFields tells the user what else is wrong.
		retry := in.DeepCopy()
		retry.Spec.SelectableFields = nil
		for i := range retry.Spec.Versions {
			retry.Spec.Versions[i].SelectableFields = nil
		}
		v.Errors, v.Warnings, _ = validateInternal(retry)
	}
	return v
}

// validateInternal runs rest.BeforeCreate's steps on the internal object.
// A panic in the server's code is returned as text: the API server
// recovers from it and answers 500.
func validateInternal(in *apiextensions.CustomResourceDefinition) (errs field.ErrorList, warnings []string, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			errs, warnings, panicked = nil, nil, fmt.Sprint(r)
		}
	}()
	if in.Name == "" && in.GenerateName != "" {
		in.Name = crd.GenerateName(in.GenerateName)
	}
	// kubectl sends no namespace for a cluster-scoped kind; the server
	// clears one set in the object.
	in.Namespace = ""
	ctx := genericapirequest.WithNamespace(context.Background(), "")
	strategy := customresourcedefinition.NewStrategy(scheme)
	strategy.PrepareForCreate(ctx, in)
	errs = rest.ValidateCreate(ctx, in, strategy)
	if len(errs) == 0 {
		warnings = strategy.WarningsOnCreate(ctx, in)
	}
	return errs, warnings, ""
}

// decodeField extracts the JSON field path from a decoding error such as
// "json: cannot unmarshal string into Go struct field
// CustomResourceDefinitionVersion.spec.versions.served of type bool".
func decodeField(err error) string {
	msg := err.Error()
	const marker = "Go struct field "
	i := strings.Index(msg, marker)
	if i < 0 {
		return ""
	}
	rest := msg[i+len(marker):]
	if j := strings.Index(rest, " of type"); j >= 0 {
		rest = rest[:j]
	}
	if j := strings.IndexByte(rest, '.'); j >= 0 {
		return rest[j+1:]
	}
	return ""
}
