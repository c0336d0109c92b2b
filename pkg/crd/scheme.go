package crd

import (
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	"k8s.io/apimachinery/pkg/runtime"
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
