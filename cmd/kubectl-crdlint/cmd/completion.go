package cmd

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// NewCmdCompletion builds "completion SHELL". kubectl itself completes
// plugin arguments through the kubectl_complete-crdlint shim shipped next
// to the binary; this command serves "kubectl-crdlint" used on its own.
func NewCmdCompletion(s genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print a completion script for the given shell.

  source <(kubectl-crdlint completion bash)

When used as "kubectl crdlint", put the kubectl_complete-crdlint script from the
release archive on your PATH instead: kubectl calls it to complete plugins.`,
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(s.Out, true)
			case "zsh":
				return root.GenZshCompletion(s.Out)
			case "fish":
				return root.GenFishCompletion(s.Out, true)
			default:
				return root.GenPowerShellCompletionWithDesc(s.Out)
			}
		},
	}
}
