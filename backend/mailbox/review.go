package mailbox

import (
	"errors"
	"fmt"
	"slices"
)

// State is the state of one task in the review gate of seed 001:
//
//	pending → in_progress → awaiting_review → completed
//	              │                │
//	              └──────────▶ rejected ──▶ pending (retry)
//
// The transitions are exactly those of seed 001's state diagram:
// pending → in_progress (the team lead assigns it), in_progress →
// awaiting_review (the developer reports), awaiting_review → completed (the
// lead approves), awaiting_review → rejected (the lead rejects), rejected →
// pending (reset for a retry), and in_progress → rejected, which the
// diagram draws (the lead rejects a task before any report, for example
// when the developer cannot do it). completed is final; rejected is final
// once the retries are used up.
type State int

// States.
const (
	Pending State = iota
	InProgress
	AwaitingReview
	Completed
	Rejected
)

var stateNames = []string{"pending", "in_progress", "awaiting_review", "completed", "rejected"}

// String returns the seed's name of the state ("awaiting_review").
func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return fmt.Sprintf("State(%d)", int(s))
	}
	return stateNames[s]
}

// ParseState reads a state name.
func ParseState(name string) (State, error) {
	if i := slices.Index(stateNames, name); i >= 0 {
		return State(i), nil
	}
	return 0, fmt.Errorf("unknown task state %q: %w", name, ErrUnknownState)
}

// MarshalText writes the state's name, so JSON holds "in_progress".
func (s State) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(stateNames) {
		return nil, fmt.Errorf("marshal %s: %w", s, ErrUnknownState)
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a state name.
func (s *State) UnmarshalText(b []byte) error {
	v, err := ParseState(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Sentinel errors of the review gate.
var (
	ErrIllegalTransition = errors.New("illegal transition")
	ErrRetriesExhausted  = errors.New("retries exhausted")
	ErrUnknownState      = errors.New("unknown state")
)

// transitions lists the allowed moves.
var transitions = map[State][]State{
	Pending:        {InProgress},
	InProgress:     {AwaitingReview, Rejected},
	AwaitingReview: {Completed, Rejected},
	Rejected:       {Pending},
}

// CanTransition reports whether seed 001 allows from → to.
func CanTransition(from, to State) bool { return slices.Contains(transitions[from], to) }

// Review is one task's place in the review gate: its state, the reason
// and required changes of the last rejection, and the retries used. The
// zero value is a pending task with no retries allowed.
type Review struct {
	State State `json:"state"`
	// MaxRetries bounds how often a rejected task goes back to pending.
	MaxRetries int `json:"maxRetries"`
	// Retries counts the rejected → pending moves so far.
	Retries int `json:"retries"`
	// Reason and RequiredChanges are those of the last rejection; they go
	// into the retry prompt and are kept after the retry starts.
	Reason          string   `json:"rejectionReason,omitempty"`
	RequiredChanges []string `json:"requiredChanges,omitempty"`
}

func (r *Review) move(to State) error {
	if !CanTransition(r.State, to) {
		return fmt.Errorf("move task from %s to %s: the task is %s: %w", r.State, to, r.State, ErrIllegalTransition)
	}
	r.State = to
	return nil
}

// Start moves pending → in_progress (the task is assigned).
func (r *Review) Start() error { return r.move(InProgress) }

// Submit moves in_progress → awaiting_review (the developer reported).
func (r *Review) Submit() error { return r.move(AwaitingReview) }

// Approve moves awaiting_review → completed.
func (r *Review) Approve() error {
	if r.State != AwaitingReview {
		return fmt.Errorf("approve: the task is %s, not awaiting_review: %w", r.State, ErrIllegalTransition)
	}
	return r.move(Completed)
}

// Reject moves awaiting_review (or in_progress) → rejected, keeping the
// reason and the required changes. The reason must not be empty.
func (r *Review) Reject(reason string, requiredChanges []string) error {
	if reason == "" {
		return fmt.Errorf("reject: a rejection needs a reason: %w", ErrIllegalTransition)
	}
	if err := r.move(Rejected); err != nil {
		return err
	}
	r.Reason, r.RequiredChanges = reason, slices.Clone(requiredChanges)
	return nil
}

// Retry moves rejected → pending when retries remain; otherwise the task
// stays rejected and the error wraps ErrRetriesExhausted.
func (r *Review) Retry() error {
	if r.State != Rejected {
		return r.move(Pending)
	}
	if r.Retries >= r.MaxRetries {
		return fmt.Errorf("retry: the task was rejected and used %d of %d retries: %w", r.Retries, r.MaxRetries, ErrRetriesExhausted)
	}
	r.Retries++
	return r.move(Pending)
}

// Final reports whether the task can move no further: completed, or
// rejected with no retries left.
func (r *Review) Final() bool {
	return r.State == Completed || (r.State == Rejected && r.Retries >= r.MaxRetries)
}
