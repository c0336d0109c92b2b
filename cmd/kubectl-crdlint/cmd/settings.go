package cmd

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/cachedir"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/version"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crdsource"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/fieldvalidation"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/remote"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/ruleset"
)

// allRules is every rule a run can report (pkg/ruleset joins them).
var allRules = ruleset.Rules

// sourceOptions are what every command that reads manifests shares: the
// configuration file, CRD sources (files, directories, URLs), excludes,
// what a missing CRD is, and the cache of fetched CRDs.
type sourceOptions struct {
	ConfigFile string
	NoConfig   bool
	CRDs       []string
	Exclude    []string
	CacheDir   string
	Offline    bool
	Missing    missingOptions
	Minor      minorOptions

	// settings are the flags over the configuration file over the
	// defaults; configFindings what is wrong in the file.
	settings       *config.Settings
	configFindings []report.Finding
}

func (o *sourceOptions) addFlags(fs *pflag.FlagSet, crdHelp string) {
	fs.StringArrayVar(&o.CRDs, "crd", nil, crdHelp)
	fs.StringVar(&o.ConfigFile, "config", "", "The configuration file (default: .crdlint.yaml in the working directory or the nearest parent, up to the repository's root)")
	fs.BoolVar(&o.NoConfig, "no-config", false, "Ignore any configuration file")
	fs.StringArrayVar(&o.Exclude, "exclude", nil, "Leave out files matching this gitignore-style pattern (repeatable)")
	fs.StringVar(&o.CacheDir, "cache-dir", "", "Where CRDs fetched from URLs are kept (default: $XDG_CACHE_HOME/kubectl-crdlint)")
	fs.BoolVar(&o.Offline, "offline", false, "Never fetch a CRD URL: use the cache, and fail for what is not in it")
	o.Missing.addFlags(fs)
}

// complete loads the configuration and resolves the flags the user set
// over it. A configuration file that cannot be read is an input error;
// what is wrong inside it are findings (configFindings).
func (o *sourceOptions) complete(fs *pflag.FlagSet) error {
	if o.NoConfig && o.ConfigFile != "" {
		return usageErrorf("--config and --no-config cannot be used together")
	}
	c, findings, err := config.Open(o.ConfigFile, o.NoConfig, allRules)
	if err != nil {
		return inputError(err)
	}
	flags, err := config.FlagsFrom(fs)
	if err != nil {
		return &UsageError{err}
	}
	s, err := config.Resolve(c, flags)
	if err != nil {
		return &UsageError{err}
	}
	o.settings, o.configFindings = s, findings
	return o.resolveMinors(fs, s)
}

// resolved returns the settings; a command run without Complete (tests)
// gets its option fields alone, without any configuration file.
func (o *sourceOptions) resolved(v validateOptions, failOn report.Severity, disable []string) *config.Settings {
	if o.settings != nil {
		return o.settings
	}
	f := config.Flags{Validate: v.directive(), FailOn: &failOn, Disable: disable, Exclude: o.Exclude, CRDs: o.CRDs}
	if o.Missing.Missing != "" {
		m := config.MissingCRDs(o.Missing.Missing)
		f.MissingCRDs = &m
	}
	if o.Missing.RequireCRDs {
		f.RequireCRDs = &o.Missing.RequireCRDs
	}
	s, err := config.Resolve(config.Default(allRules), f)
	if err != nil {
		s, _ = config.Resolve(config.Default(allRules), config.Flags{})
	}
	o.settings = s
	return s
}

// validateOptions are --validate, kubectl's flag, and --strict, its older
// alias, for the commands that judge a create or an update (check,
// upgrade, immutable). The settings resolve them with the configuration's
// validate: (config.FlagsFrom); prune and fields, which judge neither, do
// not take them.
type validateOptions struct {
	Validate fieldvalidation.Directive
	Strict   bool
}

func (o *validateOptions) addFlags(fs *pflag.FlagSet) {
	o.Validate = fieldvalidation.Default
	fs.Var(fieldvalidation.Flag{D: &o.Validate}, config.FlagValidate, "What the API server does with unknown fields, as kubectl's --validate: strict (or true; kubectl apply's default): the server refuses the object, an error; warn: it drops the field with a warning; ignore (or false): it drops the field silently, no finding")
	fs.Lookup(config.FlagValidate).NoOptDefVal = string(fieldvalidation.Strict)
	fs.BoolVar(&o.Strict, config.FlagStrict, false, "The same as --validate=strict (--strict=false: --validate=warn)")
}

// directive is what the options say when no flag set was parsed (tests
// that fill them in): --strict when it was set to true, else --validate.
func (o validateOptions) directive() *fieldvalidation.Directive {
	d := o.Validate
	if o.Strict {
		d = fieldvalidation.Strict
	}
	if d == "" {
		d = fieldvalidation.Default
	}
	return &d
}

// completeValidate registers --validate's completion on c.
func completeValidate(c *cobra.Command) {
	_ = c.RegisterFlagCompletionFunc(config.FlagValidate, cobra.FixedCompletions(fieldvalidation.Names, cobra.ShellCompDirectiveNoFileComp))
}

// configErrors makes what is wrong in the configuration file an input
// error for the commands that print no findings (prune, fields): one line
// per problem, exit 2.
func (o *sourceOptions) configErrors() error {
	var lines []string
	for _, f := range o.configFindings {
		if f.Severity == report.Error {
			lines = append(lines, fmt.Sprintf("%s:%d:%d: %s", f.File, f.Line, f.Column, f.Message))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return usageErrorf("%s", strings.Join(lines, "\nerror: "))
}

// configKinds are the configuration's configKinds: kinds of tool
// configuration, not custom resources.
func (o *sourceOptions) configKinds() *crd.ConfigKinds {
	if o.settings == nil {
		return nil
	}
	return crd.NewConfigKinds(o.settings.ConfigKinds)
}

// missing is the policy for custom resources whose CRD is not found.
func (o *sourceOptions) missing() lint.Missing {
	if o.settings != nil {
		return lint.Missing(o.settings.MissingCRDs)
	}
	return o.Missing.policy()
}

// reportMissing says, on stderr, why documents were left out (prune,
// fields), a missing CRD as the settings say (missingCRDs: under
// --missing-crds and --require-crds), and returns how many errors there
// were.
func (o *sourceOptions) reportMissing(w io.Writer, notes []crd.Note) int {
	return o.missing().Notes(w, notes)
}

// exclude is the settings' exclusion for input.Open.
func (o *sourceOptions) exclude() input.Exclude {
	if o.settings == nil {
		return nil
	}
	return o.settings.Excluded
}

// httpClient is the client CRD URLs are fetched with; nil is the
// fetcher's default. Tests set it, to reach an httptest TLS server and to
// count requests.
var httpClient *http.Client

// crdSources are the CRD sources of the settings, or crds (test's suites
// name their own), in their order (the configuration's crds:, then
// --crd), fetching URLs — only those listed — through the cache.
func (o *sourceOptions) crdSources(errOut io.Writer, crds []config.CRDSource) []crdsource.Source {
	return crdsource.Settings(crds, &crdsource.Fetch{New: o.fetcher, Notices: errOut})
}

// fetcher is the fetcher of CRD URLs, made when a run has any: the
// cache's directory is created then.
func (o *sourceOptions) fetcher() (*remote.Fetcher, error) {
	root, err := cachedir.Resolve(o.CacheDir)
	if err != nil {
		return nil, err
	}
	dir, err := cachedir.Sub(root, cachedir.CRDs)
	if err != nil {
		return nil, err
	}
	return &remote.Fetcher{Dir: dir, Client: httpClient, Offline: o.Offline, UserAgent: "kubectl-crdlint/" + version.Get().Version}, nil
}

// sourceError makes what went wrong with a CRD source an input error: a
// URL that cannot be fetched, a path that cannot be read.
func sourceError(err error) error {
	var re *remote.Error
	if errors.As(err, &re) {
		return &UsageError{re}
	}
	return inputError(err)
}
