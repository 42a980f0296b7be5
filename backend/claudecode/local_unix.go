//go:build unix

package claudecode

import "syscall"

// group is nothing on Unix: the child's process group (childAttr) already
// holds the tools it starts.
type group struct{}

// attach does nothing on Unix.
func (p *localProcess) attach() error { return nil }

// End implements Process: SIGTERM (or SIGKILL when kill) to the child's
// process group, the CLI and the tools it runs.
func (p *localProcess) End(kill bool) {
	if p.cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}
