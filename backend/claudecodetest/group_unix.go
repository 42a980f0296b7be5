//go:build unix

package claudecodetest

import (
	"os/exec"
	"syscall"
)

// groupKill starts cmd in its own process group and has a cancel kill the
// whole group.
func groupKill(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
