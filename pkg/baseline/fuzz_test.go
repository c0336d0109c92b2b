package baseline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: any file reads or fails without panicking, and what reads
// writes back to a file that reads to the same entries.
func FuzzParse(f *testing.F) {
	golden, err := os.ReadFile(filepath.Join("testdata", "baseline.golden"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden)
	f.Add([]byte("version: 1\nentries:\n  - {file: a, rule: r, message: \"\\n\", count: 3}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Parse("b.yaml", data)
		if err != nil {
			if bytes.Contains([]byte(err.Error()), []byte("\n")) {
				t.Fatalf("error of several lines: %q", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := b.Write(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := Parse("b.yaml", buf.Bytes())
		if err != nil {
			t.Fatalf("written baseline does not read: %v\n%s", err, buf.Bytes())
		}
		if fmt.Sprint(back.Entries) != fmt.Sprint(b.Entries) {
			t.Fatalf("entries changed: %v, then %v", b.Entries, back.Entries)
		}
		b.Match(nil)
	})
}
