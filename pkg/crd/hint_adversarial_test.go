package crd

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// TestHintAdversarial: YAML and JSON spellings a hint must not be fooled
// by (a reviewer's list): every CRD the parser finds is one the hint
// allows, or the hint is opaque.
func TestHintAdversarial(t *testing.T) {
	hdr := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n"
	cases := map[string]string{
		"flow value next line":            hdr + "spec: {group:\n  example.com, names: {kind: Widget, plural: widgets}}\n",
		"json value next line":            "{\"apiVersion\": \"apiextensions.k8s.io/v1\", \"kind\": \"CustomResourceDefinition\", \"spec\": {\"group\":\n\"example.com\", \"names\": {\"kind\":\n\"Widget\"}}}\n",
		"flow kind next line":             hdr + "spec: {group: example.com, names: {plural: widgets, kind:\n  Widget}}\n",
		"flow spanning lines kind":        hdr + "spec: {group: example.com, names: {plural: widgets,\n  kind: Widget}}\n",
		"flow kind col0":                  hdr + "spec: {group: example.com, names: {plural: widgets,\nkind: Widget}}\n",
		"json indent0":                    "{\n\"apiVersion\": \"apiextensions.k8s.io/v1\",\n\"kind\": \"CustomResourceDefinition\",\n\"metadata\": {\n\"name\": \"widgets.example.com\"\n},\n\"spec\": {\n\"group\": \"example.com\",\n\"names\": {\n\"kind\": \"Widget\",\n\"plural\": \"widgets\"\n}\n}\n}\n",
		"json brace own line":             "{\n  \"apiVersion\": \"apiextensions.k8s.io/v1\",\n  \"kind\": \"CustomResourceDefinition\",\n  \"spec\":\n  {\n    \"group\": \"example.com\",\n    \"names\":\n    {\n      \"kind\": \"Widget\"\n    }\n  }\n}\n",
		"explicit names key":              hdr + "spec:\n  group: example.com\n  ? names\n  :\n    kind: Widget\n",
		"explicit names compact":          hdr + "spec:\n  group: example.com\n  ? names\n  : kind: Widget\n",
		"escaped names key":               hdr + "spec:\n  group: example.com\n  \"n\\x61mes\":\n    kind: Widget\n",
		"escaped names key json":          "{\"apiVersion\": \"apiextensions.k8s.io/v1\", \"kind\": \"CustomResourceDefinition\",\n \"spec\": {\n  \"group\": \"example.com\",\n  \"n\\u0061mes\": {\n   \"kind\": \"Widget\"\n  }\n }\n}\n",
		"CR only":                         "apiVersion: apiextensions.k8s.io/v1\rkind: CustomResourceDefinition\rmetadata:\r  name: widgets.example.com\rspec:\r  group: example.com\r  names:\r    kind: Widget\r",
		"LS line sep":                     hdr + "spec:\n  group: example.com\u2028  names:\n    kind: Widget\n",
		"NEL":                             hdr + "spec:\n  group: example.com\u0085  names:\n    kind: Widget\n",
		"CRLF":                            "apiVersion: apiextensions.k8s.io/v1\r\nkind: CustomResourceDefinition\r\nspec:\r\n  group: example.com\r\n  names:\r\n    kind: Widget\r\n",
		"BOM":                             "\ufeffapiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: example.com\n  names:\n    kind: Widget\n",
		"tabs after colon":                hdr + "spec:\n  group:\texample.com\n  names:\n    kind:\tWidget\n",
		"space before colon":              hdr + "spec:\n  group : example.com\n  names :\n    kind : Widget\n",
		"quoted key space colon":          hdr + "spec:\n  \"group\" : example.com\n  \"names\" :\n    \"kind\" : Widget\n",
		"Upper keys":                      hdr + "spec:\n  Group: example.com\n  Names:\n    Kind: Widget\n",
		"list":                            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  spec:\n    group: example.com\n    names:\n      kind: Widget\n",
		"indented doc":                    "  apiVersion: apiextensions.k8s.io/v1\n  kind: CustomResourceDefinition\n  spec:\n    group: example.com\n    names:\n      kind: Widget\n",
		"doc start same line":             "--- {apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, spec: {group: example.com, names: {kind: Widget}}}\n",
		"names anchor":                    hdr + "spec:\n  group: example.com\n  names: &n\n    kind: Widget\n",
		"names tag":                       hdr + "spec:\n  group: example.com\n  names: !!map\n    kind: Widget\n",
		"names in seq item merge":         hdr + "spec:\n  group: example.com\n  names:\n    <<: [{kind: Widget}]\n",
		"names merge block":               hdr + "x: &n\n  kind: Widget\n  plural: widgets\nspec:\n  group: example.com\n  names: *n\n",
		"flow plain multi":                hdr + "spec: {group: exam\n  ple.com, names: {kind: Widget}}\n",
		"kind flow same col":              hdr + "spec:\n  group: example.com\n  names: {\n    plural: w,\n    kind: Widget}\n",
		"names flow on next line":         hdr + "spec:\n  group: example.com\n  names:\n    {kind: Widget}\n",
		"names block seq flow":            hdr + "spec:\n  group: example.com\n  names:\n    {plural: w,\n     kind: Widget}\n",
		"comment between names":           hdr + "spec:\n  group: example.com\n  names:\n# c\n    kind: Widget\n",
		"names with comment same":         hdr + "spec:\n  group: example.com\n  names: # c\n    kind: Widget\n",
		"value single quote CR":           hdr + "spec:\n  group: 'example.com'\r\n  names:\n    kind: 'Widget'\n",
		"group after json comma no space": "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\"spec\":{\"names\":{\"kind\":\"Widget\"},\"group\":\"example.com\"}}",
		"double-quoted multiline key? ":   hdr + "spec:\n  group: \"example.com\"\n  names:\n    kind: \"Widget\"   # c\n",
		"kind flow key newline":           hdr + "spec:\n  group: example.com\n  names: {plural: w, \"kind\"\n  : Widget}\n",
		"group flow key newline":          hdr + "spec: {\"group\"\n  : example.com, names: {kind: Widget}}\n",
		"group flow key newline plain":    hdr + "spec: {group\n  : example.com, names: {kind: Widget}}\n",
	}
	for name, text := range cases {
		data := []byte(text)
		n := 0
		for _, fd := range FindCRDs(source.Parse("f.yaml", data)) {
			if fd.Def != nil && fd.Def.v1 != nil {
				n++
			}
		}
		h := ScanHint(data)
		if miss := hintMisses(data); len(miss) > 0 {
			t.Errorf("%s: MISS %v (opaque %v groups %v kinds %v nested %v)", name, miss, h.Opaque, h.Groups, h.Kinds, h.Nested)
		} else {
			t.Logf("%s: ok, %d crds, opaque %v", name, n, h.Opaque)
		}
	}
}

// TestHintLongLine: a file of one long line (minified JSON) is opaque
// rather than scanned key by key along it.
func TestHintLongLine(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","spec":{"group":"example.com","names":{"kind":"Widget"},"x":{`)
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, `"p%d":{"kind":"%s"},`, i, strings.Repeat("d", 20))
	}
	b.WriteString(`"end":{}}}}`)
	if !ScanHint([]byte(b.String())).Opaque {
		t.Errorf("a %d-byte line is not opaque", b.Len())
	}
	if ScanHint([]byte("spec:\n  group: example.com\n  names:\n    kind: Widget\n")).Opaque {
		t.Error("a short file is opaque")
	}
}

// TestHintHostile: texts that would make a scan quadratic (a key's
// siblings walked for each of them, every key of a line reading the same
// blank lines after it, an anchor's alias searched for each anchor) read
// in one pass, and still give a hint that hides nothing.
func TestHintHostile(t *testing.T) {
	crd := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: example.com\n  names:\n    kind: Widget\n"
	var siblings, blanks, anchors, stars strings.Builder
	siblings.WriteString(crd + "  x:\n")
	for i := 0; i < 200000; i++ {
		fmt.Fprintf(&siblings, "    kind%d: a\n    kind: b\n", i)
	}
	blanks.WriteString(crd + "  x: {" + strings.Repeat("kind: a, ", 5000) + "}\n" + strings.Repeat("\n", 2000000) + "  y: 1\n")
	anchors.WriteString(crd)
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&anchors, "  a%d: &n%d x\n", i, i)
	}
	stars.WriteString(crd + "  d: " + strings.Repeat("*", 60000) + "\n")
	for name, text := range map[string]string{"siblings": siblings.String(), "blank lines": blanks.String(), "anchors": anchors.String(), "stars": stars.String()} {
		h := ScanHint([]byte(text))
		if !h.May(schema.GroupKind{Group: "example.com", Kind: "Widget"}) {
			t.Errorf("%s: the hint hides the CRD (%d bytes)", name, len(text))
		}
	}
}
