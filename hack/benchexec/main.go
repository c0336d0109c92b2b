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
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Result is what benchexec writes; internal/bench reads the same fields.
type Result struct {
	WallNS    int64 `json:"wall_ns"`
	CPUNS     int64 `json:"cpu_ns"`
	MaxRSSKiB int64 `json:"maxrss_kib"`
	ExitCode  int   `json:"exit_code"`
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: benchexec RESULT.json COMMAND [ARG]...")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "benchexec:", err)
		os.Exit(127)
	}
	r := Result{WallNS: int64(wall), ExitCode: cmd.ProcessState.ExitCode()}
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
