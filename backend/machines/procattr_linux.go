package machines

import "syscall"

// sshAttr has the kernel kill a process's ssh when Baton dies, even by
// SIGKILL: the session closes, and the process on the machine reads the
// end of its input.
func sshAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
