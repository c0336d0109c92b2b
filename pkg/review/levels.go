package review

import (
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/report"
)

// levels gives each finding the level its rule has in its file
// (config.Settings.Level: rules:, overrides:, missingCRDs:, --disable
// and the other flags): error or warning, or off, which suppresses it
// (kind "config", the reason naming the flag or the entry that said so).
// A rule off for every file (config.Settings.Off: --disable, or off in
// rules: and in no override) is taken out instead: it is as if it did
// not exist, and no output lists its findings. The linter computes every
// rule whatever a run turns off (so that the verdict caches serve every
// run); this is the one place that turns rules off.
//
// A finding the linter made an error stays an error where the rule is
// set to warning: under --validate=strict an unknown field is a
// rejection, and a rejection is never a warning.
type levels struct{ perFile }

func (levels) file(r *Reviewer, f *File) []report.Finding {
	out := f.Findings[:0]
	for _, x := range f.Findings {
		switch {
		case r.off[x.Rule]:
			continue
		case x.Suppressed == nil:
			x = r.level(x)
		}
		out = append(out, x)
	}
	f.Findings = out
	return nil
}

// level is one finding at its level.
func (r *Reviewer) level(f report.Finding) report.Finding {
	lvl, from := r.o.Settings.Level(f.Rule, f.File)
	switch lvl {
	case config.LevelOff:
		f.Suppressed = &report.Suppression{Kind: report.SuppressedConfig, Reason: from}
	case config.LevelError:
		f.Severity = report.Error
	case config.LevelWarning:
		if f.Severity != report.Error {
			f.Severity = report.Warning
		}
	}
	return f
}
