//go:build !(k8s1.33 || k8s1.34 || k8s1.35 || k8s1.36)

package engine

// This file holds the calls whose API differs between the Kubernetes
// minors the engine is built for: rest.ValidateCreate and
// rest.ValidateUpdate exist from apiserver v0.37 (1.37); older minors run
// the same steps inside rest.BeforeCreate and rest.BeforeUpdate. A minor
// with another API gets a build-tagged copy of this file.

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
)

// restValidateCreate is the validation rest.BeforeCreate runs on a
// create: the strategy's, then the common ObjectMeta checks.
func restValidateCreate(ctx context.Context, obj runtime.Object, strategy rest.RESTCreateStrategy) field.ErrorList {
	return rest.ValidateCreate(ctx, obj, strategy)
}

// restValidateUpdate is the validation rest.BeforeUpdate runs on an
// update: the common ObjectMeta checks (the update's immutable metadata
// among them), then the strategy's.
func restValidateUpdate(ctx context.Context, obj, old runtime.Object, strategy rest.RESTUpdateStrategy) field.ErrorList {
	return rest.ValidateUpdate(ctx, obj, old, strategy)
}
