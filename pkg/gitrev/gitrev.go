package gitrev

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Split splits REV:PATH. An argument that names something on disk is a
// path even with a colon in it, and "-" is stdin.
func Split(arg string) (rev, path string, ok bool) {
	if arg == "-" {
		return "", "", false
	}
	if _, err := os.Stat(arg); err == nil {
		return "", "", false
	}
	rev, path, ok = strings.Cut(arg, ":")
	if !ok || rev == "" || path == "" {
		return "", "", false
	}
	return rev, path, true
}

// Show reads PATH at revision REV of the repository of the working
// directory.
func Show(rev, path string) ([]byte, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("%s:%s: reading a file at a git revision needs git, which is not on PATH", rev, path)
	}
	cmd := exec.Command(git, "show", rev+":"+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		msg = strings.TrimPrefix(msg, "fatal: ")
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("cannot read %s at git revision %s: %s", path, rev, msg)
	}
	// git show prints a tree's listing for a directory, which would
	// parse as an empty YAML stream rather than fail.
	if bytes.HasPrefix(out, []byte("tree ")) {
		return nil, fmt.Errorf("cannot read %s at git revision %s: it is a directory; give a file", path, rev)
	}
	return out, nil
}
