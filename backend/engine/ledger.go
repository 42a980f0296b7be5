package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/baton-app/baton/backend/store"
)

// committer is what the ledger needs of the store (*store.Store).
type committer interface {
	CreateRun(ctx context.Context, r store.Run, events ...store.Event) error
	Commit(ctx context.Context, runID string, c store.Change) error
	Interrupt(ctx context.Context, runID, reason string, ev store.Event) error
	TakeLock(ctx context.Context, l store.Lock, stale func(store.Lock) bool) error
	ReleaseLock(ctx context.Context, l store.Lock) error
}

// event is one event of a change: its row is stored with the change, and it
// is emitted once the change is stored.
type event struct {
	name string
	p    Payload
}

// newEvent is event name about worker ws (nil: about the run) with message
// msg. The ledger adds the run's id, status and phase.
func newEvent(name string, ws *workerState, msg string) event {
	p := Payload{Message: msg}
	if ws != nil {
		w := ws.w
		w.Status = ws.status.String()
		p.TaskID = w.TaskID
		p.Worker = &w
	}
	return event{name: name, p: p}
}

// change is what a step, a command or a concern decided beyond the run's
// working state: the rows it adds (tasks, answers, the final report), the
// workers it changed, what it tells the workflows, and the events that
// describe it. The runner applies it (runner.apply): one commit through the
// ledger.
type change struct {
	store.Change
	workers []*workerState
	events  []event
	// note, when set, is the run's new message.
	note *string
	// done are the tasks that completed or failed for good; skipped those
	// that will not run. The runner tells the workflows.
	done    []taskEnd
	skipped []string
	// final: the change finishes the run; its final report (report, or
	// built when it is applied) is stored with it.
	final  bool
	report *FinalReport
	// then, when set, decides the next change once this one is stored:
	// the next step of a decision starts from the state this one stored.
	then func() (change, error)
}

// taskEnd is a task that completed (ok) or failed for good.
type taskEnd struct {
	id string
	ok bool
	// notes are the warnings and issues of the worker's report.
	notes []string
}

// with adds workers and events to c.
func (c change) with(ws []*workerState, events ...event) change {
	c.workers = append(c.workers, ws...)
	c.events = append(c.events, events...)
	return c
}

// and is c followed by o, in one change.
func (c change) and(o change) change {
	c.Tasks = append(c.Tasks, o.Tasks...)
	c.ReplaceTasks = c.ReplaceTasks || o.ReplaceTasks
	c.Answers = append(c.Answers, o.Answers...)
	c.Decisions = append(c.Decisions, o.Decisions...)
	c.Rules = append(c.Rules, o.Rules...)
	if o.FinalReport != nil {
		c.FinalReport = o.FinalReport
	}
	c.workers = append(c.workers, o.workers...)
	c.events = append(c.events, o.events...)
	if o.note != nil {
		c.note = o.note
	}
	c.done = append(c.done, o.done...)
	c.skipped = append(c.skipped, o.skipped...)
	c.final = c.final || o.final
	if o.report != nil {
		c.report = o.report
	}
	if o.then != nil {
		c.then = o.then
	}
	return c
}

// say makes msg the run's message.
func (c change) say(msg string) change {
	c.note = &msg
	return c
}

// finished notes that task id completed (ok) or failed for good.
func (c change) finished(id string, ok bool, notes ...string) change {
	c.done = append(c.done, taskEnd{id, ok, notes})
	return c
}

// ledger writes a run's changes to the store, each in one transaction with
// the rows of the events that describe it, and emits the events only after.
// It is the one way a run's durable state changes: the run's creation, each
// step's change, Apply and Discard of its branch, and the interruption that
// stops it.
//
// The runner edits its working state and hands the result to the ledger;
// nothing outside the runner sees that state before the ledger has stored
// it. A commit that fails breaks the ledger: every later commit is refused
// with the same error, and the loop stops the run as soon as it sees it
// (broken), dropping the working state that ran ahead. Restore then takes
// the run up from what the store holds. A failed commit is never ignored.
type ledger struct {
	store committer
	emit  func(name string, p Payload)
	runID string
	log   *slog.Logger
	err   error
	// interrupted: the run was stopped as interrupted (interrupt).
	interrupted bool
}

// stamp completes the payloads of events with the run row after the change:
// its id, status and phase, and on orchestrator events the row itself.
func (l *ledger) stamp(run *store.Run, events []event) ([]store.Event, error) {
	out := make([]store.Event, 0, len(events))
	for i := range events {
		events[i].p.RunID = l.runID
		if run != nil {
			if events[i].p.Run == nil && strings.HasPrefix(events[i].name, "orchestrator:") {
				rc := *run
				events[i].p.Run = &rc
			}
			events[i].p.Status = run.Status
			events[i].p.Phase = run.Phase
		}
		pj, err := json.Marshal(events[i].p)
		if err != nil {
			return nil, fmt.Errorf("event %s: %w", events[i].name, err)
		}
		out = append(out, store.Event{RunID: l.runID, TaskID: events[i].p.TaskID, Name: events[i].name, Payload: pj})
	}
	return out, nil
}

// create stores the new run with the rows of events, then emits them.
func (l *ledger) create(ctx context.Context, run store.Run, events ...event) error {
	rows, err := l.stamp(&run, events)
	if err != nil {
		return fmt.Errorf("create run %s: %w", l.runID, err)
	}
	if err := l.store.CreateRun(ctx, run, rows...); err != nil {
		return err
	}
	l.send(events)
	return nil
}

// commit stores change c (whose Run is the run row after the change) with
// the rows of events, then emits them. The events carry the run's status
// and phase after the change; orchestrator events also the run row.
func (l *ledger) commit(ctx context.Context, c store.Change, events ...event) error {
	if l.err != nil {
		return l.err
	}
	rows, err := l.stamp(c.Run, events)
	if err != nil {
		return l.refuse(fmt.Errorf("save run %s: %w", l.runID, err))
	}
	c.Events = append(c.Events, rows...)
	if err := l.store.Commit(context.WithoutCancel(ctx), l.runID, c); err != nil {
		return l.refuse(fmt.Errorf("save run %s: %w", l.runID, err))
	}
	l.send(events)
	return nil
}

func (l *ledger) send(events []event) {
	for _, e := range events {
		l.emit(e.name, e.p)
	}
}

// refuse breaks the ledger with err: a change that cannot be stored, or
// working state that cannot be written down.
func (l *ledger) refuse(err error) error {
	l.err = err
	l.log.Error("a change of the run could not be saved; the run stops and is taken up again from the store", "err", err)
	return err
}

// broken returns the error of the commit that failed (nil while none did).
func (l *ledger) broken() error { return l.err }

// halted reports whether the run (its row, run) must stop because a change
// could not be saved (refuse logged it; the run stops as interrupted). Any
// other error of a step is logged, and the step goes on.
func (l *ledger) halted(run *store.Run, err error) bool {
	if l.err != nil {
		l.interrupt(*run)
		return true
	}
	if err != nil {
		l.log.Warn("step", "err", err)
	}
	return false
}

// interruptAttempts is how many times interrupt tries to store the
// interruption.
const interruptAttempts = 5

// interrupt runs once, after the ledger broke: the store stayed unwritable
// through its retries, so the run (its stored row, run) stops as
// interrupted with the reason. Only the status, the reason and one event
// row are stored (store.Interrupt), so what was stored before stays true;
// the working state that ran ahead is dropped and Resume takes the run up
// from the store. When even that cannot be stored, the stored run keeps its
// status and Restore takes it up.
func (l *ledger) interrupt(run store.Run) {
	if l.interrupted || l.err == nil {
		return
	}
	l.interrupted = true
	reason := "Baton could not save the run's progress, so the run stopped; resume it when the database is writable again. " + l.err.Error()
	p := Payload{RunID: l.runID, Status: RunInterrupted.String(), Phase: run.Phase, Message: reason}
	pj, err := json.Marshal(p)
	if err != nil {
		l.log.Error("the run could not be marked interrupted; Restore takes it up from the store", "err", err)
		return
	}
	// Each attempt waits out the store's own retry window; a few more give a
	// store that was locked for long a last chance to say why the run stopped.
	for range interruptAttempts {
		if err = l.store.Interrupt(context.Background(), l.runID, reason, store.Event{Name: EventStatusChanged, Payload: pj}); err == nil {
			break
		}
	}
	if err != nil {
		l.log.Error("the run could not be marked interrupted either; Restore takes it up from the store", "err", err)
		return
	}
	l.emit(EventStatusChanged, p)
}
