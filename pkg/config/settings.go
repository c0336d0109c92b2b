package config

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/kubeminor"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/remote"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// Flag names FlagsFrom reads; a command that lacks one simply never sets
// the corresponding field.
const (
	FlagValidate    = "validate"
	FlagStrict      = "strict"
	FlagFailOn      = "fail-on"
	FlagRequireCRDs = "require-crds"
	FlagMissingCRDs = "missing-crds"
	FlagDisable     = "disable"
	FlagExclude     = "exclude"
	FlagCRD         = "crd"
	FlagBaseline    = "baseline"
	// FlagKubernetesVersion is --kubernetes-version: the minors to judge as.
	FlagKubernetesVersion = "kubernetes-version"
)

// Flags are the command-line values that take precedence over the
// configuration file. A nil pointer or an empty list means the flag was
// not given, which is not the same as given with its default value.
type Flags struct {
	// Validate is --validate; Strict the older --strict, which stands for
	// --validate=strict (and --strict=false for --validate=warn).
	Validate    *fieldvalidation.Directive
	Strict      *bool
	FailOn      *report.Severity
	RequireCRDs *bool
	MissingCRDs *MissingCRDs
	// Disable, Exclude and CRDs add to the file's rules (off), exclude and
	// crds; values may be comma-separated for Disable.
	Disable  []string
	Exclude  []string
	CRDs     []string
	Baseline *string
	// KubernetesVersions are --kubernetes-version's minors.
	KubernetesVersions []string
}

// FlagsFrom reads the flags of fs that the user set (pflag's Changed), so
// that a flag left at its default does not override the file.
func FlagsFrom(fs *pflag.FlagSet) (Flags, error) {
	var f Flags
	set := func(name string) *pflag.Flag {
		if fl := fs.Lookup(name); fl != nil && fl.Changed {
			return fl
		}
		return nil
	}
	boolean := func(name string) (*bool, error) {
		fl := set(name)
		if fl == nil {
			return nil, nil
		}
		b, err := fs.GetBool(name)
		if err != nil {
			return nil, err
		}
		return &b, nil
	}
	list := func(name string) []string {
		fl := set(name)
		if fl == nil {
			return nil
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			return sv.GetSlice()
		}
		return []string{fl.Value.String()}
	}
	var err error
	if f.Strict, err = boolean(FlagStrict); err != nil {
		return f, err
	}
	if fl := set(FlagValidate); fl != nil {
		d, err := fieldvalidation.Parse(fl.Value.String())
		if err != nil {
			return f, fmt.Errorf("--%s: %w", FlagValidate, err)
		}
		f.Validate = &d
		if f.Strict != nil && fieldvalidation.Of(*f.Strict) != d {
			return f, fmt.Errorf("--%s=%t is --%s=%s, which contradicts --%s=%s: give one of them", FlagStrict, *f.Strict, FlagValidate, fieldvalidation.Of(*f.Strict), FlagValidate, d)
		}
	}
	if f.RequireCRDs, err = boolean(FlagRequireCRDs); err != nil {
		return f, err
	}
	if fl := set(FlagFailOn); fl != nil {
		sev, err := report.ParseSeverity(fl.Value.String())
		if err != nil {
			return f, fmt.Errorf("--%s: %w", FlagFailOn, err)
		}
		f.FailOn = &sev
	}
	if fl := set(FlagMissingCRDs); fl != nil {
		m := MissingCRDs(fl.Value.String())
		switch m {
		case MissingError, MissingWarn, MissingIgnore:
		default:
			return f, fmt.Errorf("--%s: invalid value %q: must be one of error, warn, ignore", FlagMissingCRDs, m)
		}
		f.MissingCRDs = &m
	}
	if fl := set(FlagBaseline); fl != nil {
		b := fl.Value.String()
		f.Baseline = &b
	}
	if fl := set(FlagKubernetesVersion); fl != nil {
		m, err := kubeminor.Parse(fl.Value.String())
		if err != nil {
			return f, fmt.Errorf("--%s: %w", FlagKubernetesVersion, err)
		}
		f.KubernetesVersions = m
	}
	f.Disable, f.Exclude, f.CRDs = list(FlagDisable), list(FlagExclude), list(FlagCRD)
	return f, nil
}

// Settings are the configuration in effect: flags over the file over the
// defaults. Build them with Resolve.
type Settings struct {
	// Config is the file (Default when there is none); never nil.
	Config *Config
	// Validate is what the server does with unknown fields: kubectl's
	// --validate, Strict unless the flags or the file say otherwise.
	Validate fieldvalidation.Directive
	FailOn   report.Severity
	// MissingCRDs: pass RequireCRDs = (MissingCRDs == MissingError) to the
	// linter; Apply turns cr-no-crd off for MissingIgnore.
	MissingCRDs MissingCRDs
	// CRDs are the file's crds: then --crd, globs expanded: later CRDs of
	// the same kind win, so the command line's do.
	CRDs []CRDSource
	// Baseline is the baseline file relative to the working directory
	// (--baseline, or the file's baseline: joined with its directory).
	Baseline string
	// Disabled are the rules --disable turned off everywhere.
	Disabled map[string]bool
	// ConfigKinds are the file's configKinds: documents of these kinds
	// are tool configuration, skipped, not custom resources.
	ConfigKinds []schema.GroupKind
	// KubernetesVersions are the minors whose API servers judge, oldest
	// first (--kubernetes-version over kubernetesVersion:); never empty:
	// the newest by default.
	KubernetesVersions []string
	// Tests are the file's tests: (kubectl crdlint test's suites).
	Tests []string

	flags   Flags
	exclude *Patterns
}

// CRDSource is one CRD source to read: a local file or directory (Path,
// for source.Expand) or a URL (for remote.Fetcher).
type CRDSource struct {
	Path string
	URL  *remote.Source
	// From names where it was given: ".crdlint.yaml:4:5" or "--crd".
	From string
}

// Resolve merges the file c (nil: no file) with the flags. Its errors
// are usage errors worth exit 2: an invalid --exclude pattern or --crd
// URL, or a crds: glob whose directory cannot be walked.
func Resolve(c *Config, f Flags) (*Settings, error) {
	if c == nil {
		c = Default(nil)
	}
	s := &Settings{Config: c, Validate: fieldvalidation.Default, FailOn: report.Error, MissingCRDs: MissingError, Disabled: map[string]bool{}, flags: f}
	var err error
	if s.exclude, err = NewPatterns(""); err != nil {
		return nil, err
	}
	if c.exclude != nil {
		s.exclude.list = append(s.exclude.list, c.exclude.list...)
	}
	if err := s.exclude.Add("", f.Exclude...); err != nil {
		return nil, fmt.Errorf("--%s: %v", FlagExclude, err)
	}
	s.ConfigKinds = c.ConfigKinds
	s.Tests = c.Tests
	// Flags over the file; in each, validate over the older strict (which
	// FlagsFrom and Parse make agree when both are given).
	for _, v := range []*fieldvalidation.Directive{directive(c.Strict), &c.Validate, directive(f.Strict), f.Validate} {
		if v != nil && *v != "" {
			s.Validate = *v
		}
	}
	if c.FailOn != nil {
		s.FailOn = *c.FailOn
	}
	if f.FailOn != nil {
		s.FailOn = *f.FailOn
	}
	if c.MissingCRDs != "" {
		s.MissingCRDs = c.MissingCRDs
	}
	if f.MissingCRDs != nil {
		s.MissingCRDs = *f.MissingCRDs
	}
	if f.RequireCRDs != nil && *f.RequireCRDs {
		s.MissingCRDs = MissingError
	}
	if c.Baseline != "" {
		s.Baseline, _, _ = configPath(c.Dir, c.Baseline)
	}
	s.KubernetesVersions = []string{kubeminor.Newest()}
	if len(c.KubernetesVersions) > 0 {
		s.KubernetesVersions = c.KubernetesVersions
	}
	if len(f.KubernetesVersions) > 0 {
		s.KubernetesVersions = f.KubernetesVersions
	}
	if f.Baseline != nil {
		s.Baseline = *f.Baseline
	}
	for _, d := range f.Disable {
		for _, id := range strings.Split(d, ",") {
			if id = strings.TrimSpace(id); id != "" {
				s.Disabled[id] = true
			}
		}
	}
	for _, e := range c.CRDs {
		from := fmt.Sprintf("%s:%d:%d", c.Path, e.Pos.Line, e.Pos.Column)
		switch {
		case e.URL != nil:
			s.CRDs = append(s.CRDs, CRDSource{URL: e.URL, From: from})
		case e.Glob:
			paths, err := expandGlob(e.base, e)
			if err != nil {
				return nil, fmt.Errorf("%s: crds: %s: %v", from, e.Value, err)
			}
			for _, p := range paths {
				s.CRDs = append(s.CRDs, CRDSource{Path: p, From: from})
			}
		default:
			s.CRDs = append(s.CRDs, CRDSource{Path: e.Path, From: from})
		}
	}
	for _, v := range f.CRDs {
		if remote.IsURL(v) {
			src, err := remote.ParseSource(v)
			if err != nil {
				return nil, fmt.Errorf("--%s %s: %v", FlagCRD, v, err)
			}
			s.CRDs = append(s.CRDs, CRDSource{URL: &src, From: "--" + FlagCRD})
			continue
		}
		s.CRDs = append(s.CRDs, CRDSource{Path: v, From: "--" + FlagCRD})
	}
	return s, nil
}

// directive is what a strict: key or --strict flag stands for, nil when
// not given.
func directive(strict *bool) *fieldvalidation.Directive {
	if strict == nil {
		return nil
	}
	d := fieldvalidation.Of(*strict)
	return &d
}

// expandGlob lists what a crds: glob matches under dir, in lexical
// order: files and directories (a matched directory is not entered; the
// caller expands it as any directory). Hidden entries are skipped, as
// directory arguments skip them.
func expandGlob(dir string, e CRDEntry) ([]string, error) {
	// Walk from the longest prefix without wildcards.
	segs := strings.Split(filepath.ToSlash(e.rel), "/")
	prefix := ""
	for _, s := range segs[:len(segs)-1] {
		if strings.ContainsAny(s, `*?[\`) {
			break
		}
		prefix = pathJoin(prefix, s)
	}
	root := filepath.Join(dir, filepath.FromSlash(prefix))
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && os.IsNotExist(err) {
				return filepath.SkipAll
			}
			return err
		}
		if p == root {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if e.glob.Match(filepath.ToSlash(rel), d.IsDir()) {
			out = append(out, p)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	return out, err
}

func pathJoin(a, b string) string {
	if a == "" {
		return b
	}
	return a + "/" + b
}

// Excluded reports whether path (relative to the working directory, or
// absolute) is excluded by the file's exclude: or by --exclude. isDir
// lets a directory walk skip a whole excluded directory.
func (s *Settings) Excluded(path string, isDir bool) bool {
	return s.exclude.Match(path, isDir)
}

// RuleSeverity is the severity rule has in file, or off, with the
// catalogue default when neither the file nor a flag says anything.
// --disable beats the file; --missing-crds and --require-crds beat
// missingCRDs.
func (s *Settings) RuleSeverity(rule, file string) (sev report.Severity, off bool) {
	sev, ok := s.Config.defaults[rule]
	if !ok {
		sev = report.Warning
	}
	switch lvl, _ := s.Level(rule, file); lvl {
	case LevelOff:
		return sev, true
	case LevelError:
		return report.Error, false
	case LevelWarning:
		return report.Warning, false
	}
	return sev, false
}

// Level is what the flags or the file say of rule in file, with where it
// was said (the reason of the suppression a rule turned off gives its
// findings); "" and "" when nothing says anything of it. --disable beats
// the file; --missing-crds and --require-crds beat missingCRDs; in the
// file, the last overrides: entry whose files: match wins.
func (s *Settings) Level(rule, file string) (Level, string) {
	if s.Disabled[rule] {
		return LevelOff, "--" + FlagDisable + " " + rule
	}
	if rule == RuleNoCRD && s.flags.RequireCRDs != nil && *s.flags.RequireCRDs {
		return LevelError, "--" + FlagRequireCRDs
	}
	if rule == RuleNoCRD && s.flags.MissingCRDs != nil {
		return map[MissingCRDs]Level{MissingError: LevelError, MissingWarn: LevelWarning, MissingIgnore: LevelOff}[*s.flags.MissingCRDs], "--" + FlagMissingCRDs + "=" + string(*s.flags.MissingCRDs)
	}
	c := s.Config
	var lvl Level
	var from string
	if rule == RuleNoCRD && c.MissingCRDs != "" {
		lvl, from = map[MissingCRDs]Level{MissingError: LevelError, MissingWarn: LevelWarning, MissingIgnore: LevelOff}[c.MissingCRDs], "missingCRDs: "+string(c.MissingCRDs)
	}
	for _, r := range c.Rules {
		if r.Rule == rule {
			lvl, from = r.Level, "rules: "+rule+": "+string(r.Level)
		}
	}
	for i, o := range c.Overrides {
		if !o.files.Match(file, false) {
			continue
		}
		for _, r := range o.Rules {
			if r.Rule == rule {
				lvl, from = r.Level, fmt.Sprintf("overrides[%d] (%s): %s: %s", i, strings.Join(o.Files, ", "), rule, r.Level)
			}
		}
	}
	if from != "" {
		from = c.Path + " " + from
	}
	return lvl, from
}

// Off lists the rules that are off for every file (--disable, or off in
// rules: with no override setting them to anything else, or cr-no-crd
// under missingCRDs: ignore). The review takes their findings out
// rather than listing them as suppressed, whichever code reported them.
func (s *Settings) Off() map[string]bool {
	out := map[string]bool{}
	for id := range s.Disabled {
		out[id] = true
	}
	c := s.Config
	global := map[string]Level{}
	if s.MissingCRDs == MissingIgnore {
		global[RuleNoCRD] = LevelOff
	}
	for _, r := range c.Rules {
		global[r.Rule] = r.Level
	}
	for _, o := range c.Overrides {
		for _, r := range o.Rules {
			if r.Level != LevelOff {
				delete(global, r.Rule)
			}
		}
	}
	for id, lvl := range global {
		if lvl == LevelOff && !(id == RuleNoCRD && s.MissingCRDs != MissingIgnore) {
			out[id] = true
		}
	}
	return out
}
