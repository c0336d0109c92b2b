package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	yaml "go.yaml.in/yaml/v3"
)

// section is the text of README.md from the heading start to the next
// heading of the same or a higher level (outside code blocks, where "# "
// starts a comment); a missing heading fails.
func section(t *testing.T, readme, start string) string {
	t.Helper()
	i := strings.Index(readme, "\n"+start+"\n")
	if i < 0 {
		t.Fatalf("README.md has no %q heading", start)
	}
	level := strings.Index(start, " ") // the number of #
	heading := regexp.MustCompile(fmt.Sprintf("^#{1,%d} ", level))
	lines := strings.SplitAfter(readme[i+len(start)+2:], "\n")
	inCode := false
	for j, l := range lines {
		if strings.HasPrefix(l, "```") {
			inCode = !inCode
		}
		if !inCode && heading.MatchString(l) {
			lines = lines[:j]
			break
		}
	}
	return strings.Join(lines, "")
}

// fenced returns the contents of the ```LANG blocks of text.
func fenced(text, lang string) []string {
	var out []string
	for {
		i := strings.Index(text, "```"+lang+"\n")
		if i < 0 {
			return out
		}
		text = text[i+len(lang)+4:]
		j := strings.Index(text, "```")
		if j < 0 {
			return out
		}
		out = append(out, text[:j])
		text = text[j+3:]
	}
}

// TestREADMEConfiguration keeps README.md's Configuration section and
// pre-commit recipe true: every kubectl crdlint command in their shell
// blocks is run, with exactly those arguments, by a script of
// testdata/script (with the real binary); the complete .crdlint.yaml is
// the one config.txtar checks and uses; the pre-commit recipe names hooks
// that .pre-commit-hooks.yaml has.
func TestREADMEConfiguration(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	conf := section(t, readme, "## Configuration")
	precommit := section(t, readme, "### pre-commit")

	var scriptLines []string
	scripts, err := filepath.Glob(filepath.Join("testdata", "script", "*.txtar"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts (%v)", err)
	}
	var configScript *txtar.Archive
	for _, s := range scripts {
		ar, err := txtar.ParseFile(s)
		if err != nil {
			t.Fatal(err)
		}
		scriptLines = append(scriptLines, strings.Split(string(ar.Comment), "\n")...)
		if filepath.Base(s) == "config.txtar" {
			configScript = ar
		}
	}

	comment := regexp.MustCompile(`\s+#.*$`)
	n := 0
	for _, block := range fenced(conf+precommit, "sh") {
		for _, line := range strings.Split(block, "\n") {
			args, ok := strings.CutPrefix(line, "kubectl crdlint ")
			if !ok {
				continue
			}
			n++
			args = comment.ReplaceAllString(args, "")
			run := regexp.MustCompile(`^(! )?(exec|exits \d+) kubectl-crdlint ` + regexp.QuoteMeta(args) + `$`)
			found := false
			for _, l := range scriptLines {
				found = found || run.MatchString(strings.TrimSpace(l))
			}
			if !found {
				t.Errorf("README.md shows `kubectl crdlint %s`, which no script of testdata/script runs (exec kubectl-crdlint %s)", args, args)
			}
		}
	}
	if n < 6 {
		t.Errorf("found %d kubectl crdlint commands in README.md's Configuration and pre-commit sections, want at least 6: has the layout changed?", n)
	}

	// The complete .crdlint.yaml.
	var complete string
	for _, block := range fenced(conf, "yaml") {
		if strings.HasPrefix(block, "# .crdlint.yaml, at the repository's root\n") {
			complete = block
		}
	}
	if complete == "" {
		t.Fatal("README.md's Configuration section has no complete .crdlint.yaml")
	}
	if configScript == nil {
		t.Fatal("no testdata/script/config.txtar")
	}
	var inScript string
	for _, f := range configScript.Files {
		if f.Name == "readme.crdlint.yaml" {
			inScript = string(f.Data)
		}
	}
	if inScript != complete {
		t.Errorf("README.md's complete .crdlint.yaml differs from readme.crdlint.yaml of testdata/script/config.txtar; README.md has:\n%s", complete)
	}

	// The pre-commit recipe's hooks.
	hooksData, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []hook
	if err := yaml.Unmarshal(hooksData, &hooks); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, h := range hooks {
		ids[h.ID] = true
	}
	used := 0
	for _, block := range fenced(precommit, "yaml") {
		var cfg struct {
			Repos []struct {
				Hooks []struct {
					ID string `yaml:"id"`
				} `yaml:"hooks"`
			} `yaml:"repos"`
		}
		if yaml.Unmarshal([]byte(block), &cfg) != nil {
			continue
		}
		for _, r := range cfg.Repos {
			for _, h := range r.Hooks {
				used++
				if !ids[h.ID] {
					t.Errorf("README.md's pre-commit recipe uses hook %q, which .pre-commit-hooks.yaml does not have", h.ID)
				}
			}
		}
	}
	if used == 0 {
		t.Error("README.md's pre-commit recipe names no hook")
	}
}
