package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/encoding/unicode"
)

// kubectl reads a file with a byte order mark as its text (UTF-16 in
// either byte order, UTF-8 with the mark dropped): the CRDs in it are
// applied. Each command reads those CRDs as kubectl does, and prune
// --in-place writes the file back in its own encoding.
func TestByteOrderMarks(t *testing.T) {
	const cr = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec:\n  size: 3 # kept\n  sise: 4 # typo\n"
	text := widgetCRD + "\n---\n" + cr
	encode := func(e unicode.Endianness) func(string) []byte {
		return func(s string) []byte {
			b, err := unicode.UTF16(e, unicode.UseBOM).NewEncoder().Bytes([]byte(s))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	for _, tc := range []struct {
		name   string
		encode func(string) []byte
	}{
		{"utf-16le", encode(unicode.LittleEndian)},
		{"utf-16be", encode(unicode.BigEndian)},
		{"utf-8 with a mark", func(s string) []byte { return append([]byte("\xef\xbb\xbf"), s...) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			both := filepath.Join(dir, "both.yaml")
			crd := filepath.Join(dir, "crd.yaml")
			crs := filepath.Join(dir, "cr.yaml")
			for p, s := range map[string]string{both: text, crd: widgetCRD, crs: cr} {
				if err := os.WriteFile(p, tc.encode(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// The CRD beside its custom resource, and given with --crd.
			for _, args := range [][]string{{both}, {"--crd", crd, crs}} {
				_, res := checkJSON(t, args...)
				if res.Summary.CustomResources != 1 || len(res.Findings) != 1 || res.Findings[0].Rule != "unknown-field" {
					t.Errorf("check %s: %d validated, findings %+v; want the typo found in 1 validated", strings.Join(args, " "), res.Summary.CustomResources, res.Findings)
				}
			}
			code, out, errOut := runMain(t, "prune", "--dry-run", both)
			if code != 1 || !strings.Contains(out, "-  sise: 4 # typo") || errOut != "" {
				t.Errorf("prune --dry-run: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if code, _, errOut := runMain(t, "prune", "--in-place", both); code != 0 || !strings.Contains(errOut, "rewrote") {
				t.Fatalf("prune --in-place: exit %d, stderr:\n%s", code, errOut)
			}
			got, err := os.ReadFile(both)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.encode(strings.Replace(text, "  sise: 4 # typo\n", "", 1))
			if !bytes.Equal(got, want) {
				t.Errorf("prune --in-place wrote %q\nwant (the same encoding) %q", got[:min(len(got), 40)], want[:min(len(want), 40)])
			}
		})
	}
}
