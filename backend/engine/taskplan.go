package engine

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/checkrounds"
	"github.com/baton-app/baton/backend/report"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/tasklist"
	"github.com/baton-app/baton/backend/template"
)

// taskPlan is the run's tasks and their workers: which task may start, how
// many workers are busy, which tasks depend on which.
type taskPlan struct {
	tasks   []store.Task
	workers map[string]*workerState
}

// replace makes tasks the plan, each with a new pending worker (a skipped
// task's worker cancelled), and returns the workers in plan order.
func (p *taskPlan) replace(runID string, tasks []store.Task) ([]*workerState, error) {
	p.tasks = tasks
	p.workers = map[string]*workerState{}
	var out []*workerState
	for _, t := range tasks {
		w := newWorker(runID, t.ID)
		if t.Skipped {
			if err := w.move(WorkerCancelled); err != nil {
				return nil, err
			}
			w.w.Skipped = true
			w.w.Error = report.ReasonSkippedByUser
		}
		p.workers[t.ID] = w
		out = append(out, w)
	}
	return out, nil
}

// add appends tasks with new pending workers, which it returns.
func (p *taskPlan) add(runID string, tasks []store.Task) []*workerState {
	var out []*workerState
	for _, t := range tasks {
		p.tasks = append(p.tasks, t)
		w := newWorker(runID, t.ID)
		p.workers[t.ID] = w
		out = append(out, w)
	}
	return out
}

// order returns the ids of the tasks that have a worker, in plan order.
func (p *taskPlan) order() []string {
	out := make([]string, 0, len(p.tasks))
	for _, t := range p.tasks {
		if _, ok := p.workers[t.ID]; ok {
			out = append(out, t.ID)
		}
	}
	return out
}

// inOrder returns the workers in plan order.
func (p *taskPlan) inOrder() []*workerState {
	ids := p.order()
	out := make([]*workerState, len(ids))
	for i, id := range ids {
		out[i] = p.workers[id]
	}
	return out
}

func (p *taskPlan) task(id string) *store.Task {
	for i := range p.tasks {
		if p.tasks[i].ID == id {
			return &p.tasks[i]
		}
	}
	return nil
}

// satisfied reports whether a task's dependencies let it start.
func (p *taskPlan) satisfied(t *store.Task) bool {
	for _, d := range t.Dependencies {
		w := p.workers[d]
		if w == nil {
			continue
		}
		if w.status == WorkerCompleted || (w.w.Skipped && w.w.Error == report.ReasonSkippedByUser) {
			continue
		}
		return false
	}
	return true
}

// completed says whether task id's worker completed.
func (p *taskPlan) completed(id string) bool {
	ws := p.workers[id]
	return ws != nil && ws.status == WorkerCompleted
}

// busy counts the workers that hold a place: starting, running, awaiting
// review, or paused while running.
func (p *taskPlan) busy() int {
	n := 0
	for _, ws := range p.workers {
		switch ws.status {
		case WorkerSpawning, WorkerRunning, WorkerAwaitingReview:
			n++
		case WorkerPaused:
			if ws.w.SessionID != "" && ws.book.Resume == WorkerRunning.String() {
				n++
			}
		}
	}
	return n
}

// ready returns the pending tasks whose dependencies are satisfied, by
// priority.
func (p *taskPlan) ready() []*store.Task {
	var out []*store.Task
	for i := range p.tasks {
		t := &p.tasks[i]
		if ws := p.workers[t.ID]; ws != nil && ws.status == WorkerPending && p.satisfied(t) {
			out = append(out, t)
		}
	}
	tasklist.ByPriority(out)
	return out
}

// allDone reports whether every worker is done.
func (p *taskPlan) allDone() bool {
	for _, ws := range p.workers {
		if !ws.status.Done() {
			return false
		}
	}
	return true
}

// skipDependents cancels every pending task that depends, directly or not,
// on task id, and names the reason.
func (p *taskPlan) skipDependents(id, reason string) ([]*workerState, error) {
	var out []*workerState
	queue := []string{id}
	seen := map[string]bool{id: true}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, t := range p.tasks {
			if seen[t.ID] {
				continue
			}
			for _, d := range t.Dependencies {
				if d != cur {
					continue
				}
				ws := p.workers[t.ID]
				if ws != nil && (ws.status == WorkerPending || ws.status == WorkerPaused) && ws.w.SessionID == "" {
					if err := ws.move(WorkerCancelled); err != nil {
						return out, err
					}
					ws.w.Skipped = true
					ws.w.Error = reason
					ws.book.SkippedBy = id
					out = append(out, ws)
				}
				seen[t.ID] = true
				queue = append(queue, t.ID)
				break
			}
		}
	}
	return out, nil
}

// dependsOn reports whether task a depends on task b, directly or not.
func (p *taskPlan) dependsOn(a, b string) bool {
	seen := map[string]bool{}
	var walk func(id string) bool
	walk = func(id string) bool {
		if seen[id] {
			return false
		}
		seen[id] = true
		t := p.task(id)
		if t == nil {
			return false
		}
		for _, d := range t.Dependencies {
			if d == b || walk(d) {
				return true
			}
		}
		return false
	}
	return walk(a)
}

// deadlockStep says why a run at pos must stop (""), when its pending
// tasks can never start: nothing runs, nothing is starting (inflight) or
// waiting for the checks, and every pending task waits for a task that
// will not complete.
func deadlockStep(pos *runPos, inflight int, checks *checkrounds.State, p *taskPlan) string {
	if (pos.status != RunSpawning && pos.status != RunRunning) || inflight > 0 || checks.IsRunning() || checks.HoldsWorkers() {
		return ""
	}
	if why := p.deadlock(); why != "" {
		return "dependency deadlock: no task can start and none is running: " + why
	}
	return ""
}

// deadlock explains why the pending tasks can never start ("" when some
// task can still start or some worker can still move the plan on). Call it
// only when no worker is starting.
func (p *taskPlan) deadlock() string {
	if p.busy() > 0 {
		return ""
	}
	var blocked []string
	for _, id := range p.order() {
		ws := p.workers[id]
		switch ws.status {
		case WorkerPending:
			t := p.task(id)
			if t == nil || p.satisfied(t) {
				return ""
			}
			var on []string
			for _, d := range t.Dependencies {
				if w := p.workers[d]; w != nil && w.status != WorkerCompleted {
					on = append(on, fmt.Sprintf("%s (%s)", d, w.status))
				}
			}
			blocked = append(blocked, fmt.Sprintf("%s waits for %s", id, strings.Join(on, ", ")))
		case WorkerPaused, WorkerRunning, WorkerSpawning, WorkerAwaitingReview, WorkerRejected, WorkerTimeout:
			return "" // someone can still move it on
		}
	}
	if len(blocked) == 0 {
		return ""
	}
	sort.Strings(blocked)
	return strings.Join(blocked, "; ")
}

// worker is the worker of task taskID of run runID.
func (p *taskPlan) worker(runID, taskID string) (*workerState, error) {
	ws := p.workers[taskID]
	if ws == nil {
		return nil, fmt.Errorf("run %s has no worker for task %s: %w", runID, taskID, ErrUnknownTask)
	}
	return ws, nil
}

// requeue makes ws's task pending again. With newSession it runs next in a
// new session (the old one was stopped); else under the same id, for a
// session that never started. auto counts an automatic retry.
func (p *taskPlan) requeue(ws *workerState, reason string, auto, newSession bool) (change, error) {
	if err := ws.move(WorkerPending); err != nil {
		return change{}, err
	}
	if auto {
		ws.book.AutoRetries++
	}
	if newSession {
		ws.book.Attempt++
		ws.book.Done = nil
	}
	ws.w.RetryCount++
	ws.w.SessionID = ""
	ws.w.Error = reason
	ws.w.Progress = 0
	ws.w.Waiting = nil
	ws.w.CompletedAt = nil
	ws.book.Reprompts = 0
	ws.book.Reset(session.Cursor{})
	return ws.event(EventWorkerRetrying, reason), nil
}

// fail fails ws's task for good at now; the tasks that depend on it are
// skipped.
func (p *taskPlan) fail(ws *workerState, reason string, now time.Time) (change, error) {
	if err := ws.move(WorkerFailed); err != nil {
		return change{}, err
	}
	ws.w.Error = reason
	ws.w.CompletedAt = &now
	ws.w.Waiting = nil
	c := change{}.finished(ws.w.TaskID, false)
	return p.skipAfter(c, ws, newEvent(EventWorkerFailed, ws, reason), fmt.Sprintf("skipped because %s failed", ws.w.TaskID))
}

// cancel cancels ws's task for the user at now (its session was stopped);
// the tasks that depend on it are skipped.
func (p *taskPlan) cancel(ws *workerState, now time.Time) (change, error) {
	if err := ws.move(WorkerCancelled); err != nil {
		return change{}, err
	}
	ws.w.Error = "cancelled by the user"
	ws.w.CompletedAt = &now
	return p.skipAfter(change{}, ws, newEvent(EventWorkerCancelled, ws, ""), fmt.Sprintf("skipped because %s was cancelled", ws.w.TaskID))
}

// skipAfter adds to c the end of ws (its event first) and the skipping of
// the tasks that depend on it, for reason.
func (p *taskPlan) skipAfter(c change, ws *workerState, ended event, reason string) (change, error) {
	skipped, err := p.skipDependents(ws.w.TaskID, reason)
	if err != nil {
		return change{}, err
	}
	c.skipped = ids(skipped)
	if len(skipped) > 0 {
		ended.P.Skipped = ids(skipped)
	}
	evs := []event{ended}
	for _, s := range skipped {
		evs = append(evs, newEvent(EventWorkerSkipped, s, s.w.Error))
	}
	return c.with(append([]*workerState{ws}, skipped...), evs...), nil
}

// retry runs ws's task again in a new session (a task the user skipped:
// after all); the tasks skipped because of it become pending again, in the
// change's next step.
func (p *taskPlan) retry(ws *workerState) (change, error) {
	taskID := ws.w.TaskID
	if ws.w.Skipped && ws.book.SkippedBy == "" {
		ws.w.Skipped = false
	} else if !ws.status.CanMove(WorkerPending) || ws.status == WorkerPaused || ws.status == WorkerSpawning ||
		ws.status == WorkerRunning {
		return change{}, illegalWorker(taskID, ws.status, WorkerPending)
	}
	var again []*workerState
	for _, o := range p.workers {
		if o.w.Skipped && o.book.SkippedBy != "" && p.dependsOn(o.w.TaskID, taskID) {
			if err := o.move(WorkerPending); err != nil {
				return change{}, err
			}
			o.w.Skipped = false
			o.w.Error = ""
			o.book.SkippedBy = ""
			again = append(again, o)
		}
	}
	ws.w.Skipped = false
	c, err := p.requeue(ws, "", false, true)
	if err == nil && len(again) > 0 {
		c.then = func() (change, error) { return change{}.with(again), nil }
	}
	return c, err
}

// overdue lists the running workers that ran longer than cfg's worker
// timeout or were quiet longer than its inactivity timeout at now, each
// with the reason.
func (p *taskPlan) overdue(now time.Time, cfg template.Config) ([]*workerState, []string) {
	abs := template.Seconds(cfg.WorkerTimeout)
	idle := template.Seconds(cfg.InactivityTimeout)
	var out []*workerState
	var why []string
	for _, ws := range p.inOrder() {
		if ws.status != WorkerRunning || ws.w.StartedAt == nil || len(ws.w.Questions) > 0 || ws.book.Wait != nil {
			// A worker with open questions waits for the user, not for itself.
			continue
		}
		switch {
		case abs > 0 && now.Sub(*ws.w.StartedAt)-ws.book.Waited > abs:
			out, why = append(out, ws), append(why, fmt.Sprintf("ran longer than the worker timeout of %d s", cfg.WorkerTimeout))
		case idle > 0 && ws.w.Waiting == nil && now.Sub(ws.activity) > idle:
			out, why = append(out, ws), append(why, fmt.Sprintf("no transcript activity for %d s", cfg.InactivityTimeout))
		}
	}
	return out, why
}

// touch restarts every worker's inactivity clock at now (a resume, a host
// that came back): the time in between is nobody's fault.
func (p *taskPlan) touch(now time.Time) {
	for _, ws := range p.workers {
		ws.activity = now
	}
}

// rows are the workers' rows by task id.
func (p *taskPlan) rows() map[string]store.Worker {
	out := make(map[string]store.Worker, len(p.workers))
	for id, ws := range p.workers {
		out[id] = ws.w
	}
	return out
}

// tally is what the workers add up to, for the run row.
type tally struct {
	done, failed, skipped     int
	inputTokens, outputTokens int64
	costUSD                   float64
}

func (p *taskPlan) tally() tally {
	var t tally
	for _, ws := range p.workers {
		t.inputTokens += ws.w.InputTokens
		t.outputTokens += ws.w.OutputTokens
		t.costUSD += ws.w.CostUSD
		switch {
		case ws.w.Skipped:
			t.skipped++
		case ws.status == WorkerCompleted:
			t.done++
		case ws.status == WorkerFailed || ws.status == WorkerCancelled:
			t.failed++
		}
	}
	return t
}

func ids(ws []*workerState) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.w.TaskID
	}
	sort.Strings(out)
	return out
}
