package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-crdlint/kubectl-crdlint/internal/kubeminor"
	"github.com/kubectl-crdlint/kubectl-crdlint/internal/version"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/cluster"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/config"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crd"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/crdsource"
	"github.com/kubectl-crdlint/kubectl-crdlint/pkg/input"
)

// clusterOptions are the cluster sources and kubectl's connection flags,
// shared by the commands. Nothing touches the network unless --live or
// --crd-from-cluster is given.
type clusterOptions struct {
	Flags *cluster.Flags
	// Live: positional arguments are resource references read from the
	// cluster instead of paths.
	Live bool
	// CRDFromCluster: the cluster's CRDs join the catalogue, below any
	// local ones.
	CRDFromCluster bool

	client *cluster.Client
	// judgeAs, when set, is asked on connecting whether this process
	// judges as the cluster's minor (sourceOptions.resolveMinors): an
	// error ends the command (a *delegated one hands it to the minor's
	// engine).
	judgeAs func(*cluster.Client) error
}

func newClusterOptions() clusterOptions {
	f := cluster.NewFlags()
	f.UserAgent = "kubectl-crdlint/" + version.Get().Version
	return clusterOptions{Flags: f}
}

// addFlags registers --live (with its help for this command), and
// --crd-from-cluster where custom resources are judged.
func (o *clusterOptions) addFlags(fs *pflag.FlagSet, liveHelp string, crdFromCluster bool) {
	fs.VarPF(liveFlag{o}, "live", "", liveHelp).NoOptDefVal = "true"
	if crdFromCluster {
		fs.BoolVar(&o.CRDFromCluster, "crd-from-cluster", false, "Take the CRDs that custom resources are judged against from the cluster too (local CRDs from the inputs and --crd win)")
	}
	o.Flags.AddFlags(fs)
}

// liveFlag is --live, a boolean flag that carries its options: what is
// resolved before a command runs (the cluster's Kubernetes minor, in
// sourceOptions.complete) finds the cluster from the flag set alone
// (clusterOf).
type liveFlag struct{ o *clusterOptions }

func (f liveFlag) String() string   { return strconv.FormatBool(f.o.Live) }
func (f liveFlag) Type() string     { return "bool" }
func (f liveFlag) IsBoolFlag() bool { return true }
func (f liveFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err == nil {
		f.o.Live = v
	}
	return err
}

// clusterOf is the cluster options of a command's flag set, or nil for a
// command that reads nothing from a cluster.
func clusterOf(fs *pflag.FlagSet) *clusterOptions {
	if fl := fs.Lookup("live"); fl != nil {
		if lf, ok := fl.Value.(liveFlag); ok {
			return lf.o
		}
	}
	return nil
}

// serverMinor is the Kubernetes minor the cluster runs (its discovery
// version), when it is one kubectl-crdlint judges as; another is a
// one-line error naming the supported ones, exit 2.
func serverMinor(c *cluster.Client) (string, error) {
	v, err := c.ServerVersion()
	if err != nil {
		return "", clusterError(err)
	}
	m, err := kubeminor.OfServer(v.GitVersion, v.Major, v.Minor)
	if err != nil {
		return "", usageErrorf("the cluster at %s %v; to judge as one of them, give it with --%s", c.Host(), err, config.FlagKubernetesVersion)
	}
	return m, nil
}

// validate rejects connection flags that would silently do nothing.
func (o *clusterOptions) validate(fs *pflag.FlagSet) error {
	if o.Flags == nil || fs == nil {
		return nil
	}
	if o.Flags.AllNamespaces && !o.Live {
		return usageErrorf("-A/--all-namespaces reads objects from the cluster: it needs --live")
	}
	if fs.Changed("chunk-size") && !o.Live {
		return usageErrorf("--chunk-size needs --live")
	}
	if fs.Changed("namespace") && !o.Live {
		return usageErrorf("-n/--namespace applies to objects read with --live")
	}
	if o.Flags.ChunkSize < 0 {
		return usageErrorf("--chunk-size must not be negative")
	}
	return nil
}

// connect returns the client, created on first use.
func (o *clusterOptions) connect() (*cluster.Client, error) {
	if o.client != nil {
		return o.client, nil
	}
	c, err := o.Flags.NewClient()
	if err != nil {
		return nil, clusterError(err)
	}
	if o.judgeAs != nil {
		if err := o.judgeAs(c); err != nil {
			return nil, err
		}
	}
	o.client = c
	return c, nil
}

// open reads the local inputs of a command and builds its catalogue
// (crdsource.Catalog: the CRD sources', the configuration's crds: and
// --crd, which judge first; the inputs'; the cluster's with
// --crd-from-cluster).
func (o *clusterOptions) open(ctx context.Context, paths []string, src *sourceOptions, s genericiooptions.IOStreams, strict bool) (*input.Run, error) {
	in, err := input.Open(paths, s.In, src.exclude())
	if err != nil {
		return nil, inputError(err)
	}
	cat := crd.NewCatalog(strict)
	cat.SetConfigKinds(src.configKinds())
	srcs := crdsource.Sources{Local: src.crdSources(s.ErrOut, src.settings.CRDs)}
	if o.CRDFromCluster {
		srcs.Cluster = func() (crdsource.Source, error) {
			c, err := o.connect()
			return &crdsource.Cluster{Client: c}, err
		}
	}
	r, err := crdsource.Catalog(ctx, in, cat, srcs)
	if err != nil {
		return nil, clusterError(sourceError(err))
	}
	if o.Live {
		if _, err := o.connect(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// eachInput runs a command that judges each input whole (prune, fields,
// immutable) over run: the collect phase, then work on every input in
// the judge phase, in parallel (i tells the input's place: work keeps
// its result there), then run.Done.
func eachInput(ctx context.Context, run *input.Run, work func(i int, in *input.Judging)) error {
	judge, err := run.CollectAll(ctx)
	if err != nil {
		return err
	}
	err = judge.Parallel(ctx, func(i int) error {
		in, err := judge.Input(i)
		if err == nil {
			work(i, in)
		}
		return err
	})
	if err != nil {
		return err
	}
	return run.Done()
}

// clusterError makes a cluster failure a usage/input error: exit 2, one
// line.
func clusterError(err error) error {
	var ce *cluster.Error
	if errors.As(err, &ce) {
		return &UsageError{ce}
	}
	return err
}

// noResources says, as kubectl get does, that a list came back empty.
func noResources(w io.Writer, c *cluster.Client, all bool) {
	if all || c.SawClusterScoped() {
		fmt.Fprintln(w, "No resources found")
		return
	}
	fmt.Fprintf(w, "No resources found in %s namespace.\n", c.Namespace())
}

// local is the paths to read from disk: none with --live, whose arguments
// are resource references.
func (o *clusterOptions) local(paths []string) []string {
	if o.Live {
		return nil
	}
	return paths
}
