// Command benchexec runs one command and writes what the kernel accounted
// to it (wall time, user+system CPU, peak RSS, exit code) as JSON to a
// file:
//
//	benchexec RESULT.json COMMAND [ARG]...
//
// The bench harness starts every measured tool through it because of how
// Linux accounts peak RSS: Go starts children with clone(CLONE_VM|
// CLONE_VFORK), so until exec the child runs in the parent's address space,
// and exec records that address space's high-water mark in the child's
// ru_maxrss. Measured straight from the harness, which holds the corpus in
// memory, every tool would show at least the harness's own peak (about
// 200 MiB). This program is small, so the floor it adds is a few MiB.
// Standard input, output and error are the tool's own.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Result is what benchexec writes; internal/bench reads the same fields.
type Result struct {
	WallNS    int64 `json:"wall_ns"`
	CPUNS     int64 `json:"cpu_ns"`
	MaxRSSKiB int64 `json:"maxrss_kib"`
	// TreeRSSKiB is the peak of the summed resident sets of the command
	// and every process under it, sampled: ru_maxrss is the largest one
	// process reached, which says nothing of a run whose work is split
	// between processes that run at once (a range of Kubernetes minors,
	// one engine per minor).
	TreeRSSKiB int64 `json:"tree_rss_kib"`
	ExitCode   int   `json:"exit_code"`
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: benchexec RESULT.json COMMAND [ARG]...")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Start()
	var tree int64
	if err == nil {
		done := make(chan struct{})
		sampled := make(chan int64)
		go func() { sampled <- sampleTree(cmd.Process.Pid, done) }()
		err = cmd.Wait()
		close(done)
		tree = <-sampled
	}
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "benchexec:", err)
		os.Exit(127)
	}
	r := Result{WallNS: int64(wall), TreeRSSKiB: tree, ExitCode: cmd.ProcessState.ExitCode()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.CPUNS = ru.Utime.Nano() + ru.Stime.Nano()
		r.MaxRSSKiB = ru.Maxrss // KiB on Linux
	}
	b, _ := json.Marshal(r)
	if err := os.WriteFile(os.Args[1], b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "benchexec:", err)
		os.Exit(127)
	}
}

// sampleTree returns the largest sum of the resident sets of pid and its
// descendants seen every 10 ms until done (Linux's /proc; 0 elsewhere).
func sampleTree(pid int, done <-chan struct{}) int64 {
	page := int64(os.Getpagesize()) / 1024
	var peak int64
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		if sum := treeRSS(pid) * page; sum > peak {
			peak = sum
		}
		select {
		case <-done:
			return peak
		case <-t.C:
		}
	}
}

// treeRSS sums the resident pages of pid and its descendants.
func treeRSS(pid int) int64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	children := map[int][]int{}
	rss := map[int]int64{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The fields after the command name, which is in parentheses
		// and may hold spaces: state, ppid, ... rss is the 24th field.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 22 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pages, _ := strconv.ParseInt(f[21], 10, 64)
		children[ppid] = append(children[ppid], p)
		rss[p] = pages
	}
	var sum int64
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		sum += rss[p]
		queue = append(queue, children[p]...)
	}
	return sum
}
