//go:build k8s1.33 || k8s1.34 || k8s1.35 || k8s1.36

package engine

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
)

// restValidateCreate is what rest.BeforeCreate validates before Kubernetes 1.37,
// which keeps it inside BeforeCreate (and returns it as a StatusError,
// losing the field errors): the strategy's Validate, then, only when that
// passes, the common ObjectMeta validation with the minor's path-segment
// check (pathSegment).
func restValidateCreate(ctx context.Context, obj runtime.Object, strategy rest.RESTCreateStrategy) field.ErrorList {
	if errs := strategy.Validate(ctx, obj); len(errs) > 0 {
		return errs
	}
	objectMeta, err := meta.Accessor(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("metadata"), fmt.Errorf("failed to get object metadata: %w", err))}
	}
	return genericvalidation.ValidateObjectMetaAccessor(objectMeta, strategy.NamespaceScoped(), pathSegment, field.NewPath("metadata"))
}

// restValidateUpdate is what rest.BeforeUpdate validates before Kubernetes
// 1.37: validateCommonFields (ObjectMeta, and its update), then the
// strategy's ValidateUpdate.
func restValidateUpdate(ctx context.Context, obj, old runtime.Object, strategy rest.RESTUpdateStrategy) field.ErrorList {
	objectMeta, err := meta.Accessor(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("failed to get new object metadata: %v", err))}
	}
	oldObjectMeta, err := meta.Accessor(old)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("failed to get old object metadata: %v", err))}
	}
	errs := genericvalidation.ValidateObjectMetaAccessor(objectMeta, strategy.NamespaceScoped(), pathSegment, field.NewPath("metadata"))
	errs = append(errs, genericvalidation.ValidateObjectMetaAccessorUpdate(objectMeta, oldObjectMeta, field.NewPath("metadata"))...)
	return append(errs, strategy.ValidateUpdate(ctx, obj, old)...)
}
