package machines

import (
	"errors"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/session"
)

// Problem is why ssh could not do what Baton asked.
type Problem int

const (
	// ProblemLost: the connection dropped, or could not be made for a
	// reason the others do not name.
	ProblemLost Problem = iota
	// ProblemUnreachable: nothing answered (refused, timed out, no route,
	// unknown host name).
	ProblemUnreachable
	// ProblemUnknownHostKey: the machine's host key is not in the user's
	// known_hosts, and Baton never trusts a key by itself.
	ProblemUnknownHostKey
	// ProblemChangedHostKey: the machine's host key differs from the one
	// the user trusted.
	ProblemChangedHostKey
	// ProblemLogin: the machine refused every key Baton's ssh offered.
	ProblemLogin
)

func (p Problem) String() string {
	switch p {
	case ProblemLost:
		return "lost"
	case ProblemUnreachable:
		return "unreachable"
	case ProblemUnknownHostKey:
		return "unknown host key"
	case ProblemChangedHostKey:
		return "changed host key"
	case ProblemLogin:
		return "login refused"
	}
	return fmt.Sprintf("Problem(%d)", int(p))
}

// Sentinels matched by an *SSHError of each problem (errors.Is). A lost or
// unreachable machine also matches session.ErrHostLost, so that what waits
// for a lost session host waits for it too.
var (
	ErrUnreachable    = errors.New("the machine is unreachable")
	ErrUnknownHostKey = errors.New("the machine's host key is not known")
	ErrChangedHostKey = errors.New("the machine's host key has changed")
	ErrLoginRefused   = errors.New("the machine refused the login")
)

// SSHError is ssh failing to reach a machine or losing it: ssh itself
// exited with status 255. Its text is one sentence for the user that says
// what to do.
type SSHError struct {
	// Machine is the target's name.
	Machine string
	Problem Problem
	// Said is what ssh wrote (its last lines).
	Said string
	// Fix is the sentence that says what to do.
	Fix string
}

func (e *SSHError) Error() string {
	if e.Fix != "" {
		return e.Fix
	}
	return fmt.Sprintf("ssh to %s failed: %s", e.Machine, e.Said)
}

// Unwrap lets errors.Is match the problem's sentinel, and
// session.ErrHostLost for a lost or unreachable machine.
func (e *SSHError) Unwrap() []error {
	switch e.Problem {
	case ProblemLost:
		return []error{session.ErrHostLost}
	case ProblemUnreachable:
		return []error{ErrUnreachable, session.ErrHostLost}
	case ProblemUnknownHostKey:
		return []error{ErrUnknownHostKey}
	case ProblemChangedHostKey:
		return []error{ErrChangedHostKey}
	case ProblemLogin:
		return []error{ErrLoginRefused}
	}
	return nil
}

// CommandError is a command Baton ran on a machine that failed on its own
// (the connection worked).
type CommandError struct {
	Machine string
	// What says what the command was for ("make the workspace").
	What string
	Code int
	// Said is the command's error output (its last lines).
	Said string
}

func (e *CommandError) Error() string {
	said := e.Said
	if said == "" {
		said = fmt.Sprintf("exit status %d", e.Code)
	}
	return fmt.Sprintf("%s on %s: %s", e.What, e.Machine, said)
}

// lastLines is the last n non-empty lines of s, joined by "; ".
func lastLines(s string, n int) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out[max(0, len(out)-n):], "; ")
}
