//go:build k8s1.33 || k8s1.34 || k8s1.35 || k8s1.36

package crd

import (
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// EmbeddedMeta is the server's validation of embedded resources' metadata
// (schemaobjectmeta.Validate, without a context before Kubernetes 1.37).
func EmbeddedMeta(obj any, s *schema.Structural) field.ErrorList {
	return schemaobjectmeta.Validate(nil, obj, s, false)
}
