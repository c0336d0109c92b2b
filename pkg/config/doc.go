// Package config reads .crdlint.yaml, the configuration file of
// kubectl-crdlint, and merges it with the command line.
//
// Find looks for the file in a directory and its parents up to the
// repository root; Load (or Parse) reads it; Open does what --config and
// --no-config ask, with both. Loading never fails on
// content: an unknown key, a value of the wrong type, an unknown rule ID,
// a server rejection turned into a warning, an invalid pattern or a
// missing crds: path is a config-invalid finding at its line and column,
// and that entry is left out. Resolve merges the file with the flags the
// user set (FlagsFrom reads pflag's Changed): flags over the file over
// the defaults. The Settings it returns answer the questions a run asks:
// is this path excluded (gitignore-style patterns, Patterns), what is
// this rule's severity in this file (rules: then each matching
// overrides: entry, later ones winning, and where that was said: Level),
// which rules are off everywhere (Off), and which CRD sources to read.
//
// The package also writes configuration: Init scans a repository and
// returns a commented starter file (CRD directories, Helm templates and
// kustomize patches to exclude), Target and Write say where it goes and
// write it without clobbering, Settings.View renders the effective
// configuration, and SchemaJSON is the file's JSON Schema for editors,
// generated from the rule set.
//
// Left to others: the rule set (an input, pkg/ruleset's), reading the
// CRD sources it lists (pkg/crdsource), applying the levels to findings,
// inline suppressions and baselines (the review package, which asks
// Level and Off), and the flags themselves (the commands define them;
// this package only knows their names).
//
// See Example for the few lines a command needs.
package config
