// Package runhost is the host a run remembers (store.Run.Host: its kind,
// the program's path and version or the endpoint): its row, the refusal to
// take a run up on another kind of host, and what moving a run to the host
// in use keeps and starts again.
package runhost

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

// ErrOtherHost: the run ran on another kind of host than the one in use.
var ErrOtherHost = errors.New("the run ran on another session host")

// OtherHostError refuses to take a run up on another kind of host than the
// one it ran on.
type OtherHostError struct {
	RunID string
	// Ran is the host the run ran on; Now the host in use.
	Ran store.RunHost
	Now session.Identity
}

func (e *OtherHostError) Error() string {
	return fmt.Sprintf("run %s ran on %s, and Baton now uses %s; a run continues only on its own host. "+
		"Choose %s in Settings (or run baton run --resume %s, which uses it), or move the run here with baton run --resume %s --host %s",
		e.RunID, Name(e.Ran), e.Now.Description, e.Ran.Label, e.RunID, e.RunID, e.Now.Short)
}

func (e *OtherHostError) Unwrap() error { return ErrOtherHost }

// Name names a run's host as a person reads it.
func Name(h store.RunHost) string {
	switch {
	case h.Description != "":
		return h.Description
	case h.Label != "":
		return h.Label
	}
	return h.Kind
}

// Row is a host's identity as a run stores it.
func Row(id session.Identity) store.RunHost {
	return store.RunHost{Kind: id.Kind, Label: id.Label, Path: id.Path, Version: id.Version, Endpoint: id.Endpoint,
		Description: id.Description}
}

// Move is what moving a run to the host in use kept and starts again.
type Move struct {
	From store.RunHost `json:"from"`
	To   store.RunHost `json:"to"`
	// Kept are the completed tasks, whose reports stay; Restarted the
	// tasks whose sessions start again on the new host.
	Kept      []string `json:"kept"`
	Restarted []string `json:"restarted"`
	// Main: the main session starts again (it first reads the run so far).
	Main bool `json:"main"`
	// Message says all of it in sentences.
	Message string `json:"message"`
}

// Said says what a move kept and what starts again.
func (m *Move) Said() string {
	var b strings.Builder
	fmt.Fprintf(&b, "The run moved from %s to %s.", Name(m.From), Name(m.To))
	if n := len(m.Kept); n > 0 {
		fmt.Fprintf(&b, " %s (%s) and %s stay.", countOf(n, "completed task", "completed tasks"), strings.Join(m.Kept, ", "),
			map[bool]string{true: "its report", false: "their reports"}[n == 1])
	}
	var again []string
	if n := len(m.Restarted); n > 0 {
		again = append(again, fmt.Sprintf("%s (%s)", countOf(n, "task", "tasks"), strings.Join(m.Restarted, ", ")))
	}
	if m.Main {
		again = append(again, "the main session (it first reads the run so far)")
	}
	if len(again) > 0 {
		fmt.Fprintf(&b, " Starting again there in new sessions: %s; their conversations stay on %s.", strings.Join(again, " and "), Name(m.From))
	} else {
		b.WriteString(" Nothing had started that must start again.")
	}
	return b.String()
}

// countOf is "1 task" or "3 tasks".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Identify is the host that serves a run as the run stores it, once it is
// connected (the first prompt connects it); false when it cannot say
// (id nil: it does not say which it is).
func Identify(ctx context.Context, id session.Identifier) (store.RunHost, bool) {
	if id == nil {
		return store.RunHost{}, false
	}
	ident, err := id.Identity(ctx)
	if err != nil {
		return store.RunHost{}, false
	}
	return Row(ident), true
}
