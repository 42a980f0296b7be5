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

// endingNice is the nice value of a child that is being ended: it still
// runs beside busy ones (nice 19 could starve it past its grace), at about
// a tenth of their share.
const endingNice = 10

var _ Lowerer = (*localProcess)(nil)

// Lower implements Lowerer: the child's process group (the CLI and the
// tools it runs) gets nice 10.
func (p *localProcess) Lower() {
	if p.cmd.Process == nil {
		return
	}
	_ = syscall.Setpriority(syscall.PRIO_PGRP, p.cmd.Process.Pid, endingNice)
}
