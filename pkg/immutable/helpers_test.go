package immutable

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// mustSchema parses a schema written in YAML.
func mustSchema(t testing.TB, y string) *Schema {
	t.Helper()
	var raw map[string]any
	if err := yaml.Unmarshal([]byte(y), &raw); err != nil {
		t.Fatalf("schema YAML: %v\n%s", err, y)
	}
	s, err := ParseSchema(raw)
	if err != nil {
		t.Fatalf("ParseSchema: %v\n%s", err, y)
	}
	return s
}

// obj decodes a YAML (or JSON) object as the API server stores it:
// integers as int64, other numbers as float64.
func obj(t testing.TB, y string) any {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatalf("object YAML %q: %v", y, err)
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("object JSON %q: %v", j, err)
	}
	return stored(v)
}

func stored(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = stored(e)
		}
	case []any:
		for i, e := range t {
			t[i] = stored(e)
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	}
	return v
}

func violations(vs []Violation) string {
	if len(vs) == 0 {
		return "none"
	}
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "\n\t%s [%s: %s]", v, v.Rule, v.Value)
	}
	return b.String()
}
