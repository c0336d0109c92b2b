//go:build !(k8s1.33 || k8s1.34 || k8s1.35 || k8s1.36)

package engine

// schemaobjectmeta.Validate's signature differs between the Kubernetes
// minors the engine is built for: it takes a context from
// apiextensions-apiserver v0.37 (1.37), none in 1.33-1.36. A minor with another API gets
// a build-tagged copy of this file.

import (
	"context"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateEmbedded is the strategy's check of the embedded resources'
// metadata below the root of obj (isResourceRoot false).
func validateEmbedded(obj map[string]any, s *structuralschema.Structural) field.ErrorList {
	return schemaobjectmeta.Validate(context.Background(), nil, obj, s, false)
}
