package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestInfoString(t *testing.T) {
	tests := []struct {
		name string
		info Info
		want string
	}{
		{
			name: "all fields",
			info: Info{
				Version:   "v0.1.0",
				Commit:    "abc1234def5678901234567890abcdef12345678",
				Date:      "2026-11-22T07:36:00Z",
				GoVersion: "go1.26.8",
				Platform:  "linux/amd64",
			},
			want: "kubectl-crdlint v0.1.0 (commit abc1234, built 2026-11-22, go1.26.8 linux/amd64)",
		},
		{
			name: "short commit and non-RFC3339 date kept as is",
			info: Info{Version: "v0.1.0", Commit: "abc1234", Date: "2026-11-22", GoVersion: "go1.26.8", Platform: "linux/amd64"},
			want: "kubectl-crdlint v0.1.0 (commit abc1234, built 2026-11-22, go1.26.8 linux/amd64)",
		},
		{
			name: "dev build without vcs info",
			info: Info{Version: "dev", GoVersion: "go1.26.8", Platform: "darwin/arm64"},
			want: "kubectl-crdlint dev (go1.26.8 darwin/arm64)",
		},
		{
			name: "commit only",
			info: Info{Version: "dev", Commit: "0123456789abcdef"},
			want: "kubectl-crdlint dev (commit 0123456)",
		},
		{
			name: "date converted to UTC",
			info: Info{Version: "v1.2.3", Date: "2026-11-23T01:00:00+02:00", Platform: "windows/amd64"},
			want: "kubectl-crdlint v1.2.3 (built 2026-11-22, windows/amd64)",
		},
		{
			name: "empty",
			info: Info{},
			want: "kubectl-crdlint",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.info.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestGet(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/kubectl-crdlint/kubectl-crdlint", Version: "v0.2.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "fedcba9876543210"},
			{Key: "vcs.time", Value: "2026-11-01T00:00:00Z"},
		},
	}
	platform := runtime.GOOS + "/" + runtime.GOARCH

	tests := []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  Info
	}{
		{
			name:    "ldflags win over build info",
			version: "0.1.0", commit: "abc1234", date: "2026-11-22T07:36:00Z",
			bi:   bi,
			want: Info{Version: "v0.1.0", Commit: "abc1234", Date: "2026-11-22T07:36:00Z", GoVersion: "go1.26.8", Platform: platform},
		},
		{
			name:    "build info fills unset fields",
			version: "dev",
			bi:      bi,
			want:    Info{Version: "v0.2.0", Commit: "fedcba9876543210", Date: "2026-11-01T00:00:00Z", GoVersion: "go1.26.8", Platform: platform},
		},
		{
			name:    "devel main module keeps dev",
			version: "dev",
			bi:      &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			want:    Info{Version: "dev", GoVersion: runtime.Version(), Platform: platform},
		},
		{
			name:    "no build info",
			version: "",
			want:    Info{Version: "dev", GoVersion: runtime.Version(), Platform: platform},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := get(tt.version, tt.commit, tt.date, tt.bi); got != tt.want {
				t.Errorf("get() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestGetCurrent(t *testing.T) {
	info := Get()
	if info.Version == "" || info.GoVersion == "" || info.Platform == "" {
		t.Fatalf("Get() left fields empty: %+v", info)
	}
	if s := info.String(); !strings.HasPrefix(s, "kubectl-crdlint ") {
		t.Errorf("String() = %q, want prefix %q", s, "kubectl-crdlint ")
	}
}
