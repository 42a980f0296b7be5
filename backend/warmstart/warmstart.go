// Package warmstart is a run's warm sessions: a host that can start a
// session's process ahead of its first message (session.Warmer, the Claude
// Code CLI) is told which workers will start soon. While the run analyses
// and plans, sessions for the first workers are warmed before their tasks
// are known (once at each of those statuses: those the host ended meanwhile
// are warmed again); later, one per task that may start next, up to a room. Those whose
// task will not start with them are cooled, and all of them once the run
// stops running. A host that declines a warm session is not asked again
// for a pause. It decides what to warm; the engine says which tasks and
// with which options.
package warmstart

import (
	"context"
	"log/slog"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// Host is what warm starts need of a session host.
type Host interface {
	// Warm starts a process for the session opts describes and returns
	// the id Cool takes ("": the host holds as many as it will).
	Warm(ctx context.Context, opts session.StartOptions) (session.ID, error)
	// Cool ends the process Warm started for id, unless a Start took it.
	Cool(id session.ID)
}

// Pause is how long the run waits after the host declined a warm session.
const Pause = time.Second

// State is the run's warm sessions: the task each was warmed for, and
// those warmed while the run planned, for any task.
type State struct {
	host  Host
	log   *slog.Logger
	tasks map[string]session.ID
	early []session.ID
	// stage is the run's status at which the early ones were last asked
	// for ("" before).
	stage string
	// after: the host declined the last one; none is asked for before
	// this time (a host that cannot warm costs no prompt rendering at
	// every step).
	after time.Time
}

// New is a run's state of warm sessions on host.
func New(host Host, log *slog.Logger) *State {
	return &State{host: host, log: log, tasks: map[string]session.ID{}}
}

// Has reports whether a session was warmed for task.
func (s *State) Has(task string) bool {
	_, ok := s.tasks[task]
	return ok
}

// Started notes that the session of task started as id: Start took the
// session warmed for it, which is cooled if it was warmed as another id.
func (s *State) Started(task string, id session.ID) {
	if wid, ok := s.tasks[task]; ok {
		delete(s.tasks, task)
		if wid != id {
			s.host.Cool(wid)
		}
	}
}

// Early warms n sessions for the first workers with the options opts
// gives (false: none), once at each stage of the run (its status while it
// analyses, plans and waits to be confirmed): the first time under ids the
// host chooses, later with the same ids, so that the host keeps those it
// still holds and starts others (under new ids) for those it ended
// meanwhile (no worker took them within its time): the first workers meet
// started processes however long the run took to plan. The analysis starts them early enough
// for a fast model; a slow one's planning warms them again.
func (s *State) Early(ctx context.Context, stage string, n int, opts func() (session.StartOptions, bool)) {
	if s.stage == stage {
		return
	}
	s.stage = stage
	o, ok := opts()
	if !ok {
		return
	}
	for i := range n {
		if i < len(s.early) {
			o.ID = s.early[i] // kept by the host, or started again under its id
		} else {
			o.ID = ""
		}
		id, err := s.host.Warm(ctx, o)
		if err != nil {
			s.log.Debug("warm a session for the first workers", "err", err)
		}
		if id == "" {
			break
		}
		if i < len(s.early) {
			s.early[i] = id
		} else {
			s.early = append(s.early, id)
		}
	}
}

// CoolStale cools the sessions warmed for a task whose next session keep
// says is not the one warmed.
func (s *State) CoolStale(keep func(task string, id session.ID) bool) {
	for task, id := range s.tasks {
		if !keep(task, id) {
			delete(s.tasks, task)
			s.host.Cool(id)
		}
	}
}

// Paused reports whether the host declined a warm session less than Pause
// ago.
func (s *State) Paused(now time.Time) bool { return now.Before(s.after) }

// Fill warms a session for each of tasks (in order) that has none, with
// the options opts gives (false: none for it), while fewer than room are
// warm. A host that declines one is not asked again for a Pause.
func (s *State) Fill(ctx context.Context, room int, tasks []string, opts func(task string) (session.StartOptions, bool)) {
	room -= len(s.tasks)
	for _, task := range tasks {
		if room <= 0 {
			break
		}
		if s.Has(task) {
			continue
		}
		o, ok := opts(task)
		if !ok {
			continue
		}
		id, err := s.host.Warm(ctx, o)
		if err != nil {
			s.log.Debug("warm a worker's session", "task", task, "err", err)
		}
		if id == "" {
			s.after = time.Now().Add(Pause) // the host holds as many as it will
			break
		}
		s.tasks[task] = id
		room--
	}
}

// CoolAll ends every warm session of the run (one a Start took is not the
// host's to end any more).
func (s *State) CoolAll() {
	for task, id := range s.tasks {
		delete(s.tasks, task)
		s.host.Cool(id)
	}
	for _, id := range s.early {
		s.host.Cool(id)
	}
	s.early = nil
}
