package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"
)

// Measurement is what the kernel accounted to one run of a tool.
type Measurement struct {
	Wall      time.Duration
	CPU       time.Duration // user + system, from the child's rusage
	MaxRSSKiB int64         // ru_maxrss: KiB on Linux
	// TreeRSSKiB is the peak of the summed RSS of the tool and the
	// processes it started, sampled every 10 ms (hack/benchexec).
	TreeRSSKiB int64
	ExitCode   int
	Stdout     []byte
	Stderr     []byte
}

// Runner starts tools through hack/benchexec, which measures them from a
// small process of its own (see its doc for why the harness cannot take a
// child's peak RSS itself), and offline. When the kernel lets us (root, or user
// namespaces), each child runs in a network namespace of its own with no
// interface but loopback, so a tool that tried to download a schema would
// fail instead of being silently measured with the network; otherwise the
// proxy variables point at a closed port, which Go's HTTP clients honour.
type Runner struct {
	netns   bool
	exec    string // the benchexec binary
	scratch string // where benchexec writes its result
}

// NewRunner probes whether `unshare -n` works here.
func NewRunner(ctx context.Context, benchexec, scratch string) *Runner {
	err := exec.CommandContext(ctx, "unshare", "-n", "true").Run()
	return &Runner{netns: err == nil, exec: benchexec, scratch: scratch}
}

// Isolation says how the runner keeps tools offline, for the report.
func (r *Runner) Isolation() string {
	if r.netns {
		return "each run in an empty network namespace (unshare -n) and with HTTP(S)_PROXY set to a closed port"
	}
	return "HTTP(S)_PROXY set to a closed port (unshare -n is not available here)"
}

// Run runs argv once and measures it. A non-zero exit is not an error:
// linters exit 1 when they find something.
func (r *Runner) Run(ctx context.Context, argv []string) (Measurement, error) {
	if r.netns {
		argv = append([]string{"unshare", "-n"}, argv...)
	}
	result := filepath.Join(r.scratch, "benchexec.json")
	_ = os.Remove(result)
	cmd := exec.CommandContext(ctx, r.exec, append([]string{result}, argv...)...)
	cmd.Env = append(os.Environ(),
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9",
		"https_proxy=http://127.0.0.1:9", "http_proxy=http://127.0.0.1:9",
		"NO_PROXY=", "no_proxy=", "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return Measurement{}, fmt.Errorf("%s: %w", argv[0], err)
	}
	b, rerr := os.ReadFile(result)
	var res struct {
		WallNS     int64 `json:"wall_ns"`
		CPUNS      int64 `json:"cpu_ns"`
		MaxRSSKiB  int64 `json:"maxrss_kib"`
		TreeRSSKiB int64 `json:"tree_rss_kib"`
		ExitCode   int   `json:"exit_code"`
	}
	if rerr != nil || json.Unmarshal(b, &res) != nil {
		return Measurement{}, fmt.Errorf("%s: benchexec left no result (stderr: %.500s)", argv[0], stderr.Bytes())
	}
	return Measurement{Wall: time.Duration(res.WallNS), CPU: time.Duration(res.CPUNS), MaxRSSKiB: res.MaxRSSKiB,
		TreeRSSKiB: res.TreeRSSKiB, ExitCode: res.ExitCode, Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}, nil
}

// Summary is the median of several runs of one tool on one input.
type Summary struct {
	Runs      int
	Wall, CPU time.Duration
	MaxRSSKiB int64
	// TreeRSSKiB is the median peak of all the run's processes together.
	TreeRSSKiB int64
	// Docs is the number of documents the tool says it checked, Invalid
	// the number it found at least one error in (from its last run; the
	// harness checks the runs agree).
	Docs, Invalid int
	ExitCode      int
}

// Median summarises runs by their medians (the middle run of an odd
// number, the mean of the two middle ones of an even number), which a
// single run slowed down by a neighbour on a shared machine does not move.
func Median(ms []Measurement) Summary {
	s := Summary{Runs: len(ms)}
	if len(ms) == 0 {
		return s
	}
	walls := make([]int64, len(ms))
	cpus := make([]int64, len(ms))
	rss := make([]int64, len(ms))
	tree := make([]int64, len(ms))
	for i, m := range ms {
		walls[i], cpus[i], rss[i], tree[i] = int64(m.Wall), int64(m.CPU), m.MaxRSSKiB, m.TreeRSSKiB
	}
	s.Wall, s.CPU, s.MaxRSSKiB, s.TreeRSSKiB = time.Duration(median(walls)), time.Duration(median(cpus)), median(rss), median(tree)
	s.ExitCode = ms[len(ms)-1].ExitCode
	return s
}

func median(v []int64) int64 {
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}
