//go:build unix

package claudecode

import (
	"os/exec"
	"syscall"
)

// signalGroup sends SIGTERM (or SIGKILL when kill) to the child's process
// group: the CLI and the tools it runs.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}

// attachChild does nothing on Unix: the child's process group (childAttr)
// already holds the tools it starts.
func attachChild(*exec.Cmd) error { return nil }
