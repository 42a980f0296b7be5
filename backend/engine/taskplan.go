package engine

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/mailbox"
	"github.com/baton-app/baton/backend/store"
)

// workerState is the worker of one task as the run sees it.
type workerState struct {
	w      store.Worker
	status WorkerStatus
	book   workerBook
	// activity is when the worker last did something (engine clock).
	activity time.Time
	noticed  time.Time // when a host notice last led to a read (wall clock)
	dirty    bool      // progress not yet written
	// early is a mailbox report that came while the worker was still
	// starting; it is taken once the worker runs.
	early *mailbox.Report
}

// workerBook is a worker's state beyond its row, stored with it.
type workerBook struct {
	transcriptCursor
	// Reprompts counts the re-prompts for the completion report.
	Reprompts   int `json:"reprompts"`
	Attempt     int `json:"attempt,omitempty"`
	AutoRetries int `json:"autoRetries,omitempty"`
	// Partials counts the partial reports that re-queued the task.
	Partials  int      `json:"partials,omitempty"`
	SkippedBy string   `json:"skippedBy,omitempty"`
	Resume    string   `json:"resume,omitempty"`
	ToolFiles []string `json:"toolFiles,omitempty"`
	reviewGate
	limitBook
}

// reviewGate is the review state of a task (seed 001): the completion
// report awaiting review, the reviewer's last rejection (added to the next
// prompt) and how many times the task was rejected.
type reviewGate struct {
	Report     json.RawMessage `json:"report,omitempty"`
	Feedback   string          `json:"feedback,omitempty"`
	Rejections int             `json:"rejections,omitempty"`
}

func newWorker(runID, taskID string) *workerState {
	return &workerState{w: store.Worker{RunID: runID, TaskID: taskID}, status: WorkerPending}
}

// move changes the worker's status when the transition is legal.
func (ws *workerState) move(next WorkerStatus) error {
	if !ws.status.CanMove(next) {
		return illegalWorker(ws.w.TaskID, ws.status, next)
	}
	ws.status = next
	ws.w.Status = next.String()
	return nil
}

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
			w.w.Error = "skipped by the user"
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
		if w.status == WorkerCompleted || (w.w.Skipped && w.w.Error == "skipped by the user") {
			continue
		}
		return false
	}
	return true
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
	byPriority(out)
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
