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
// maxWorkers of them, and cools those whose task will not start with them
// (backend/warmstart). While the run analyses and plans, it warms
// maxWorkers sessions for the first workers, before their tasks are known: the folder, the
// permission mode, the system prompt and the model of a task of normal
// complexity are the template's. A first worker whose session differs
// starts its own.
func (r *runner) warmSoon(ctx context.Context) error {
	switch {
	case r.status == RunAnalyzing || r.status == RunPlanning || r.status == RunConfirming:
		if r.iso == nil && r.tmpl.Phases.WorkerExecution.Enabled {
			r.warm.Early(ctx, r.status.String(), r.tmpl.Config.MaxWorkers, func() (session.StartOptions, bool) {
				_, system, err := r.prompts.Worker(&store.Task{}, "")
				return session.StartOptions{Cwd: r.run.Cwd, Model: r.prompts.Model(&store.Task{}),
					PermissionMode: r.tmpl.Config.PermissionMode, SystemPrompt: system}, err == nil
			})
		}
		return nil
	case r.status != RunSpawning && r.status != RunRunning:
		r.warm.CoolAll()
		return nil
	}
	r.warm.CoolStale(func(task string, id session.ID) bool {
		ws := r.plan.workers[task]
		return ws != nil && ws.status == WorkerPending && workerSessionID(r.run.ID, ws) == id
	})
	if r.iso != nil || r.limits.Waiting() || r.checks.HoldsWorkers() || r.warm.Paused(time.Now()) {
		// While the checks' baseline holds the first workers, the sessions
		// warmed as the run planned wait for them.
		return nil
	}
	var soon []string
	for _, t := range r.plan.soon() {
		if r.plan.workers[t.ID].memory == 0 {
			soon = append(soon, t.ID)
		}
	}
	r.warm.Fill(ctx, r.tmpl.Config.MaxWorkers, soon, func(task string) (session.StartOptions, bool) {
		opts, _, err := r.startOptions(r.plan.workers[task], r.plan.task(task))
		return opts, err == nil // if not, its spawn says why
	})
	return nil
}

// workerSessionID is the id the worker's next session in run runID gets.
func workerSessionID(runID string, ws *workerState) session.ID {
	id, _ := WorkerSessionID(runID, sessionPart(ws))
	return id
}

// sessionPart names the worker's attempt in its session id.
func sessionPart(ws *workerState) string { return AttemptPart(ws.w.TaskID, ws.book.Attempt) }

// AttemptPart is the part of WorkerSessionID that names attempt n (from
// 0) of task taskID: the task's id, with "-rN" from the second attempt on.
func AttemptPart(taskID string, n int) string {
	if n > 0 {
		return fmt.Sprintf("%s-r%d", taskID, n)
	}
	return taskID
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
// the first time, with the change of an event that says how much is free
// (true); later, only its current action follows the figure.
func (ws *workerState) waitForMemory(room session.Room) (change, bool) {
	mb := max(1, room.FreeMB())
	msg := fmt.Sprintf("waiting for memory: %d MB free", room.FreeMB())
	if ws.memory == 0 {
		ws.memory = mb
		ws.w.CurrentAction = msg
		return ws.event(EventWorkerMemory, msg), true
	}
	if d := mb - ws.memory; d >= 64 || d <= -64 {
		ws.memory = mb
		ws.w.CurrentAction = msg
		ws.dirty = true
	}
	return change{}, false
}
