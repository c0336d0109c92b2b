package fsutil

import (
	"errors"
	"os"
)

// UnwrapPath drops the path an *fs.PathError or *os.LinkError repeats,
// for messages that name the path (or what it stands for) themselves:
// "write x.yaml: permission denied", not "write x.yaml: open
// x.yaml: permission denied". Any other error is returned as it is.
func UnwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
