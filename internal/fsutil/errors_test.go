package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestUnwrapPath(t *testing.T) {
	dir := t.TempDir()
	_, statErr := os.Stat(filepath.Join(dir, "missing"))
	linkErr := os.Rename(filepath.Join(dir, "missing"), filepath.Join(dir, "other"))
	other := errors.New("other")
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"path error", statErr, "no such file or directory"},
		{"link error", linkErr, "no such file or directory"},
		{"wrapped path error", fmt.Errorf("read: %w", statErr), "no such file or directory"},
		{"other error", other, "other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := UnwrapPath(tc.err)
			if got.Error() != tc.want {
				t.Errorf("UnwrapPath(%q) = %q, want %q", tc.err, got, tc.want)
			}
			if tc.err != other && !errors.Is(got, fs.ErrNotExist) {
				t.Errorf("UnwrapPath(%q) lost the cause: %v", tc.err, got)
			}
		})
	}
}
