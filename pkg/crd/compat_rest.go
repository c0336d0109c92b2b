//go:build !(k8s1.33 || k8s1.34 || k8s1.35 || k8s1.36)

package crd

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
)

// RESTValidateCreate is the validation of rest.BeforeCreate, which Kubernetes
// 1.37 exports as rest.ValidateCreate.
func RESTValidateCreate(ctx context.Context, obj runtime.Object, strategy rest.RESTCreateStrategy) field.ErrorList {
	return rest.ValidateCreate(ctx, obj, strategy)
}

// RESTValidateUpdate is the validation of rest.BeforeUpdate (rest.ValidateUpdate
// from Kubernetes 1.37).
func RESTValidateUpdate(ctx context.Context, obj, old runtime.Object, strategy rest.RESTUpdateStrategy) field.ErrorList {
	return rest.ValidateUpdate(ctx, obj, old, strategy)
}
