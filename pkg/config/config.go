package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/remote"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/source"
)

// FileNames are the names Find looks for, in order of preference.
var FileNames = []string{".crdlint.yaml", ".crdlint.yml"}

// RuleInvalid is the rule of every finding about the configuration file.
const RuleInvalid = "config-invalid"

// Rules is what this package adds to the rule set.
var Rules = []report.Rule{
	{ID: RuleInvalid, Severity: report.Error, Doc: "The .crdlint.yaml configuration has an unknown key, a value of the wrong type or an invalid value; the run ignores that entry and uses the rest.",
		Why: "crdlint reads .crdlint.yaml strictly, so that a typo does not silently do nothing: a misspelt key (`rule:` for `rules:`), a rule ID that does not exist, or a value of the wrong type would otherwise leave the run checking something else than the file says. The entry is ignored and the rest of the file applies, and the finding fails the run.",
		Fix: "Correct the entry at the reported line: the message names the key and what it accepts. `kubectl crdlint config view` prints the settings a run resolves, and `kubectl crdlint check --list-rules` the rule IDs.",
	},
}

// Level is what the configuration asks of a rule.
type Level string

const (
	LevelError   Level = "error"
	LevelWarning Level = "warning"
	LevelOff     Level = "off"
)

// MissingCRDs is what to do with a custom resource whose CRD is not
// found (rule cr-no-crd).
type MissingCRDs string

const (
	MissingError  MissingCRDs = "error" // the default, as the server answers 404
	MissingWarn   MissingCRDs = "warn"
	MissingIgnore MissingCRDs = "ignore" // cr-no-crd off
)

// RuleNoCRD is the rule missingCRDs controls. It is the lint package's
// ID (this package does not import lint); a test checks that it exists.
const RuleNoCRD = "cr-no-crd"

// Config is one .crdlint.yaml as written, with the entries that failed
// validation left out. Unset scalars are nil or "", so that precedence
// (flags > configuration > defaults) can tell "not said" from "said
// false".
type Config struct {
	// Path is the file as found or given (relative paths stay relative).
	Path string
	// Dir is the directory relative paths in the file are resolved
	// against: Path's directory, in the same form.
	Dir string

	CRDs    []CRDEntry
	Exclude []string // gitignore-style patterns relative to Dir
	// ConfigKinds are the kinds of tool configuration beyond the
	// well-known ones that no API server serves, as ParseConfigKind reads
	// them (Kind "*" for every kind of a group).
	ConfigKinds []schema.GroupKind
	// Validate is validate: ("" when not said); Strict is the older
	// strict: key, which stands for validate: strict (true) or warn
	// (false) when validate: is not said.
	Validate    fieldvalidation.Directive
	Strict      *bool
	FailOn      *report.Severity
	MissingCRDs MissingCRDs
	// Rules are the file's rules: entries, in file order.
	Rules []RuleLevel
	// Overrides apply in order: later entries win.
	Overrides []Override
	// Baseline is the baseline file, as written (relative to Dir).
	Baseline string
	// KubernetesVersions are the minors of kubernetesVersion: or
	// kubernetesVersions: (kubeminor.Parse), oldest first; nil when not
	// said (the newest).
	KubernetesVersions []string
	// Tests are where kubectl crdlint test finds its suites (files and
	// directories), joined with Dir.
	Tests []string

	exclude  *Patterns
	defaults map[string]report.Severity
}

// CRDEntry is one crds: entry.
type CRDEntry struct {
	// Value is the entry as written.
	Value string
	// URL is the parsed entry when it is a URL (then Path is "").
	URL *remote.Source
	// Path is a local entry joined with Config.Dir (a file, a directory or
	// a glob).
	Path string
	// Glob says Path has wildcards; ExpandCRDs expands it.
	Glob bool
	Pos  source.Pos
	glob Pattern
	// base is what the entry is relative to (Config.Dir, or the file
	// system's root for an absolute path), rel the entry relative to it.
	base, rel string
}

// configPath resolves a path the configuration names: an absolute one
// as given, a relative one against dir (the file's directory). base is
// what it is relative to and rel the path relative to base, slash-
// separated, for globs.
func configPath(dir, value string) (p, base, rel string) {
	if filepath.IsAbs(value) {
		vol := filepath.VolumeName(value)
		base = vol + string(filepath.Separator)
		rel = strings.TrimLeft(filepath.ToSlash(value[len(vol):]), "/")
		return filepath.Clean(value), base, rel
	}
	return filepath.Join(dir, filepath.FromSlash(value)), dir, value
}

// RuleLevel is one rule's level in rules: or in an override.
type RuleLevel struct {
	Rule  string
	Level Level
}

// Override is one overrides: entry.
type Override struct {
	Files []string
	Rules []RuleLevel
	files *Patterns
}

// Find looks for a configuration file in dir, then in each parent
// directory, stopping after the repository root (a directory holding
// .git, file or directory) or the file system's root. It returns "" and
// no error when there is none. The path is dir joined with what it found
// ("../../.crdlint.yaml" for dir "."), so that it reads as the user's
// paths do.
func Find(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	cur := dir
	for {
		found := ""
		for _, name := range FileNames {
			p := filepath.Join(cur, name)
			st, err := os.Stat(p)
			switch {
			case err == nil && !st.IsDir():
				if found != "" {
					return "", &source.InputError{Err: fmt.Errorf("both %s and %s exist: keep one", found, p)}
				}
				found = p
			case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission):
				return "", &source.InputError{Err: fmt.Errorf("look for %s: %w", p, err)}
			}
		}
		if found != "" {
			return found, nil
		}
		if _, err := os.Lstat(filepath.Join(abs, ".git")); err == nil {
			return "", nil
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return "", nil
		}
		abs, cur = parent, filepath.Join(cur, "..")
	}
}

// Load reads and parses a configuration file. The error is for a file
// that cannot be read (*source.InputError: exit 2); everything wrong
// inside it is a finding. rules is the rule set, against which rule
// IDs and levels are checked.
func Load(path string, rules []report.Rule) (*Config, []report.Finding, error) {
	data, err := source.ReadBytes(path)
	if err != nil {
		return nil, nil, err
	}
	c, fs := Parse(path, data, rules)
	return c, fs, nil
}

// Open is what a command does with --config and --no-config: no file
// with noConfig; file (which must exist) when given; otherwise the file
// Find finds from the working directory, or none. Without a file it
// returns Default. Errors are *source.InputError (exit 2).
func Open(file string, noConfig bool, rules []report.Rule) (*Config, []report.Finding, error) {
	if noConfig {
		if file != "" {
			return nil, nil, &source.InputError{Err: errors.New("--config and --no-config contradict each other")}
		}
		return Default(rules), nil, nil
	}
	if file == "" {
		found, err := Find(".")
		if err != nil {
			return nil, nil, err
		}
		if found == "" {
			return Default(rules), nil, nil
		}
		file = found
	}
	return Load(file, rules)
}

// Default returns the configuration used without a file: nothing set.
func Default(rules []report.Rule) *Config {
	c := &Config{Dir: "."}
	c.setCatalogue(rules)
	return c
}

func (c *Config) setCatalogue(rules []report.Rule) {
	c.defaults = make(map[string]report.Severity, len(rules))
	for _, r := range rules {
		c.defaults[r.ID] = r.Severity
	}
}

// Excluded reports whether path (relative to the working directory, or
// absolute) is excluded by the file's exclude: patterns.
func (c *Config) Excluded(path string, isDir bool) bool {
	return c.exclude.Match(path, isDir)
}

// RuleSeverity is the file's verdict on rule for file: its severity, or
// off. It applies, in order, missingCRDs (for cr-no-crd), rules: and each
// overrides: entry whose files: match file; the last one that names the
// rule wins. Without any, it is the catalogue's default. A rule the
// catalogue does not know is a warning. Settings.RuleSeverity adds the
// flags.
func (c *Config) RuleSeverity(rule, file string) (sev report.Severity, off bool) {
	return (&Settings{Config: c}).RuleSeverity(rule, file)
}
