package lint

import (
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// structuralMessages are the details the structural-schema checks
// (NewStructural, ValidateStructural) produce; everything else under a
// schema is an API rule of ValidateCustomResourceDefinitionOpenAPISchema.
var structuralMessages = []string{
	"to be structural",
	"must not be specified in a nested context",
	"because it is defined in",
	" is not supported",
	"must not be empty for specified",
	"must not be empty at the root",
	"must be object at the root",
	"must not be used at the root",
	"Required value: must be specified",
	"mutual exclusive",
	"uniqueItems cannot be set to true",
	"must be true or undefined",
	"must not specify anything other than name and generateName",
	"type cannot be set to null",
	"items must be a schema object and not an array",
	"supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"",
	"nullable cannot be true at the root",
	"if the status subresource is enabled",
}

var defaultPathRE = regexp.MustCompile(`\.default($|[.\[])`)

// classify gives a server error its stable rule ID from its path and
// text. The fallback, crd-invalid, must never be hit by a known error: a
// test over the corpus and the mutants checks it.
func classify(e *field.Error, path string) string {
	body := e.ErrorBody()
	inSchema := strings.Contains(path, "openAPIV3Schema")
	switch {
	case strings.Contains(path, "x-kubernetes-validations") || strings.Contains(body, "x-kubernetes-validations"):
		return RuleCRDCEL
	case inSchema && defaultPathRE.MatchString(path) && !strings.Contains(body, "to be structural"):
		return RuleCRDDefault
	case inSchema && (strings.Contains(path, "x-kubernetes-list-") || strings.Contains(path, "x-kubernetes-map-type") ||
		strings.Contains(body, "x-kubernetes-list-type") || strings.Contains(body, "x-kubernetes-map-type")):
		if strings.Contains(body, "to be structural") {
			return RuleCRDStructural
		}
		return RuleCRDListType
	case inSchema:
		for _, m := range structuralMessages {
			if strings.Contains(body, m) {
				return RuleCRDStructural
			}
		}
		return RuleCRDSchema
	case strings.Contains(path, "selectableFields"):
		return RuleCRDSelectableFields
	case strings.Contains(path, "additionalPrinterColumns"):
		return RuleCRDPrinterColumns
	case strings.Contains(path, "subresources"):
		return RuleCRDSubresources
	case strings.HasPrefix(path, "spec.versions"):
		if strings.Contains(path, ".schema") {
			return RuleCRDSchema
		}
		return RuleCRDVersions
	case hasPrefix(path, "spec.conversion"):
		return RuleCRDConversion
	case hasPrefix(path, "spec.names"):
		return RuleCRDNames
	case hasPrefix(path, "spec.group"):
		return RuleCRDGroup
	case hasPrefix(path, "spec.scope"):
		return RuleCRDScope
	case hasPrefix(path, "spec.preserveUnknownFields"):
		return RuleCRDPreserveUnknownFields
	case strings.HasPrefix(path, "metadata.annotations[api-approved.kubernetes.io]"):
		return RuleCRDAPIApproval
	case hasPrefix(path, "metadata"):
		return RuleCRDMetadata
	}
	return RuleCRDInvalid
}
