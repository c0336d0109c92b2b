package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// js quotes a value for a message as JSON: "Foo", 10, ["a","b"].
func js(v any) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// value decodes a JSON value of the schema (a default, an enum member).
// Raw JSON that does not decode, which the server's decoder never
// produces, is returned as its text.
func value(j *apiextensionsv1.JSON) any {
	if j == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(j.Raw, &v); err != nil {
		return string(j.Raw)
	}
	return v
}

// canonical is a JSON value's identity: equal values, however written,
// give the same string.
func canonical(j apiextensionsv1.JSON) string {
	return js(value(&j))
}

func jsonValues(l []apiextensionsv1.JSON) []any {
	out := make([]any, len(l))
	for i := range l {
		out[i] = value(&l[i])
	}
	return out
}

// jsList renders values for a message: "a", "b", 3.
func jsList(l []apiextensionsv1.JSON) string {
	q := make([]string, len(l))
	for i := range l {
		q[i] = canonical(l[i])
	}
	return strings.Join(q, ", ")
}

func stringsAny(ss []string) []any {
	if ss == nil {
		return nil
	}
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
