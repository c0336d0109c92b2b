package diff

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestUnified(t *testing.T) {
	widget := "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  color: red\n  colour: blue # misspelt\n  size: 3\n"
	pruned := strings.Replace(widget, "  colour: blue # misspelt\n", "", 1)
	tests := []struct {
		name  string
		a, b  string
		color bool
	}{
		{"one-line-removed", widget, pruned, false},
		{"one-line-removed-color", widget, pruned, true},
		{"no-final-newline", "a: 1\nb: 2", "a: 1", false},
		{"all-removed", "a: 1\n", "", false},
		{"two-hunks", strings.Repeat("x: 1\n", 3) + "drop: 1\n" + strings.Repeat("y: 1\n", 10) + "drop2: 2\n", strings.Repeat("x: 1\n", 3) + strings.Repeat("y: 1\n", 10), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			changed, err := Unified(&buf, "a/w.yaml", "b/w.yaml", []byte(tt.a), []byte(tt.b), Options{Color: tt.color})
			if err != nil || !changed {
				t.Fatalf("got changed=%v err=%v, want a diff", changed, err)
			}
			golden := filepath.Join("testdata", tt.name+".golden")
			if *update {
				_ = os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if buf.String() != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", buf.String(), want)
			}
		})
	}
}

func TestUnifiedEqual(t *testing.T) {
	var buf bytes.Buffer
	changed, err := Unified(&buf, "a", "b", []byte("x: 1\n"), []byte("x: 1\n"), Options{Color: true})
	if changed || err != nil || buf.Len() != 0 {
		t.Fatalf("got changed=%v err=%v output %q, want nothing", changed, err, buf.String())
	}
}
