package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

// Warm starts and the memory wait: what the scheduler tells a host before
// a worker starts. A host that can start a session's process ahead of its
// first message (session.Warmer, the Claude Code CLI) is told which workers
// will start soon; one whose sessions take this machine's memory
// (session.Roomer) says how many more fit, and a ready worker that does not
// fit waits with "waiting for memory: N MB free" instead of starting.

// warmth is the run's warm sessions: the task each was warmed for, and
// those warmed while the run planned, for any task.
type warmth struct {
	tasks map[string]session.ID
	early []session.ID
	// planned: the early ones were asked for (once a run).
	planned bool
	// after: the host declined the last one; none is asked for before
	// this time (a host that cannot warm costs no prompt rendering at
	// every step).
	after time.Time
}

// warmPause is how long the run waits after the host declined a warm
// session.
const warmPause = time.Second

// soon returns the pending tasks whose worker may start next, the ready
// ones first: every dependency completed or running (not while one
// starts: its own start comes first on the machine). They share the folder only: a worktree is made when its
// worker starts, after its dependencies are merged, so a session in it
// cannot start earlier.
func (p *taskPlan) soon() []*store.Task {
	out := p.ready()
	for i := range p.tasks {
		t := &p.tasks[i]
		ws := p.workers[t.ID]
		if ws == nil || ws.status != WorkerPending || p.satisfied(t) {
			continue
		}
		near := true
		for _, d := range t.Dependencies {
			if dw := p.workers[d]; dw != nil && dw.status != WorkerCompleted && dw.status != WorkerRunning &&
				!(dw.w.Skipped && dw.w.Error == "skipped by the user") {
				near = false
				break
			}
		}
		if near {
			out = append(out, t)
		}
	}
	return out
}

// warmSoon warms the sessions of the tasks that may start next, at most
// maxWorkers of them, and cools those whose task will not start with them.
func (r *runner) warmSoon(ctx context.Context) error {
	switch {
	case r.status == RunPlanning || r.status == RunConfirming:
		return r.warmEarly(ctx)
	case r.status != RunSpawning && r.status != RunRunning:
		r.coolAll()
		return nil
	}
	for task, id := range r.warm.tasks {
		ws := r.plan.workers[task]
		if ws == nil || ws.status != WorkerPending || r.workerSessionID(ws) != id {
			delete(r.warm.tasks, task)
			r.e.host.Cool(id)
		}
	}
	if r.iso != nil || r.limits.Waiting() || r.checks.HoldsWorkers() || time.Now().Before(r.warm.after) {
		// While the checks' baseline holds the first workers, the sessions
		// warmed as the run planned wait for them.
		return nil
	}
	room := r.tmpl.Config.MaxWorkers - len(r.warm.tasks)
	for _, t := range r.plan.soon() {
		if room <= 0 {
			break
		}
		ws := r.plan.workers[t.ID]
		if _, ok := r.warm.tasks[t.ID]; ok || ws.memory != 0 {
			continue
		}
		opts, _, err := r.startOptions(ws, t)
		if err != nil {
			continue // its spawn says why
		}
		id, err := r.e.host.Warm(ctx, opts)
		if err != nil {
			r.log.Debug("warm a worker's session", "task", t.ID, "err", err)
		}
		if id == "" {
			r.warm.after = time.Now().Add(warmPause) // the host holds as many as it will
			break
		}
		r.warm.tasks[t.ID] = id
		room--
	}
	return nil
}

// warmEarly warms, once while the run plans, maxWorkers sessions for the
// first workers, before their tasks are known: the folder, the permission
// mode, the system prompt and the model of a task of normal complexity are
// the template's. A first worker whose session differs starts its own.
func (r *runner) warmEarly(ctx context.Context) error {
	if r.warm.planned || r.iso != nil || !r.tmpl.Phases.WorkerExecution.Enabled {
		return nil
	}
	r.warm.planned = true
	_, system, err := r.prompts.Worker(&store.Task{}, "")
	if err != nil {
		return nil
	}
	opts := session.StartOptions{Cwd: r.run.Cwd, Model: r.prompts.Model(&store.Task{}),
		PermissionMode: r.tmpl.Config.PermissionMode, SystemPrompt: system}
	for range r.tmpl.Config.MaxWorkers {
		id, err := r.e.host.Warm(ctx, opts)
		if err != nil {
			r.log.Debug("warm a session for the first workers", "err", err)
		}
		if id == "" {
			break
		}
		r.warm.early = append(r.warm.early, id)
	}
	return nil
}

// coolAll ends every warm session of the run (one a Start took is not the
// host's to end any more).
func (r *runner) coolAll() {
	for task, id := range r.warm.tasks {
		delete(r.warm.tasks, task)
		r.e.host.Cool(id)
	}
	for _, id := range r.warm.early {
		r.e.host.Cool(id)
	}
	r.warm.early = nil
}

// workerSessionID is the id the worker's next session gets.
func (r *runner) workerSessionID(ws *workerState) session.ID {
	id, _ := WorkerSessionID(r.run.ID, sessionPart(ws))
	return id
}

// sessionPart names the worker's attempt in its session id.
func sessionPart(ws *workerState) string {
	if ws.book.Attempt > 0 {
		return fmt.Sprintf("%s-r%d", ws.w.TaskID, ws.book.Attempt)
	}
	return ws.w.TaskID
}

// startOptions are the options of the worker's session in the run's
// folder, without its message, and the message's maker.
func (r *runner) startOptions(ws *workerState, t *store.Task) (session.StartOptions, func() string, error) {
	id, err := WorkerSessionID(r.run.ID, sessionPart(ws))
	if err != nil {
		return session.StartOptions{}, nil, err
	}
	prompt, system, err := r.prompts.Worker(t, ws.book.Feedback)
	if err != nil {
		return session.StartOptions{}, nil, err
	}
	return session.StartOptions{Cwd: r.run.Cwd, Title: hiddenPrefix(r.run.ID) + " " + t.ID + ": " + t.Title,
		ID: id, Model: r.prompts.Model(t), PermissionMode: r.tmpl.Config.PermissionMode, SystemPrompt: system}, prompt, nil
}

// waitForMemory keeps a ready worker from starting while memory is short:
// the first time, with an event that says how much is free; later, only
// its current action follows the figure.
func (r *runner) waitForMemory(ctx context.Context, ws *workerState, room session.Room) error {
	mb := max(1, room.FreeMB())
	msg := fmt.Sprintf("waiting for memory: %d MB free", room.FreeMB())
	if ws.memory == 0 {
		ws.memory = mb
		ws.w.CurrentAction = msg
		r.log.Info("a worker waits for memory", "task", ws.w.TaskID, "freeMB", room.FreeMB(), "eachMB", room.Each>>20)
		return r.apply(ctx, ws.event(EventWorkerMemory, msg))
	}
	if d := mb - ws.memory; d >= 64 || d <= -64 {
		ws.memory = mb
		ws.w.CurrentAction = msg
		ws.dirty = true
	}
	return nil
}
