package claudecode

import (
	"os/exec"
	"syscall"
)

func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// signalGroup ends the child; Windows has no SIGTERM to send first.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process != nil && kill {
		_ = cmd.Process.Kill()
	}
}
