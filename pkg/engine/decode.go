package engine

import (
	"encoding/json"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	serializerjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
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

// DecodeCRD decodes a CRD's JSON as the server decodes a create request
// for apiextensions.k8s.io/v1: strictly, then defaulted. unknown holds the
// strict decoder's messages (unknown field "...", duplicate field "..."),
// which are not fatal: warnings under fieldValidation=Warn, a 400 under
// Strict. err is a decoding failure that fails the request (400); crd is
// nil then.
func DecodeCRD(js []byte) (crd *apiextensionsv1.CustomResourceDefinition, unknown []string, err error) {
	obj, _, err := strictDecoder.Decode(js, nil, &apiextensionsv1.CustomResourceDefinition{})
	if err != nil {
		se, ok := runtime.AsStrictDecodingError(err)
		if !ok {
			return nil, nil, err
		}
		for _, e := range se.Errors() {
			unknown = append(unknown, e.Error())
		}
	}
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return nil, unknown, fmt.Errorf("decoded %T, not a CustomResourceDefinition", obj)
	}
	scheme.Default(crd)
	return crd, unknown, nil
}

// CRDFromV1beta1 is an apiextensions.k8s.io/v1beta1 CRD's JSON as a
// cluster serves it today: a CRD created through v1beta1 (removed in
// Kubernetes 1.22) is still stored, and the server reads it with
// v1beta1's defaults (spec.preserveUnknownFields true unless set, the
// top-level version, validation and subresources moved into each
// version) and converts it to v1 with its own conversion functions. The
// decoding is not strict: the cluster accepted the object long ago.
func CRDFromV1beta1(js []byte) ([]byte, error) {
	old := &apiextensionsv1beta1.CustomResourceDefinition{}
	if err := runtime.DecodeInto(lenientCodecs.UniversalDeserializer(), js, old); err != nil {
		return nil, err
	}
	scheme.Default(old)
	internal := &apiextensions.CustomResourceDefinition{}
	if err := scheme.Convert(old, internal, nil); err != nil {
		return nil, err
	}
	out := &apiextensionsv1.CustomResourceDefinition{}
	if err := scheme.Convert(internal, out, nil); err != nil {
		return nil, err
	}
	out.APIVersion, out.Kind = apiextensionsv1.SchemeGroupVersion.String(), "CustomResourceDefinition"
	return json.Marshal(out)
}

// lenientCodecs decode what a cluster stored: unknown fields dropped,
// defaults applied by the caller.
var lenientCodecs = serializer.NewCodecFactory(scheme)
