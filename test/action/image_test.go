package action

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd  string // upper case
	args string
	line int
}

// readDockerfile splits a Dockerfile into instructions: enough of the
// syntax for a file without heredocs or parser directives other than
// comments.
func readDockerfile(t *testing.T, name string) []instruction {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var (
		out  []instruction
		cur  strings.Builder
		from int
	)
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if cur.Len() == 0 && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if cur.Len() == 0 {
			from = n
		}
		if strings.HasSuffix(line, `\`) {
			cur.WriteString(strings.TrimSuffix(line, `\`) + " ")
			continue
		}
		cur.WriteString(line)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args), line: from})
		cur.Reset()
	}
	if cur.Len() > 0 {
		t.Fatalf("%s: ends in a continuation line", name)
	}
	return out
}

// goreleaserConfig is the part of .goreleaser.yaml the image depends on.
type goreleaserConfig struct {
	Builds []struct {
		ID     string   `yaml:"id"`
		Binary string   `yaml:"binary"`
		Env    []string `yaml:"env"`
		Flags  []string `yaml:"flags"`
		Goos   []string `yaml:"goos"`
		Goarch []string `yaml:"goarch"`
	} `yaml:"builds"`
	DockersV2 []struct {
		ID          string            `yaml:"id"`
		IDs         []string          `yaml:"ids"`
		Dockerfile  string            `yaml:"dockerfile"`
		Images      []string          `yaml:"images"`
		Tags        []string          `yaml:"tags"`
		Platforms   []string          `yaml:"platforms"`
		ExtraFiles  []string          `yaml:"extra_files"`
		Labels      map[string]string `yaml:"labels"`
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"dockers_v2"`
}

// TestContainerImage checks the image definition statically, since no
// docker runs here: a static binary on distroless (or scratch), run as a
// non-root user from /work, built for linux/amd64 and linux/arm64 from the
// release's own builds, published to ghcr.io with OCI labels.
// `goreleaser check` validates the rest of the schema (make dist).
func TestContainerImage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg goreleaserConfig
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if len(cfg.DockersV2) != 1 {
		t.Fatalf("dockers_v2 has %d images, want 1", len(cfg.DockersV2))
	}
	img := cfg.DockersV2[0]

	// The binaries: static, trimmed, for every platform of the image.
	binaries := map[string]bool{}
	for _, id := range img.IDs {
		found := false
		for _, bld := range cfg.Builds {
			if bld.ID != id {
				continue
			}
			found = true
			binaries[bld.Binary] = true
			if !slices.Contains(bld.Env, "CGO_ENABLED=0") {
				t.Errorf("build %s: env %q lacks CGO_ENABLED=0: distroless static has no libc", id, bld.Env)
			}
			if !slices.Contains(bld.Flags, "-trimpath") {
				t.Errorf("build %s: flags %q lack -trimpath", id, bld.Flags)
			}
			for _, p := range img.Platforms {
				goos, goarch, _ := strings.Cut(p, "/")
				if !slices.Contains(bld.Goos, goos) || !slices.Contains(bld.Goarch, goarch) {
					t.Errorf("platform %s: build %s does not build %s/%s", p, id, goos, goarch)
				}
			}
		}
		if !found {
			t.Errorf("dockers_v2 ids: no build has id %q", id)
		}
	}
	if len(img.IDs) == 0 {
		t.Errorf("dockers_v2 lists no build ids: every binary would land in the context")
	}
	for _, p := range []string{"linux/amd64", "linux/arm64"} {
		if !slices.Contains(img.Platforms, p) {
			t.Errorf("platforms %q lack %s", img.Platforms, p)
		}
	}
	if !slices.Contains(img.Images, "ghcr.io/kubectl-crdlint/kubectl-crdlint") {
		t.Errorf("images %q: want ghcr.io/kubectl-crdlint/kubectl-crdlint", img.Images)
	}
	if !slices.Contains(img.Tags, "{{ .Version }}") || !slices.ContainsFunc(img.Tags, func(s string) bool { return strings.Contains(s, "latest") }) {
		t.Errorf("tags %q: want {{ .Version }} and latest", img.Tags)
	}
	license, err := os.ReadFile(filepath.Join(repoRoot, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	wantLabels := map[string]string{
		"org.opencontainers.image.source":  "https://github.com/kubectl-crdlint/kubectl-crdlint",
		"org.opencontainers.image.version": "{{ .Version }}",
		"org.opencontainers.image.licenses": func() string {
			if bytes.Contains(license, []byte("Apache License")) && bytes.Contains(license, []byte("Version 2.0")) {
				return "Apache-2.0"
			}
			return "the LICENSE file's SPDX id"
		}(),
	}
	for k, want := range wantLabels {
		if got := img.Labels[k]; got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
		if got := img.Annotations[k]; got != want {
			t.Errorf("annotation %s = %q, want %q (the index is what the registry shows)", k, got, want)
		}
	}
	for _, f := range img.ExtraFiles {
		if _, err := os.Stat(filepath.Join(repoRoot, f)); err != nil {
			t.Errorf("extra_files: %v", err)
		}
	}

	// The Dockerfile, as buildx would read it in goreleaser's context:
	// <platform>/<binary> and the extra files.
	ins := readDockerfile(t, filepath.Join(repoRoot, img.Dockerfile))
	var (
		froms, runs []instruction
		user        *instruction
		workdir     string
		entrypoint  []string
		argAfter    bool
		copied      = map[string]string{} // destination -> source
	)
	for i := range ins {
		in := ins[i]
		switch in.cmd {
		case "FROM":
			froms = append(froms, in)
		case "ARG":
			argAfter = argAfter || (len(froms) > 0 && strings.HasPrefix(in.args, "TARGETPLATFORM"))
		case "RUN":
			runs = append(runs, in)
		case "USER":
			user = &ins[i]
		case "WORKDIR":
			workdir = in.args
		case "ENTRYPOINT":
			if err := json.Unmarshal([]byte(in.args), &entrypoint); err != nil {
				t.Errorf("line %d: ENTRYPOINT %s is not the exec (JSON) form: signals would go to a shell that is not there", in.line, in.args)
			}
		case "COPY":
			f := strings.Fields(in.args)
			if len(f) != 2 || strings.HasPrefix(f[0], "--") {
				t.Errorf("line %d: COPY %s: want one source and one destination", in.line, in.args)
				continue
			}
			copied[f[1]] = f[0]
		}
	}
	if len(froms) != 1 {
		t.Fatalf("%d FROM lines, want 1: the binary is built by goreleaser, not in the image", len(froms))
	}
	base := strings.Fields(froms[0].args)[0]
	if !strings.HasPrefix(base, "gcr.io/distroless/static") && base != "scratch" {
		t.Errorf("base %s: want distroless static or scratch", base)
	}
	if len(runs) > 0 {
		t.Errorf("line %d: RUN: the base has no shell, and arm64 would need QEMU", runs[0].line)
	}
	if !argAfter {
		t.Errorf("no ARG TARGETPLATFORM after FROM: $TARGETPLATFORM would be empty in COPY")
	}
	if user == nil {
		t.Errorf("no USER: the image would run as whatever the base says")
	} else {
		uid, _, _ := strings.Cut(user.args, ":")
		// Numeric, so that Kubernetes' runAsNonRoot can check it.
		if n, err := strconv.Atoi(uid); err != nil || n == 0 {
			t.Errorf("line %d: USER %s: want a numeric non-root uid", user.line, user.args)
		}
	}
	if workdir != "/work" {
		t.Errorf("WORKDIR %q, want /work: the README mounts the repository there", workdir)
	}
	if len(entrypoint) != 1 || path.Base(entrypoint[0]) != "kubectl-crdlint" {
		t.Fatalf("ENTRYPOINT %q, want the kubectl-crdlint binary alone (arguments are the command's)", entrypoint)
	}
	src, ok := copied[entrypoint[0]]
	if !ok {
		t.Fatalf("ENTRYPOINT %s: no COPY puts a file there", entrypoint[0])
	}
	platform, name, _ := strings.Cut(src, "/")
	if platform != "$TARGETPLATFORM" && platform != "${TARGETPLATFORM}" || !binaries[name] {
		t.Errorf("COPY %s: want $TARGETPLATFORM/<binary> with a binary of the builds %v", src, binaries)
	}
	for dst, src := range copied {
		// The older Kubernetes minors' engines are binaries of the builds
		// too, beside the main one (docs/versions.md).
		if p, name, _ := strings.Cut(src, "/"); p == platform && binaries[name] && path.Dir(dst) == path.Dir(entrypoint[0]) {
			continue
		}
		if dst != entrypoint[0] && !slices.Contains(img.ExtraFiles, src) {
			t.Errorf("COPY %s %s: not in extra_files, so not in the build context", src, dst)
		}
	}
}

// TestReleaseWorkflowPushesImage checks that the release job can push what
// dockers_v2 builds: buildx, a ghcr.io login and packages: write.
func TestReleaseWorkflowPushesImage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, ".github", "workflows", "release.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	if wf.Permissions["packages"] != "write" {
		t.Errorf("permissions.packages = %q, want write to push to ghcr.io", wf.Permissions["packages"])
	}
	order := map[string]int{}
	for i, s := range wf.Jobs["goreleaser"].Steps {
		name, _, _ := strings.Cut(s.Uses, "@")
		order[name] = i + 1
		if name == "docker/login-action" && s.With["registry"] != "ghcr.io" {
			t.Errorf("docker/login-action registry %q, want ghcr.io", s.With["registry"])
		}
	}
	g := order["goreleaser/goreleaser-action"]
	for _, before := range []string{"docker/setup-buildx-action", "docker/login-action"} {
		if order[before] == 0 || order[before] > g {
			t.Errorf("%s does not run before goreleaser", before)
		}
	}
}
