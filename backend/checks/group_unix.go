//go:build unix

package checks

import (
	"os/exec"
	"syscall"
)

// inGroup starts cmd in its own process group; ending its context ends the
// whole group, so nothing the check started stays behind.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
