// Package engine is the API server, offline: the one package that runs
// the server's libraries (k8s.io/apiextensions-apiserver, apiserver,
// kube-openapi, cel-go), unchanged, and the unit that is built against
// another Kubernetes minor's releases. TestEngineBoundary holds both: no
// other code imports the server's validation, registry, CEL or
// structural-schema packages, and the engine imports nothing of the
// tool's.
//
// It takes and returns plain data — the CRD's apiextensions.k8s.io/v1
// types, decoded JSON objects (map[string]any), field paths, the
// server's field.Error values and warnings — and knows no catalogue,
// cache, file or position:
//
//   - CRDs: DecodeCRD (a request body, strictly decoded and defaulted),
//     ValidateCreate and ValidateUpdate (the registry's create and update
//     of a CRD: CRDVerdict), CELCosts (the static cost estimates, with a
//     CostCache shared across a run's CRDs), UnrecognizedFormats,
//     UsesOldSelf, EscapeProperty, WithoutSchemas.
//   - Custom resources: Compile (one version, as the CRD handler serves
//     it) gives a Version, whose methods run a request through the
//     server's steps: Create, Update and UpdateFromStorage (with
//     ratcheting and transition rules), UpdateStatus (the status
//     subresource, when HasStatus; ErrNoStatus otherwise; and
//     UpdateStatusFromStorage), Prune,
//     storage's Read and the None strategy's Convert, one CEL rule alone
//     (RuleErrors), which errors are CEL's (CELErrors), which part
//     reported an error (Explain), field selectors (FieldSet, FieldType,
//     ConvertFieldLabel), the deprecation warning, its Resource, and its
//     Size for a cache's budget; GenerateName is the name the registry
//     gives an object with only generateName.
//
// Every call whose API differs between the supported minors goes through
// one small function in a compat_*.go file, which a minor with another
// API replaces with a build-tagged copy.
package engine
