// Package owner names the process that drives a run (its process id, when
// it started, on which machine, and which face of Baton it is: the window
// or the terminal) and tells whether that process still runs, so that one
// process at a time drives a run and a lock left by a process that died is
// taken over.
//
// Its one rule: a process is the same only if its id and its start agree
// (an id is reused after a process ended); on another machine nothing can
// be told, so such an owner counts as alive.
package owner

import (
	"errors"
	"fmt"
	"os"
)

// The faces of Baton that drive runs.
const (
	Window   = "window"
	Terminal = "terminal"
	// Serve is "baton serve": the window's services for browsers.
	Serve = "serve"
)

// Owner is one process that drives runs.
type Owner struct {
	PID int `json:"pid"`
	// Start identifies the process's start beside its id ("" when the
	// system does not say).
	Start string `json:"start,omitempty"`
	// Face is Window, Terminal or Serve ("" for another program of Baton's).
	Face string `json:"face,omitempty"`
	// Machine is the host name of the machine it runs on.
	Machine string `json:"machine,omitempty"`
}

// Self is this process as face.
func Self(face string) Owner {
	host, _ := os.Hostname()
	pid := os.Getpid()
	return Owner{PID: pid, Start: startOf(pid), Face: face, Machine: host}
}

// Same reports whether o and p are the same process.
func (o Owner) Same(p Owner) bool {
	return o.PID == p.PID && o.Machine == p.Machine && (o.Start == "" || p.Start == "" || o.Start == p.Start)
}

// Alive reports whether o still runs: on this machine, a process with its
// id that started when it did; on another machine (a shared configuration
// folder) it cannot be told, and o counts as alive.
func (o Owner) Alive() bool {
	if host, _ := os.Hostname(); o.Machine != "" && o.Machine != host {
		return true
	}
	if o.PID <= 0 || !running(o.PID) {
		return false
	}
	return o.Start == "" || o.Start == startOf(o.PID)
}

// String names o for a person: "Baton's window (process 4121)", "baton run
// (process 977)".
func (o Owner) String() string {
	what := "another Baton"
	switch o.Face {
	case Window:
		what = "Baton's window"
	case Terminal:
		what = "baton run"
	case Serve:
		what = "baton serve"
	}
	s := fmt.Sprintf("%s (process %d", what, o.PID)
	if host, _ := os.Hostname(); o.Machine != "" && o.Machine != host {
		s += " on " + o.Machine
	}
	return s + ")"
}

// ErrDriven: another process (Baton's window, a "baton run") drives the
// run. A *DrivenError names it.
var ErrDriven = errors.New("another process drives the run")

// DrivenError is a run that Owner, another process, drives.
type DrivenError struct {
	RunID string
	Owner Owner
}

func (e *DrivenError) Error() string {
	return fmt.Sprintf("run %s is driven by %s", e.RunID, e.Owner)
}

func (e *DrivenError) Unwrap() error { return ErrDriven }
