package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/version"
)

// VersionOptions prints the build's version.
type VersionOptions struct {
	Output string
	genericiooptions.IOStreams
}

// NewCmdVersion builds "version".
func NewCmdVersion(s genericiooptions.IOStreams) *cobra.Command {
	o := &VersionOptions{IOStreams: s}
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the version of kubectl-crdlint",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	c.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: empty or json")
	return c
}

// Validate rejects unknown output formats.
func (o *VersionOptions) Validate() error {
	if o.Output != "" && o.Output != "json" {
		return usageErrorf("invalid output format %q: must be empty or json", o.Output)
	}
	return nil
}

// Run prints the version.
func (o *VersionOptions) Run() error {
	info := version.Get()
	if o.Output == "json" {
		b, err := json.MarshalIndent(info, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(o.Out, "%s\n", b)
		return err
	}
	_, err := fmt.Fprintln(o.Out, info.String())
	return err
}
