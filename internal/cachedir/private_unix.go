//go:build unix

package cachedir

import (
	"os"
	"syscall"
)

// Private tells whether dir is the user's alone: owned by the user and
// writable by no one else, so that no other user can have planted (or
// can plant) entries in it. A cache whose answers are trusted must be.
func Private(dir string) bool {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() || st.Mode().Perm()&0o022 != 0 {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Getuid()
}
