package engine

import (
	"context"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
)

// ServerValidateCreate is the validation rest.BeforeCreate runs, as the
// minor this binary is built for runs it: the differential tests' oracles
// (pkg/lint) call the server's code through it on every minor.
func ServerValidateCreate(ctx context.Context, obj runtime.Object, strategy rest.RESTCreateStrategy) field.ErrorList {
	return restValidateCreate(ctx, obj, strategy)
}

// ServerValidateEmbedded is schemaobjectmeta.Validate below the root, as
// the minor this binary is built for calls it (for the same oracles).
func ServerValidateEmbedded(obj map[string]any, s *structuralschema.Structural) field.ErrorList {
	return validateEmbedded(obj, s)
}
