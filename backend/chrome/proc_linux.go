//go:build linux

package chrome

import (
	"os/exec"
	"runtime"
	"syscall"
)

// startOwned starts cmd so that the kernel kills the browser if Baton dies
// without stopping it (Pdeathsig). The signal follows the thread that
// started the process, so the goroutine stays locked to its thread until the
// browser exits; then wait receives the exit error.
func startOwned(cmd *exec.Cmd, wait func(error)) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		wait(cmd.Wait())
	}()
	return <-started
}
