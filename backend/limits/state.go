package limits

import (
	"time"
)

// Wait is a session waiting for a limit: a worker's (in its Book) or the
// main session's (State.MainWait).
type Wait struct {
	Kind    Kind      `json:"kind"`
	Message string    `json:"message,omitempty"`
	Until   time.Time `json:"until,omitzero"`
	Since   time.Time `json:"since"`
}

// Book is the part of a worker's stored state about limits.
type Book struct {
	Wait *Wait `json:"wait,omitempty"`
	// Limits counts the limits this task hit (none of them a retry).
	Limits int `json:"limits,omitempty"`
	// Waited is how long the worker waited for limits: it does not count
	// toward its worker timeout.
	Waited time.Duration `json:"waited,omitempty"`
}

// Hold puts the worker to wait w out: a limit it hit (counted in Limits)
// or the run's used-up budget (not counted).
func (b *Book) Hold(w Wait) {
	b.Wait = &w
	if w.Kind != Budget {
		b.Limits++
	}
}

// Release ends the worker's wait at now, adds the time to Waited, and
// returns what it waited for.
func (b *Book) Release(now time.Time) Kind {
	kind := b.Wait.Kind
	b.Waited += max(0, now.Sub(b.Wait.Since))
	b.Wait = nil
	return kind
}

// State is the run's state about limits and its budget, stored with the
// run.
type State struct {
	// WaitUntil is when the run goes on after a limit (nil: not waiting).
	WaitUntil *time.Time `json:"waitUntil,omitempty"`
	WaitKind  Kind       `json:"waitKind,omitempty"`
	// Due: the wait is over but the automatic resume is off; the run waits
	// for the user's Resume now.
	Due bool `json:"limitDue,omitempty"`
	// Streak counts the limits since the last completed task (backoff).
	Streak int `json:"limitStreak,omitempty"`
	// MainWait: the main session waits for a limit.
	MainWait *Wait `json:"mainWait,omitempty"`
	// Cap is how many workers may run at once after limits (0: maxWorkers).
	Cap    int         `json:"workerCap,omitempty"`
	Budget BudgetState `json:"budget,omitzero"`
	// Simulated: the run's host is the simulator; its costs are simulated.
	Simulated bool `json:"simulated,omitempty"`
}

// MaxWorkers is how many workers may run at once now: the template's
// configured maxWorkers (at least one), lowered after limits.
func (s *State) MaxWorkers(configured int) int {
	if configured <= 0 {
		configured = 1
	}
	if c := s.Cap; c > 0 && c < configured {
		return c
	}
	return configured
}

// Waiting reports whether the run waits for a limit: nothing new starts.
func (s *State) Waiting() bool { return s.WaitUntil != nil }

// Hit records limit l, hit by one of the run's sessions at now, and returns
// that session's wait. The run waits until the latest reset of its
// sessions' limits; jitter is the backoff's factor (Jitter).
func (s *State) Hit(l Limit, now time.Time, jitter float64) Wait {
	s.Streak++
	until := l.ResumeAt(now, s.Streak, jitter)
	if s.WaitUntil == nil || until.After(*s.WaitUntil) {
		s.WaitUntil = &until
		s.WaitKind = l.Kind
	}
	s.Due = false
	return Wait{Kind: l.Kind, Message: l.Message, Until: until, Since: now}
}

// Lower halves the number of workers at once after a worker's limit.
func (s *State) Lower(configured int) { s.Cap = max(1, s.MaxWorkers(configured)/2) }

// Success notes a completed task: one more worker may run at once, up to
// the configured maxWorkers.
func (s *State) Success(configured int) {
	s.Streak = 0
	if s.Cap > 0 {
		s.Cap++
		if s.Cap >= configured {
			s.Cap = 0
		}
	}
}

// Step is what a run does about limits at a step (State.Next).
type Step int

// The steps of a run that waits, or waited, for a limit.
const (
	// Hold: the run still waits (or waits for the user, as already said).
	Hold Step = iota
	// Due: the wait is over and the automatic resume is off: the run says
	// so once (Due is now set) and waits for the user.
	Due
	// Over: the wait is over: End it and resume the waiting sessions.
	Over
	// Free: the run waits for no limit: resume the sessions that still
	// wait, as the worker count allows.
	Free
)

// Next says what the run does at now; auto says whether it resumes by
// itself once a limit reset (asked only then).
func (s *State) Next(now time.Time, auto func() bool) Step {
	switch {
	case s.WaitUntil == nil:
		return Free
	case now.Before(*s.WaitUntil):
		return Hold
	case auto():
		return Over
	case s.Due:
		return Hold
	}
	s.Due = true
	return Due
}

// End ends the run's wait and returns what it waited for.
func (s *State) End() Kind {
	kind := s.WaitKind
	s.WaitUntil, s.WaitKind, s.Due = nil, "", false
	return kind
}

// WaitText is what the run and the waiting workers show while they wait
// until until.
func WaitText(until time.Time, now time.Time) string {
	l := until.Local()
	at := l.Format("15:04")
	if y, m, d := l.Date(); y != now.Local().Year() || m != now.Local().Month() || d != now.Local().Day() {
		at = l.Format("Mon 2 Jan 15:04")
	}
	return "waiting for the limit, resumes at " + at
}
