//go:build unix

package claudecode

import (
	"sync"
	"syscall"
)

// group is the child's nice value on Unix (the last Lower): its process
// group (childAttr) already holds the tools it starts.
type group struct {
	mu   sync.Mutex
	nice int
}

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

var _ Lowerer = (*localProcess)(nil)

// Lower implements Lowerer: the child's process group (the CLI and the
// tools it runs, each of their threads) gets nice, when that is higher
// than the last.
func (p *localProcess) Lower(nice int) {
	if p.cmd.Process == nil {
		return
	}
	p.group.mu.Lock()
	defer p.group.mu.Unlock()
	if nice <= p.group.nice {
		return
	}
	if syscall.Setpriority(syscall.PRIO_PGRP, p.cmd.Process.Pid, nice) == nil {
		p.group.nice = nice
	}
}
