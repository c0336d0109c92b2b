package kubeminor

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestBuildString(t *testing.T) {
	set := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	release := "-s -w -X github.com/kubectl-crdlint/kubectl-crdlint/internal/version.Version=0.9.0 -X github.com/kubectl-crdlint/kubectl-crdlint/internal/version.Commit=abc"
	for _, tt := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"a release (goreleaser's -X)", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: set("-ldflags", release, "-tags", "k8s1.33", "vcs.revision", "abc", "vcs.modified", "false")}, "0.9.0 abc"},
		{"go install @version", debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}}, "v0.9.0"},
		{"a clone, modified", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: set("vcs.revision", "def", "vcs.modified", "true")}, "dev def+modified"},
		{"a test binary: nothing to tell", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, ""},
	} {
		if got := buildString(&tt.bi); got != tt.want {
			t.Errorf("%s: buildString = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// An engine of another build beside the binary is not used: it would
// judge with other code than the user runs.
func TestFindEngineOfAnotherBuild(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EngineDirEnv, dir)
	p := filepath.Join(dir, EngineName("1.33"))
	if err := os.WriteFile(p, []byte("engine"), 0o755); err != nil {
		t.Fatal(err)
	}
	own, of := ownBuild, buildOf
	t.Cleanup(func() { ownBuild, buildOf = own, of })
	ownBuild = func() string { return "0.9.0 abc" }
	for _, tt := range []struct {
		engine, wantErr string
	}{
		{"0.9.0 abc", ""},
		{"", ""}, // it does not say: used
		{"0.8.0 012", "is of another build of kubectl-crdlint (0.8.0 012) than this one (0.9.0 abc)"},
		{"dev abc", ""}, // the same commit, built with -trimpath (no -ldflags recorded)
		{"v0.9.0", ""},  // go install @version: a version only, nothing to compare with a commit
	} {
		buildOf = func(string) string { return tt.engine }
		got, err := FindEngine("1.33", "", nil)
		if tt.wantErr == "" {
			if err != nil || got != p {
				t.Errorf("engine of build %q: %q, %v; want %s", tt.engine, got, err, p)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("engine of build %q: %q, %v; want an error saying %q", tt.engine, got, err, tt.wantErr)
		}
	}
}
