package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/fsutil"
)

// Target is the file a starter configuration goes to in dir: the
// configuration file already there, so that replacing it does not add a
// second one (both .crdlint.yaml and .crdlint.yml is an error for every
// command), else the first of FileNames. Its errors name the path, for
// a command to print as they are.
func Target(dir string) (path string, exists bool, err error) {
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return "", false, fmt.Errorf("read %s: %w", dir, fsutil.UnwrapPath(err))
	case !st.IsDir():
		return "", false, fmt.Errorf("%s is not a directory", dir)
	}
	for _, name := range FileNames {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err == nil {
			return p, true, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", false, fmt.Errorf("look for %s: %w", p, fsutil.UnwrapPath(err))
		}
	}
	return filepath.Join(dir, FileNames[0]), false, nil
}

// Write writes a starter to path, the Target: it replaces an existing
// file atomically (its mode kept), or creates a new one, refusing to
// clobber a file that appeared since Target looked, and removing what it
// wrote when the write fails (a partial starter would make the next
// config init refuse).
func Write(path string, data []byte, exists bool) error {
	if exists {
		return fsutil.WriteAtomic(path, data)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, fsutil.UnwrapPath(err))
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("write %s: %w", path, fsutil.UnwrapPath(err))
	}
	return nil
}
