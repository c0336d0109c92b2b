package source

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/hints/*.golden from the current output")

// TestHintsGolden reads each testdata/hints input and compares its
// findings, one line each as the text renderer prints them, with the
// golden file beside it (go test ./pkg/source -run TestHintsGolden
// -update rewrites them).
func TestHintsGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/hints/*.yaml")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs in testdata/hints (%v)", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			f := Parse(in, data)
			var b strings.Builder
			for _, x := range f.Findings {
				fmt.Fprintf(&b, "%s:%d:%d: %s %s: %s", x.File, x.Line, x.Column, x.Severity, x.Rule, x.Message)
				if x.Field != "" {
					fmt.Fprintf(&b, " [%s]", x.Field)
				}
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "documents %d, objects %d\n", f.Count, len(f.Documents))
			golden := strings.TrimSuffix(in, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("findings of %s:\n got:\n%s\nwant:\n%s", in, got, want)
			}
		})
	}
}
