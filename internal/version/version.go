// Package version reports the version of the kubectl-crdlint binary.
//
// Release builds set Version, Commit and Date through the linker, e.g.
//
//	go build -ldflags "-X github.com/kubectl-crdlint/kubectl-crdlint/internal/version.Version=0.1.0 ..."
//
// (see .goreleaser.yaml). Builds that do not set them, such as
// `go install ...@v0.1.0` or a plain `go build` in a git checkout, fall back
// to the information the Go toolchain stamps into the binary.
package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// Set through -ldflags -X at release time.
var (
	// Version is the release version, e.g. "0.1.0" or "v0.1.0".
	Version = "dev"
	// Commit is the git commit the binary was built from.
	Commit = ""
	// Date is the build date, preferably in RFC 3339 format.
	Date = ""
)

// Info describes the running binary.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Get returns the version information of the running binary, filling in
// whatever the linker flags left unset from the module build information.
func Get() Info {
	bi, _ := debug.ReadBuildInfo() // nil when the binary has no build info
	return get(Version, Commit, Date, bi)
}

func get(version, commit, date string, bi *debug.BuildInfo) Info {
	info := Info{
		Version:   version,
		Commit:    commit,
		Date:      date,
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
	}
	if bi != nil {
		if (info.Version == "" || info.Version == "dev") &&
			bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if info.Commit == "" {
					info.Commit = s.Value
				}
			case "vcs.time":
				if info.Date == "" {
					info.Date = s.Value
				}
			}
		}
		if bi.GoVersion != "" {
			info.GoVersion = bi.GoVersion
		}
	}
	if info.Version == "" {
		info.Version = "dev"
	}
	// goreleaser's {{.Version}} has no leading "v"; module versions do.
	if c := info.Version[0]; c >= '0' && c <= '9' {
		info.Version = "v" + info.Version
	}
	return info
}

// String renders the information on one line, e.g.
//
//	kubectl-crdlint v0.1.0 (commit abc1234, built 2026-11-22, go1.26.8 linux/amd64)
//
// Parts that are empty are left out.
func (i Info) String() string {
	var b strings.Builder
	b.WriteString("kubectl-crdlint")
	if i.Version != "" {
		b.WriteString(" ")
		b.WriteString(i.Version)
	}

	var parts []string
	if i.Commit != "" {
		parts = append(parts, "commit "+shortCommit(i.Commit))
	}
	if i.Date != "" {
		parts = append(parts, "built "+shortDate(i.Date))
	}
	if rt := strings.TrimSpace(i.GoVersion + " " + i.Platform); rt != "" {
		parts = append(parts, rt)
	}
	if len(parts) > 0 {
		b.WriteString(" (")
		b.WriteString(strings.Join(parts, ", "))
		b.WriteString(")")
	}
	return b.String()
}

// shortCommit abbreviates a full hexadecimal commit hash to 7 characters.
func shortCommit(c string) string {
	if len(c) <= 7 {
		return c
	}
	for _, r := range c {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return c // not a plain hash: leave it as it is
		}
	}
	return c[:7]
}

// shortDate reduces an RFC 3339 timestamp to its date; other formats are
// returned unchanged.
func shortDate(d string) string {
	if t, err := time.Parse(time.RFC3339, d); err == nil {
		return t.UTC().Format(time.DateOnly)
	}
	return d
}
