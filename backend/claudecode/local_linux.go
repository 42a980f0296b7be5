package claudecode

import "syscall"

// childAttr puts a child in its own process group and has the kernel kill
// it when Baton dies, even by SIGKILL.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
