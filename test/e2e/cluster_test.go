package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/apiservertest"

	// The binary under test is built with go build, which the test cache
	// cannot see: importing its packages makes a change to them invalidate
	// cached results of these tests.
	_ "github.com/kubectl-crdlint/kubectl-crdlint/cmd/kubectl-crdlint/cmd"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binary builds cmd/kubectl-crdlint once per test run, as a user would get
// it from `make build`: the tests run that file, not this test binary.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "crdlint-e2e-bin")
		if buildErr != nil {
			return
		}
		name := "kubectl-crdlint"
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, name), "../../cmd/kubectl-crdlint")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "kubectl-crdlint")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// The users of the test cluster besides the admin.
const (
	viewer      = "viewer" // may not list widgets
	viewerToken = "viewer-secret-token-0123456789"
)

// testCluster is the shared test cluster: the example Widget CRD, a CRD the
// server accepts with warnings, and widgets in two namespaces.
func testCluster(t *testing.T) *apiservertest.Server {
	srv := apiservertest.Start(t, apiservertest.Options{
		Users: []apiservertest.User{{Name: viewer, Token: viewerToken}},
		Deny:  []apiservertest.Rule{{User: viewer, Verb: "list", Group: "example.com", Resource: "widgets"}},
	})
	for _, f := range []string{"../../examples/valid/widget-crd.yaml", "../../examples/invalid/warnings-only.yaml"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srv.ApplyCRD(t, b)
	}
	objects, err := os.ReadFile("testdata/cluster-objects.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range bytes.Split(objects, []byte("\n---\n")) {
		srv.Create(t, doc)
	}
	return srv
}

// hangingServer accepts connections and never answers: a request timeout.
func hangingServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "https://" + ln.Addr().String()
}

// TestClusterScripts runs testdata/cluster/*.txtar against one cluster.
// Their command `crdlint EXIT ARGS...` runs the built binary and checks
// its exit code, that no credential of the cluster appears in its output,
// and that an error (exit 2) is one line without a stack trace.
func TestClusterScripts(t *testing.T) {
	bin := binary(t)
	srv := testCluster(t)
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	admin := srv.Kubeconfig(t, apiservertest.AdminUser)
	bad := srv.KubeconfigFor(apiservertest.AdminUser)
	bad.Token = "not-the-right-token"
	badToken := bad.Write(t)
	wrongCA := srv.KubeconfigFor(apiservertest.AdminUser)
	wrongCA.CAData = apiservertest.OtherCA()
	hang := srv.KubeconfigFor(apiservertest.AdminUser)
	hang.Server = hangingServer(t)
	secrets := []string{srv.Tokens[apiservertest.AdminUser], viewerToken, "not-the-right-token"}

	testscript.Run(t, testscript.Params{
		Dir: "testdata/cluster",
		Setup: func(e *testscript.Env) error {
			e.Setenv("EXAMPLES", examples)
			e.Setenv("NO_COLOR", "1")
			e.Setenv("KUBECONFIG", admin)
			e.Setenv("ADMIN_KUBECONFIG", admin)
			e.Setenv("VIEWER_KUBECONFIG", srv.Kubeconfig(t, viewer))
			e.Setenv("BAD_TOKEN_KUBECONFIG", badToken)
			e.Setenv("WRONG_CA_KUBECONFIG", wrongCA.Write(t))
			e.Setenv("HANGING_KUBECONFIG", hang.Write(t))
			e.Setenv("SERVER", srv.URL)
			e.Setenv("HOME", e.WorkDir) // nothing may be written there
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"crdlint": func(ts *testscript.TestScript, neg bool, args []string) {
				runCrdlint(ts, neg, args, bin, secrets)
			},
		},
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") != "",
	})
}

func runCrdlint(ts *testscript.TestScript, neg bool, args []string, bin string, secrets []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: crdlint EXIT-CODE ARGS...")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("crdlint: exit code %q: %v", args[0], err)
	}
	err = ts.Exec(bin, args[1:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("crdlint: %v", err)
	}
	stdout, stderr := ts.ReadFile("stdout"), ts.ReadFile("stderr")
	if got != want {
		ts.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", got, want, stdout, stderr)
	}
	for _, s := range secrets {
		if strings.Contains(stdout+stderr, s) {
			ts.Fatalf("a credential appears in the output")
		}
	}
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
		ts.Fatalf("stack trace on stderr:\n%s", stderr)
	}
	if want == 2 {
		// One line; usage errors may add kubectl's pointer to --help.
		n := lines(stderr)
		if n == 2 && strings.Contains(stderr, "\nSee '") {
			n = 1
		}
		if n != 1 || !strings.HasPrefix(stderr, "error: ") {
			ts.Fatalf("want one line \"error: ...\" on stderr, got %d lines:\n%s", n, stderr)
		}
	}
}

func lines(s string) int {
	n := 0
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		n++
	}
	return n
}

// TestStoppedServer: a cluster that was there and is gone is a one-line
// error, exit 2, for every command with a cluster source.
func TestStoppedServer(t *testing.T) {
	bin := binary(t)
	srv := apiservertest.Start(t, apiservertest.Options{})
	kubeconfig := srv.Kubeconfig(t, apiservertest.AdminUser)
	srv.Stop()
	dir := t.TempDir()
	crd, err := filepath.Abs("../../examples/valid/widget-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crs := filepath.Join(dir, "widgets.yaml")
	if err := os.WriteFile(crs, []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a}\nspec: {color: red}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
	}{
		{"check --live", []string{"check", "--live", "crds"}},
		{"check --crd-from-cluster", []string{"check", "--crd-from-cluster", crs}},
		{"prune --live", []string{"prune", "--dry-run", "--live", "widgets.example.com", "-A"}},
		{"immutable --live", []string{"immutable", "--live", crs}},
		{"upgrade --live", []string{"upgrade", "--live", crd}},
		{"fields --live", []string{"fields", "--live", "crd/widgets.example.com"}},
	}
	want := fmt.Sprintf("error: cannot reach the API server at %s: connection refused (is the cluster running, and --server or the kubeconfig right?)\n", srv.URL)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("got %v, want exit code 2", err)
			}
			if got := stderr.String(); got != want {
				t.Errorf("got stderr %q, want %q", got, want)
			}
			if stdout.Len() > 0 {
				t.Errorf("got stdout %q, want none", stdout.String())
			}
		})
	}
}

// TestKubectlPlugin runs the binary the way users do: through kubectl,
// which finds kubectl-crdlint on PATH.
func TestKubectlPlugin(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH: the plugin test needs a kubectl binary")
	}
	bin := binary(t)
	cmd := exec.Command(kubectl, "crdlint", "version")
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl crdlint version: %v\n%s", err, out)
	}
	// What `kubectl-crdlint version` prints when run directly: kubectl
	// must have run this binary, not something else named like it.
	direct, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(direct) || !strings.HasPrefix(string(out), "kubectl-crdlint ") {
		t.Errorf("kubectl crdlint version printed %q, the binary itself %q", out, direct)
	}
	t.Logf("kubectl crdlint version: %s", strings.TrimSpace(string(out)))
}

// TestREADMEClusterOutput keeps the live output pasted into README.md
// true: it must be what the live_new_revision script pins.
func TestREADMEClusterOutput(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/cluster/live_new_revision.txtar")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "want.txt" && !bytes.Contains(readme, f.Data) {
			t.Errorf("README.md does not contain the output pinned in live_new_revision.txtar; paste:\n%s", f.Data)
		}
	}
}
