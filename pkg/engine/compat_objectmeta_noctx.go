//go:build k8s1.33 || k8s1.34 || k8s1.35 || k8s1.36

package engine

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateEmbedded is the strategy's check of the embedded resources'
// metadata below the root of obj (schemaobjectmeta.Validate, without a
// context before Kubernetes 1.37).
func validateEmbedded(obj map[string]any, s *structuralschema.Structural) field.ErrorList {
	return schemaobjectmeta.Validate(nil, obj, s, false)
}
