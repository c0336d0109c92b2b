package cmd

import (
	"github.com/spf13/pflag"

	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/lint"
)

// missingOptions are --missing-crds and its older spelling --require-crds,
// shared by the commands that judge custom resources: a custom resource
// whose CRD is not found is an error unless the user relaxes it, as the
// server answers 404 and peers fail on a missing schema.
type missingOptions struct {
	Missing     missingFlag
	RequireCRDs bool
}

func (o *missingOptions) addFlags(fs *pflag.FlagSet) {
	fs.Var(&o.Missing, "missing-crds", "A custom resource whose CRD is not found is an error (the default), a warning (warn), or not reported (ignore)")
	fs.BoolVar(&o.RequireCRDs, "require-crds", false, "Same as --missing-crds=error, the default")
}

// policy is the flags' setting alone; commands use sourceOptions.missing,
// which is the flags over the configuration file.
func (o *missingOptions) policy() lint.Missing {
	if o.RequireCRDs || o.Missing == "" {
		return lint.MissingError
	}
	return lint.Missing(o.Missing)
}

// missingFlag is --missing-crds.
type missingFlag lint.Missing

func (m *missingFlag) String() string {
	if *m == "" {
		return string(lint.MissingError)
	}
	return string(*m)
}
func (m *missingFlag) Type() string { return "error|warn|ignore" }
func (m *missingFlag) Set(v string) error {
	p, err := lint.ParseMissing(v)
	if err != nil {
		return err
	}
	*m = missingFlag(p)
	return nil
}
