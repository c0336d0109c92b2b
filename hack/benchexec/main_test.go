package main

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// TestTreeRSS: a process's tree holds its children: the sum for this test
// process is more than its child's alone, which is not nothing.
func TestTreeRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	child := exec.Command("sleep", "5")
	if err := child.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	self, kid := treeRSS(os.Getpid()), treeRSS(child.Process.Pid)
	if kid <= 0 || self <= kid {
		t.Errorf("treeRSS: this process's tree %d pages, its child's %d", self, kid)
	}
}
