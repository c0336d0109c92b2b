package engine

import (
	"context"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// CRDVerdict is what the API server says to a create (or update) of one
// CRD. Errors name fields in the server's internal paths (the caller
// translates them to the user's).
type CRDVerdict struct {
	// DecodeError is a non-strict decoding failure: a 400 for the request.
	DecodeError error
	// Unknown holds the strict decoder's messages (unknown field "..."):
	// warnings under fieldValidation=Warn, a 400 under Strict.
	Unknown []string
	// Errors is the validation's verdict in the server's internal paths.
	Errors field.ErrorList
	// Warnings are the strategy's warnings.
	Warnings []string
	// Panic is set when the server's validation code panicked: the API
	// server recovers and answers 500 Internal Server Error, so the
	// request fails.
	Panic string
	// Costs are the CEL cost estimates of an accepted CRD, when asked for
	// (Create with a cost cache): the server computes them while
	// validating and keeps only the verdict.
	Costs []CELCost
}

// Rejected reports whether the server refuses the request under
// fieldValidation=Warn (strict=false) or Strict.
func (v *CRDVerdict) Rejected(strict bool) bool {
	return v.DecodeError != nil || len(v.Errors) > 0 || v.Panic != "" || (strict && len(v.Unknown) > 0)
}

// Accepted reports whether the server accepts the request whatever the
// field validation: no decoding error, no validation error, no panic.
func (v *CRDVerdict) Accepted() bool {
	return v.DecodeError == nil && len(v.Errors) == 0 && v.Panic == ""
}

// ValidateCreate runs a decoded CRD (DecodeCRD's) through the rest of the
// server's create path: conversion to the internal type, namespace
// reconciliation, PrepareForCreate, the CRD strategy's validation
// (ValidateCreate, as rest.BeforeCreate calls it) and its warnings. With
// costs set, an accepted CRD's verdict carries the CEL cost estimates
// too, sharing the cache's compilations. The verdict's Unknown is the
// caller's to fill (DecodeCRD's). crd is left as it was.
func ValidateCreate(crd *apiextensionsv1.CustomResourceDefinition, costs *CostCache) *CRDVerdict {
	v := &CRDVerdict{}
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
	v.Errors, v.Warnings, v.Panic = validateInternal(in, nil)
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
		v.Errors, v.Warnings, _ = validateInternal(retry, nil)
	}
	if costs != nil && v.Accepted() {
		// From the converted schemas the validation just used: the
		// estimator needs the internal types, and converting again
		// would cost as much as a quarter of the estimate.
		v.Costs = celCosts(crd, in, costs)
	}
	return v
}

// ValidateUpdate is the server's verdict on an update of the CRD old (as
// storage holds it) to new (as a request sends it), both decoded
// (DecodeCRD): conversion, rest.BeforeUpdate's steps (namespace,
// generation and system metadata kept from old, PrepareForUpdate with
// status kept from old and NEW's storage version added to the stored
// versions, ObjectMeta update validation, the strategy's ValidateUpdate:
// stored versions, scope and names, structural schema, CEL with the
// rules for unchanged expressions, ...) and the warnings the update adds.
// Neither is changed. The verdict's Unknown is the caller's to fill.
//
// What storage holds for old that a file lacks is filled in as an
// installation of old would have left it (installed): status.storedVersions,
// when empty, is old's storage version; with no status conditions at all
// the CRD is taken as Established (names accepted), which makes the
// server refuse scope and kind changes. A CRD read from a cluster keeps
// its own.
func ValidateUpdate(old, new *apiextensionsv1.CustomResourceDefinition) *CRDVerdict {
	v := &CRDVerdict{}
	inOld, inNew := &apiextensions.CustomResourceDefinition{}, &apiextensions.CustomResourceDefinition{}
	if err := scheme.Convert(installed(old), inOld, nil); err != nil {
		v.DecodeError = err
		return v
	}
	if err := scheme.Convert(new.DeepCopy(), inNew, nil); err != nil {
		v.DecodeError = err
		return v
	}
	v.Errors, v.Warnings, v.Panic = validateInternal(inNew, inOld)
	return v
}

// installed returns a copy of crd with the status an installation leaves
// where crd has none: status.storedVersions its storage version, and the
// NamesAccepted and Established conditions with its names accepted. A
// CRD read from a cluster (with stored versions and conditions) is
// copied as it is.
func installed(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	c := crd.DeepCopy()
	if len(c.Status.StoredVersions) == 0 {
		for _, ver := range c.Spec.Versions {
			if ver.Storage {
				c.Status.StoredVersions = []string{ver.Name}
				break
			}
		}
	}
	if len(c.Status.Conditions) == 0 {
		c.Status.AcceptedNames = c.Spec.Names
		for _, t := range []apiextensionsv1.CustomResourceDefinitionConditionType{apiextensionsv1.NamesAccepted, apiextensionsv1.Established} {
			c.Status.Conditions = append(c.Status.Conditions, apiextensionsv1.CustomResourceDefinitionCondition{Type: t, Status: apiextensionsv1.ConditionTrue})
		}
	}
	return c
}

// validateInternal runs rest.BeforeCreate's steps on the internal object,
// or rest.BeforeUpdate's when old is set. A panic in the server's code is
// returned as text: the API server recovers from it and answers 500.
func validateInternal(in, old *apiextensions.CustomResourceDefinition) (errs field.ErrorList, warnings []string, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			errs, warnings, panicked = nil, nil, fmt.Sprint(r)
		}
	}()
	if old == nil && in.Name == "" && in.GenerateName != "" {
		in.Name = GenerateName(in.GenerateName)
	}
	// kubectl sends no namespace for a cluster-scoped kind; the server
	// clears one set in the object.
	in.Namespace = ""
	ctx := genericapirequest.WithNamespace(context.Background(), "")
	strategy := customresourcedefinition.NewStrategy(scheme)
	if old == nil {
		strategy.PrepareForCreate(ctx, in)
		errs = restValidateCreate(ctx, in, strategy)
		if len(errs) == 0 {
			warnings = strategy.WarningsOnCreate(ctx, in)
		}
		return errs, warnings, ""
	}
	// rest.BeforeUpdate's steps, in its order. What storage holds for the
	// old object, and what an apply copies into the new one, first.
	old.Namespace = ""
	if old.ResourceVersion == "" {
		old.ResourceVersion = "1"
	}
	if old.Generation == 0 {
		old.Generation = 1
	}
	if old.UID == "" {
		old.UID = "00000000-0000-0000-0000-000000000000"
	}
	in.ResourceVersion = old.ResourceVersion
	in.Generation = old.Generation
	strategy.PrepareForUpdate(ctx, in, old)
	if in.UID == "" {
		in.UID = old.UID
	}
	if !old.CreationTimestamp.IsZero() {
		in.CreationTimestamp = old.CreationTimestamp
	}
	// ObjectMeta update validation (name, immutable metadata), then the
	// strategy's.
	errs = restValidateUpdate(ctx, in, old, strategy)
	if len(errs) == 0 {
		warnings = strategy.WarningsOnUpdate(ctx, in, old)
	}
	return errs, warnings, ""
}
