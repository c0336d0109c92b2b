package helm

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		file string // under testdata, or
		text string // inline
		want Sources
	}{
		{name: "helm template with CRDs, a subchart, a hook, an empty template", file: "shop.yaml", want: Sources{
			{0, 2, "shop/crds/widget.yaml", 2},
			{1, 28, "shop/charts/db/templates/secret.yaml", 28},
			// shop/templates/disabled.yaml rendered only a comment: no document
			{2, 40, "shop/templates/widgets.yaml", 40},
			{3, 48, "shop/templates/widgets.yaml", 48},
			{4, 57, "shop/charts/db/charts/metrics/templates/widget.yaml", 57},
			{5, 65, "shop/templates/tests/test-connection.yaml", 65},
		}},
		{name: "post-renderer output without comments", file: "post-rendered.yaml", want: Sources{
			{0, 1, "", 0},
			{1, 9, "", 0},
		}},
		{name: "hand-assembled", file: "mixed.yaml", want: Sources{
			{0, 1, "shop/templates/first.yaml", 3},
			// shop/templates/null.yaml rendered null: kubectl drops it
			{1, 15, "shop/templates/broken.yaml", 15}, // a syntax error counts
			{2, 20, "", 0}, // a comment after content is not the header
			{3, 26, "", 0}, // helm writes "# Source: ", nothing else
		}},
		{name: "CRLF, no final newline", file: "crlf.yaml", want: Sources{
			{0, 2, "shop/templates/crlf.yaml", 2},
			{1, 8, "shop/templates/last.yaml", 8},
		}},
		{name: "empty", text: "", want: nil},
		{name: "comments only", text: "---\n# Source: a/templates/x.yaml\n---\n", want: nil},
		{name: "no separator before the first", text: "# Source: a/templates/x.yaml\nkind: A\n", want: Sources{{0, 1, "a/templates/x.yaml", 1}}},
		{name: "separators back to back", text: "---\n---\n# Source: a/templates/x.yaml\nkind: A\n", want: Sources{{0, 3, "a/templates/x.yaml", 3}}},
		{name: "blank lines before the comment", text: "---\n\n\n# Source: a/templates/x.yaml\nkind: A\n", want: Sources{{0, 2, "a/templates/x.yaml", 4}}},
		{name: "path with spaces, trailing blanks", text: "---\n# Source: my chart/templates/x.yaml  \nkind: A\n", want: Sources{{0, 2, "my chart/templates/x.yaml", 2}}},
		{name: "empty path", text: "---\n# Source:\nkind: A\n", want: Sources{{0, 2, "", 0}}},
		{name: "first of two comments", text: "---\n# Source: a/templates/x.yaml\n# Source: a/templates/y.yaml\nkind: A\n", want: Sources{{0, 2, "a/templates/x.yaml", 2}}},
		{name: "scalar and list documents count", text: "---\n# Source: a/templates/s.yaml\nhello\n---\n# Source: a/templates/l.yaml\n- 1\n", want: Sources{
			{0, 2, "a/templates/s.yaml", 2}, {1, 5, "a/templates/l.yaml", 5},
		}},
		{name: "invalid separator still cuts", text: "--- x\n# Source: a/templates/x.yaml\nkind: A\n---junk\nkind: B\n", want: Sources{
			{0, 2, "a/templates/x.yaml", 2}, {1, 5, "", 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.text)
			if tt.file != "" {
				data = read(t, tt.file)
			}
			got := Parse(data)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			// The indexes are pkg/source's: findings index Sources.
			if f := source.Parse("<stdin>", data); f.Count != len(got) {
				t.Errorf("source.Parse counts %d documents, Parse %d", f.Count, len(got))
			}
		})
	}
}

// TestFindingsName: every finding of a helm stream, by its Document,
// names the template that rendered it.
func TestFindingsName(t *testing.T) {
	data := read(t, "shop.yaml")
	srcs := Parse(data)
	f := source.Parse("<stdin>", data)
	want := map[string]string{
		"widgets.example.com":  "shop/crds/widget.yaml",
		"shop-db":              "shop/charts/db/templates/secret.yaml",
		"shop-web":             "shop/templates/widgets.yaml",
		"shop-api":             "shop/templates/widgets.yaml",
		"shop-db-metrics":      "shop/charts/db/charts/metrics/templates/widget.yaml",
		"shop-test-connection": "shop/templates/tests/test-connection.yaml",
	}
	if len(f.Documents) != len(want) {
		t.Fatalf("got %d documents, want %d", len(f.Documents), len(want))
	}
	for _, d := range f.Documents {
		if got := srcs.Path(d.Index); got != want[d.Object.Name] {
			t.Errorf("%s (document %d, line %d): got %q, want %q", d.Object, d.Index, d.Root.Line, got, want[d.Object.Name])
		}
		if s := srcs[d.Index]; s.Line > d.Root.Line {
			t.Errorf("%s: the document starts at line %d, after its object at %d", d.Object, s.Line, d.Root.Line)
		}
	}
	if !srcs.Found() {
		t.Error("Found: got false for helm output")
	}
	if Parse(read(t, "post-rendered.yaml")).Found() {
		t.Error("Found: got true without comments")
	}
	if got := srcs.Path(-1) + srcs.Path(len(srcs)); got != "" {
		t.Errorf("Path out of range: got %q", got)
	}
}
