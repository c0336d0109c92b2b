// Package cachedir resolves kubectl-crdlint's cache directory, shared by
// the CRDs fetched from URLs (remote) and the persistent verdict cache:
// one root, one subdirectory per use.
//
// Example:
//
//	root, err := cachedir.Resolve(o.CacheDir) // --cache-dir, may be ""
//	crds, err := cachedir.Sub(root, cachedir.CRDs)
package cachedir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// EnvVar names the cache directory when --cache-dir does not.
const EnvVar = "KUBECTL_CRDLINT_CACHE_DIR"

// Name is the directory under the user cache directory.
const Name = "kubectl-crdlint"

// Subdirectories, one per use.
const (
	CRDs     = "crds"     // CRDs fetched from URLs
	Verdicts = "verdicts" // the persistent verdict cache
	Engines  = "engines"  // the Kubernetes minors' engines built from source
)

// Resolve returns the cache directory: flag (--cache-dir) when set, else
// $KUBECTL_CRDLINT_CACHE_DIR, else kubectl-crdlint under the user cache
// directory ($XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on
// macOS, %LocalAppData% on Windows). It does not create it.
func Resolve(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if d := os.Getenv(EnvVar); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (%v): give one with --cache-dir or %s", err, EnvVar)
	}
	return filepath.Join(d, Name), nil
}

// Sub returns the subdirectory name of root, created if missing. The
// directories are private to the user: other users on a shared machine
// should not be able to plant CRDs in them.
func Sub(root, name string) (string, error) {
	d := filepath.Join(root, name)
	if err := os.MkdirAll(d, 0o700); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", fmt.Errorf("cache directory %s: %v", d, err)
	}
	return d, nil
}
