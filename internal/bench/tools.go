package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Peer is a tool crdlint is compared with, installed with `go install` at a
// pinned version so that every machine measures the same code.
type Peer struct {
	Name    string // binary name
	Module  string // module path, as `go version -m` prints it
	Package string // main package to install
	Version string
}

// The peers, at their latest releases when the harness was written.
// kubectl-validate's main package is its module root.
var (
	Kubeconform     = Peer{"kubeconform", "github.com/yannh/kubeconform", "github.com/yannh/kubeconform/cmd/kubeconform", "v0.8.0"}
	KubectlValidate = Peer{"kubectl-validate", "sigs.k8s.io/kubectl-validate", "sigs.k8s.io/kubectl-validate", "v0.0.4"}
)

// EnsurePeer installs p into toolDir unless the binary there was already
// built from p.Module at p.Version (read from its embedded build info, so a
// stale or foreign binary is replaced). It returns the binary's path.
func EnsurePeer(ctx context.Context, toolDir string, p Peer, log io.Writer) (string, error) {
	abs, err := filepath.Abs(toolDir)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(abs, p.Name)
	if v, err := moduleVersion(ctx, bin, p.Module); err == nil && v == p.Version {
		return bin, nil
	}
	fmt.Fprintf(log, "installing %s@%s into %s (first run only; kubectl-validate takes a few minutes to compile)\n", p.Package, p.Version, toolDir)
	cmd := exec.CommandContext(ctx, "go", "install", p.Package+"@"+p.Version)
	cmd.Env = append(os.Environ(), "GOBIN="+abs, "GOFLAGS=-trimpath")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go install %s@%s: %w", p.Package, p.Version, err)
	}
	return bin, nil
}

// moduleVersion reads the version of module mod from bin's build info.
func moduleVersion(ctx context.Context, bin, mod string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "version", "-m", bin).Output()
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "mod" && f[1] == mod {
			return f[2], nil
		}
	}
	return "", fmt.Errorf("%s: no module %s in its build info", bin, mod)
}

// BuildLocal builds ./cmd/kubectl-crdlint of the repository in the current
// directory into toolDir, as `make build` does, and the harness's
// ./hack/benchexec. It returns their paths and the commit crdlint was
// built from.
func BuildLocal(ctx context.Context, toolDir string, log io.Writer) (crdlint, benchexec, commit string, err error) {
	abs, err := filepath.Abs(toolDir)
	if err != nil {
		return "", "", "", err
	}
	crdlint, benchexec = filepath.Join(abs, "kubectl-crdlint"), filepath.Join(abs, "benchexec")
	for bin, pkg := range map[string]string{crdlint: "./cmd/kubectl-crdlint", benchexec: "./hack/benchexec"} {
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return "", "", "", fmt.Errorf("go build %s: %w", pkg, err)
		}
	}
	out, err := exec.CommandContext(ctx, "git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return crdlint, benchexec, "unknown", nil
	}
	return crdlint, benchexec, string(bytes.TrimSpace(out)), nil
}
