package immutable

import (
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"
)

// The raw-JSON entry points of the tests: the tool reads the markers
// from crd.Definition.Markers (FromObject, ValidateObject).

// fromCRD parses the openAPIV3Schema of the named version from the raw JSON
// (or YAML) of a CustomResourceDefinition. It reads
// spec.versions[i].schema.openAPIV3Schema, falling back to the v1beta1
// spec.validation.openAPIV3Schema shared by all versions. An empty version
// selects the only version of a single-version CRD.
func fromCRD(crdJSON []byte, version string) (*Schema, error) {
	crd, err := decodeCRD(crdJSON)
	if err != nil {
		return nil, err
	}
	return FromObject(crd, version)
}

// validateCRD runs ValidatePlacement on every version's schema of the raw
// JSON (or YAML) of a CRD, with the version's path as root path.
func validateCRD(crdJSON []byte) ([]Problem, error) {
	crd, err := decodeCRD(crdJSON)
	if err != nil {
		return nil, err
	}
	return ValidateObject(crd)
}

// versionSchemaPath returns the field path of the openAPIV3Schema fromCRD
// reads for version, e.g. "spec.versions[1].schema.openAPIV3Schema", to be
// used as rootPath of ValidatePlacement.
func versionSchemaPath(crdJSON []byte, version string) (string, error) {
	_, path, err := crdVersionSchema(crdJSON, version)
	return path, err
}

func decodeCRD(crdJSON []byte) (map[string]any, error) {
	j, err := yaml.YAMLToJSON(crdJSON)
	if err != nil {
		return nil, fmt.Errorf("decoding CRD: %w", err)
	}
	var crd map[string]any
	if err := json.Unmarshal(j, &crd); err != nil {
		return nil, fmt.Errorf("decoding CRD: %w", err)
	}
	if crd == nil {
		return nil, fmt.Errorf("decoding CRD: not an object")
	}
	return crd, nil
}

func crdVersionSchema(crdJSON []byte, version string) (map[string]any, string, error) {
	crd, err := decodeCRD(crdJSON)
	if err != nil {
		return nil, "", err
	}
	return versionSchemaOf(crd, version)
}
