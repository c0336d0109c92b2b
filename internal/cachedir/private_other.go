//go:build !unix

package cachedir

import "os"

// Private tells whether dir is the user's alone; where permissions are
// not Unix ones, that it is a directory.
func Private(dir string) bool {
	st, err := os.Stat(dir)
	return err == nil && st.IsDir()
}
