package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v3"
)

// TestSchemaUpToDate: the embedded schema is what Schema builds from the
// catalogue, so a new rule reaches editors (-update rewrites it).
func TestSchemaUpToDate(t *testing.T) {
	got, err := Schema(catalogue())
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("crdlint.schema.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, SchemaJSON) {
		t.Error("crdlint.schema.json is not what Schema(catalogue) builds: go test ./pkg/config -run TestSchemaUpToDate -update")
	}
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(SchemaURL, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(SchemaURL)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// instance reads a configuration as an editor's YAML 1.2 parser does and
// turns it into the JSON value the schema sees; ok is false when the
// text is not one YAML document.
func instance(t *testing.T, file string) (any, bool) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, false
	}
	js, err := json.Marshal(jsonable(v))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return inst, true
}

// jsonable gives non-string keys their JSON spelling, as a YAML editor
// does before validating.
func jsonable(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = jsonable(e)
		}
		return v
	case map[any]any:
		m := map[string]any{}
		for k, e := range v {
			m[fmt.Sprint(k)] = jsonable(e)
		}
		return m
	case []any:
		for i, e := range v {
			v[i] = jsonable(e)
		}
	}
	return v
}

// TestSchemaAgreesWithLoader: every configuration the loader accepts
// validates against the schema, and every one it rejects does not,
// except those marked "# schema: accepts" (errors no schema can see:
// missing paths, pattern syntax, repeated keys, a second document);
// the test holds that marker to its word too.
func TestSchemaAgreesWithLoader(t *testing.T) {
	s := compileSchema(t)
	for _, file := range fixtures(t, "valid") {
		inst, ok := instance(t, file)
		if !ok {
			t.Errorf("%s: not YAML", file)
			continue
		}
		if err := s.Validate(inst); err != nil {
			t.Errorf("%s: valid for the loader, not for the schema: %v", file, err)
		}
	}
	for _, file := range fixtures(t, "invalid") {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		accepts := strings.Contains(string(data), "# schema: accepts")
		inst, ok := instance(t, file)
		if !ok {
			if !accepts {
				t.Errorf("%s: not one YAML document, so the schema cannot reject it: mark it # schema: accepts", file)
			}
			continue
		}
		err = s.Validate(inst)
		switch {
		case accepts && err != nil:
			t.Errorf("%s: marked # schema: accepts, but the schema rejects it: %v", file, err)
		case !accepts && err == nil:
			t.Errorf("%s: invalid for the loader, valid for the schema", file)
		}
	}
}

// TestSchemaRuleLevels: a rule the server enforces offers error and off
// only, so editors flag "warning" as the loader does.
func TestSchemaRuleLevels(t *testing.T) {
	s := compileSchema(t)
	tests := []struct {
		yaml string
		ok   bool
	}{
		{"rules: {crd-structural: off}", true},
		{"rules: {crd-structural: error}", true},
		{"rules: {crd-structural: warning}", false},
		{"rules: {crd-empty-object: warning}", true},
		{"rules: {crd-empty-object: error}", true},
		{"rules: {crd-empty-object: info}", false},
		{"rules: {no-such-rule: off}", false},
		{"overrides: [{files: [a], rules: {crd-structural: warning}}]", false},
		{"overrides: [{files: [], rules: {crd-cel: off}}]", false},
		{"overrides: [{files: [a], rules: {}}]", false},
		{"overrides: [{files: [a]}]", false},
		{"crds: ['  ']", false},
		{"failOn: Error", false},
		{"missingCRDs: warning", true},
	}
	for _, tt := range tests {
		var v any
		if err := yaml.Unmarshal([]byte(tt.yaml), &v); err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(v)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(inst); (err == nil) != tt.ok {
			t.Errorf("%s: schema error %v, want valid=%v", tt.yaml, err, tt.ok)
		}
		// The loader agrees.
		dir := t.TempDir()
		_, fs := Parse(filepath.Join(dir, ".crdlint.yaml"), []byte(tt.yaml), catalogue())
		if (len(fs) == 0) != tt.ok {
			t.Errorf("%s: loader findings %v, want valid=%v", tt.yaml, fs, tt.ok)
		}
	}
}

func TestSchemaURLFor(t *testing.T) {
	tests := []struct{ version, want string }{
		{"v0.4.0", strings.Replace(SchemaURL, "/main/", "/v0.4.0/", 1)},
		{"0.4.0", strings.Replace(SchemaURL, "/main/", "/v0.4.0/", 1)},
		{"dev", SchemaURL},
		{"v0.4.1-0.20260101000000-abcdef123456", SchemaURL},
		{"", SchemaURL},
	}
	for _, tt := range tests {
		if got := SchemaURLFor(tt.version); got != tt.want {
			t.Errorf("SchemaURLFor(%q) = %q, want %q", tt.version, got, tt.want)
		}
	}
}
