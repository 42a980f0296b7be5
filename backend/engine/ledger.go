package engine

import (
	"github.com/baton-app/baton/backend/runledger"
	"github.com/baton-app/baton/backend/store"
)

// event is one event of a change (runledger.Event).
type event = runledger.Event

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
	return event{Name: name, P: p}
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
