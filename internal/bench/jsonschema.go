package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// KubeconformSchemaLocation is the -schema-location template matching the
// layout WriteJSONSchemas writes under dir: the CRDs-catalog layout
// (group/kind_version.json, lower case), so that kinds of different groups
// never share a file.
func KubeconformSchemaLocation(dir string) string {
	return filepath.Join(dir, "{{ .Group }}", "{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json")
}

// WriteJSONSchemas converts every version of every CRD in files to the JSON
// Schema kubeconform reads, as kubeconform's own openapi2jsonschema.py does:
// the version's openAPIV3Schema, with additionalProperties: false added to
// every object below the root that lists properties and says nothing of
// additionalProperties, and format int-or-string turned into a oneOf. It
// returns the number of schema files written. When two CRDs (gateway-api's
// standard and experimental channels) define the same kind and version the
// later file in name order wins, as it would with the script.
func WriteJSONSchemas(dir string, files []NamedFile) (int, error) {
	if err := os.RemoveAll(dir); err != nil {
		return 0, err
	}
	written := map[string]bool{}
	for _, f := range files {
		docs, err := splitDocs(f.Data)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", f.Name, err)
		}
		for _, d := range docs {
			if d["kind"] != "CustomResourceDefinition" {
				continue
			}
			spec, _ := d["spec"].(map[string]any)
			group, _ := spec["group"].(string)
			names, _ := spec["names"].(map[string]any)
			kind, _ := names["kind"].(string)
			vers, _ := spec["versions"].([]any)
			for _, v := range vers {
				vm, _ := v.(map[string]any)
				name, _ := vm["name"].(string)
				sch, _ := vm["schema"].(map[string]any)
				s, ok := sch["openAPIV3Schema"].(map[string]any)
				if !ok {
					continue
				}
				s = intOrString(denyAdditional(deepCopy(s), true)).(map[string]any)
				out, err := json.MarshalIndent(s, "", "  ")
				if err != nil {
					return 0, err
				}
				p := filepath.Join(dir, strings.ToLower(group), strings.ToLower(kind+"_"+name)+".json")
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return 0, err
				}
				if err := os.WriteFile(p, out, 0o644); err != nil {
					return 0, err
				}
				written[p] = true
			}
		}
	}
	return len(written), nil
}

// denyAdditional is openapi2jsonschema.py's additional_properties: it walks
// every map, so it also touches maps that are not schemas (properties
// itself), exactly like the script.
func denyAdditional(v any, root bool) any {
	switch t := v.(type) {
	case map[string]any:
		if _, ok := t["properties"]; ok && !root {
			if _, set := t["additionalProperties"]; !set {
				t["additionalProperties"] = false
			}
		}
		for _, e := range t {
			denyAdditional(e, false)
		}
	case []any:
		for _, e := range t {
			denyAdditional(e, false)
		}
	}
	return v
}

// intOrString is openapi2jsonschema.py's replace_int_or_string.
func intOrString(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if m, ok := e.(map[string]any); ok && m["format"] == "int-or-string" {
				t[k] = map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}
				continue
			}
			t[k] = intOrString(e)
		}
	case []any:
		for i, e := range t {
			t[i] = intOrString(e)
		}
	}
	return v
}
