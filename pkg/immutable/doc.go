// Package immutable implements the vendor extensions of the (never merged)
// KEP "Immutable Fields" (sig-api-machinery, 2019) for CRD schemas:
//
//	x-kubernetes-mutability:     Immutable | AddOnly | RemoveOnly
//	x-kubernetes-key-mutability: Immutable | AddOnly | RemoveOnly
//
// The Kubernetes API server does not know these extensions: its CRD decoder
// drops them as unknown fields, so they are not in
// apiextensionsv1.JSONSchemaProps. This package therefore parses its own
// schema tree (Schema) from a CRD decoded as generic JSON (FromObject;
// crd.Definition.Markers keeps it for CRDs that use the markers) or from
// an openAPIV3Schema (ParseSchema).
//
// ValidatePlacement (and ValidateObject for a whole CRD) apply the KEP's
// rules on where the
// extensions may be used and which values they may take; the problems use
// the API server's field notation and field.Error message bodies.
//
// Compare judges an update of a custom resource: given the old and the new
// object as the server stores them (decoded JSON, already pruned and
// defaulted), it returns every violation of the markers. The semantics and
// the decisions taken where the KEP is ambiguous or has typos are written
// down in docs/immutability.md.
//
// ToCEL translates the markers of a CRD to CEL transition rules that real
// servers enforce; ToCELFile does it for each CRD of a parsed file.
//
// The package is pure logic: it does no I/O.
package immutable
