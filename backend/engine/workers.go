package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/baton-app/baton/backend/isolation"
	"github.com/baton-app/baton/backend/scope"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/transcript"
	"github.com/baton-app/baton/backend/workflows"
)

// A worker's life on the runner: scheduling, spawn and onStarted,
// checkWorker (progress, report, permission, re-prompt, keyword fallback),
// retries, failures, timeouts, progress flushes.

// schedule starts the ready tasks the free places allow.
func (r *runner) schedule(ctx context.Context) error {
	if r.status != RunSpawning && r.status != RunRunning {
		return nil
	}
	if r.limits.Waiting() {
		return nil // a limit: nothing new starts before it resets
	}
	if r.checks.HoldsWorkers() {
		// The workers start once the baseline of the checks is taken.
		if r.checks.IsRunning() || r.status.Held() {
			return nil
		}
		return r.startChecks(ctx, 0)
	}
	free := r.limits.MaxWorkers(r.tmpl.Config.MaxWorkers) - r.plan.busy()
	if free <= 0 {
		return nil
	}
	delay := time.Duration(r.tmpl.Config.SpawnDelay * float64(time.Second))
	room := r.e.host.Room()
	// Sessions still starting may not show in the host's figures yet.
	taken := r.inflight - int(r.returned.Load())
	busy := r.plan.busy()
	now, bound := time.Now(), r.e.reconnectBound()
	n := 0
	for _, t := range r.plan.ready() {
		if r.iso != nil && !r.iso.Ready(t.Dependencies, r.plan.completed) {
			continue // with isolation: once its dependencies are merged
		}
		if n >= free {
			break
		}
		ws := r.plan.workers[t.ID]
		// Its start was cut by its machine's loss: it waits for the
		// machine as its running workers do, not starting again there at
		// every step; past the bound it starts elsewhere in a new session
		// (the machine routes the old one).
		if away, msg := r.places.Away(t.ID, now, bound); away == isolation.Wait {
			continue
		} else if away == isolation.Elsewhere {
			r.places.Leave(t.ID)
			if err := r.apply(ctx, ws.leftMachine(msg)); err != nil {
				return err
			}
		}
		warm := r.warm.Has(t.ID) // its process runs already: counted in the room
		// A worker placed on a machine takes that machine's memory.
		here := r.iso == nil || r.places.Take(r.iso, t.ID) == ""
		if !warm && here && room.Fits() <= taken && busy+n > 0 {
			// Short of memory: it waits (a run with no worker busy starts
			// one all the same, so that it goes on).
			left := room
			left.Free = max(0, room.Free-int64(taken)*room.Each)
			if c, first := ws.waitForMemory(left); first {
				r.log.Info("a worker waits for memory", "task", ws.w.TaskID, "freeMB", left.FreeMB(), "eachMB", left.Each>>20)
				if err := r.apply(ctx, c); err != nil {
					return err
				}
			}
			continue
		}
		if !warm && here {
			taken++
		}
		if err := r.spawn(ctx, ws, t, time.Duration(n)*delay); err != nil {
			return err
		}
		n++
	}
	return nil
}

// spawn starts the worker of task t after wait. Its session id is stored
// before the session exists: after a crash, Restore finds the session by
// this id instead of starting another.
func (r *runner) spawn(ctx context.Context, ws *workerState, t *store.Task, wait time.Duration) error {
	fail := func(reason string) error {
		if ctx.Err() != nil {
			return nil // stopping: nothing failed; Restore takes it up from the store
		}
		c, err := r.plan.fail(ws, reason, r.e.now())
		return errors.Join(err, r.apply(ctx, c))
	}
	sid, err := WorkerSessionID(r.run.ID, sessionPart(ws))
	if err != nil {
		return fail(err.Error())
	}
	if err := r.flows.Assign(ctx, t); err != nil {
		return fail(err.Error())
	}
	cwd := r.run.Cwd
	if r.iso != nil {
		err := r.openWorkspace(ctx)
		placed := false
		if err == nil {
			cwd, placed, err = r.places.Cwd(ctx, r.iso, t.ID, sid)
		}
		if err == nil && !placed {
			cwd, err = r.iso.TaskCwd(ctx, t.ID, r.tmpl.Config.Transport == TransportMailbox)
		}
		if err != nil {
			return fail("give the worker its git worktree: " + err.Error())
		}
	}
	opts, prompt, err := r.startOptions(ws, t)
	if err != nil {
		return fail(err.Error())
	}
	opts.Cwd = cwd
	id := opts.ID
	if err := ws.move(WorkerSpawning); err != nil {
		return err
	}
	ws.early, ws.memory, ws.w.CurrentAction = nil, 0, ""
	r.warm.Started(t.ID, id) // Start takes its warm session
	ws.w.SessionID = string(id)
	ws.w.Model = opts.Model
	ws.w.Error = ""
	ws.book.Reset(session.Cursor{})
	if err := r.apply(ctx, ws.event(EventWorkerSpawned, "")); err != nil {
		return err
	}
	r.e.track(id, r)
	r.inflight++
	attempt := ws.book.Attempt
	roots := snapshotRoots(t)
	shared := r.iso == nil
	r.e.wg.Add(1)
	go func() {
		defer r.e.wg.Done()
		res := startResult{taskID: t.ID, attempt: attempt}
		if shared {
			// What the task changes is read against this (outputs.go).
			s := scope.Take(cwd, roots)
			res.before = &s
		}
		opts.Message = prompt()
		if wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				res.err = ctx.Err()
			}
		}
		if res.err == nil {
			res.id, res.err = r.e.host.Start(ctx, opts)
		}
		r.returned.Add(1)
		select {
		case r.started <- res:
		case <-ctx.Done():
		}
	}()
	return nil
}

// onStarted takes the end of a worker's start: running, or started again.
func (r *runner) onStarted(ctx context.Context, res startResult) error {
	r.inflight--
	r.returned.Add(-1)
	ws := r.plan.workers[res.taskID]
	if ws == nil || ws.book.Attempt != res.attempt || ws.status != WorkerSpawning {
		// Cancelled (or retried) while starting: stop what was started.
		if res.err == nil && res.id != "" {
			r.archive.Discard(ctx, res.id)
		}
		return nil
	}
	if res.err != nil && lostHost(res.err) {
		if ctx.Err() != nil {
			return nil // stopping: Restore looks for the session by its id
		}
		r.log.Info("a worker's start was cut by the lost host; it starts again when the host is back", "task", ws.w.TaskID, "err", res.err)
		_, msg := r.places.Away(ws.w.TaskID, time.Now(), r.e.reconnectBound()) // its machine's
		c, err := ws.startLost(msg)
		if err != nil {
			return err
		}
		return r.apply(ctx, c)
	}
	if res.err != nil {
		// The call failed, but the host may have created the session: look
		// before trying again, and try again under the same id, so that
		// one task never gets two sessions.
		if _, serr := r.e.host.Session(ctx, session.ID(ws.w.SessionID)); serr != nil {
			if ctx.Err() != nil {
				return nil // stopping: Restore looks for the session by its id
			}
			reason := fmt.Sprintf("start the worker session: %v", res.err)
			if ws.book.AutoRetries < r.tmpl.Config.MaxRetries && !r.status.Held() {
				c, err := r.plan.requeue(ws, reason, true, false)
				return errors.Join(err, r.apply(ctx, c))
			}
			c, err := r.plan.fail(ws, reason, r.e.now())
			return errors.Join(err, r.apply(ctx, c))
		}
		r.log.Info("the worker session exists although its start failed", "task", ws.w.TaskID, "err", res.err)
		res.id = session.ID(ws.w.SessionID)
	}
	if string(res.id) != ws.w.SessionID {
		r.e.untrack(session.ID(ws.w.SessionID))
		ws.w.SessionID = string(res.id)
		r.e.track(res.id, r)
	}
	if err := ws.started(r.e.now()); err != nil {
		return err
	}
	if ws.before == nil {
		// The first attempt's: what an earlier attempt of the task wrote
		// counts as the task's.
		ws.before = res.before
	}
	c := ws.event(EventWorkerStarted, "")
	if r.status == RunSpawning {
		if err := r.move(RunRunning); err != nil {
			return err
		}
		c = c.with(nil, newEvent(EventWorkersSpawned, nil, ""), newEvent(EventStatusChanged, nil, ""))
	}
	if err := r.apply(ctx, c); err != nil {
		return err
	}
	r.follow.Mark(res.id, session.NoticeMessage)
	if rep := ws.early; rep != nil {
		ws.early = nil
		return r.onMail(ctx, *rep)
	}
	return nil
}

// onMail takes one report that came outside the worker's transcript (the
// file mailbox's to-team-lead.json).
func (r *runner) onMail(ctx context.Context, rep workflows.Report) error {
	ws := r.plan.workers[rep.TaskID]
	switch {
	case ws == nil:
		r.log.Warn("mailbox message for an unknown task", "task", rep.TaskID, "err", rep.Err)
		return nil
	case rep.Err != nil:
		ws.w.Error = "a message in to-team-lead.json cannot be used: " + rep.Err.Error()
		return r.apply(ctx, ws.event(EventWorkerProgress, ws.w.Error))
	case ws.status == WorkerSpawning && rep.Completion != nil:
		// The developer was quicker than the start of its session's
		// answer: take the report once the worker runs.
		ws.early = &rep
		return nil
	case ws.status != WorkerRunning || rep.Completion == nil:
		return nil // already reported in its transcript
	}
	return r.report(ctx, ws, rep.Completion, false)
}

// checkWorkers reads the running workers that changed (all of them at a
// poll) and moves each on with what it wrote.
func (r *runner) checkWorkers(ctx context.Context, dirty map[session.ID]session.NoticeKind, poll bool) error {
	now := time.Now()
	type check struct {
		ws   *workerState
		kind session.NoticeKind
	}
	var checks []check
	for _, ws := range r.plan.inOrder() {
		if ws.status != WorkerRunning || ws.book.Wait != nil {
			continue // a worker waiting for a limit has nothing new
		}
		kind, ok := dirty[session.ID(ws.w.SessionID)]
		if ok && kind == session.NoticeMessage && !ws.book.More() {
			if wait := transcript.MessageReadGap - now.Sub(ws.book.LastRead()); wait > 0 {
				r.follow.Later(session.ID(ws.w.SessionID), wait)
				continue
			}
		}
		if ok {
			ws.noticed = now
		} else if poll && r.e.dispatch && now.Sub(ws.noticed) < r.pollEvery {
			// Notices for this session arrive: the poll has nothing to add.
			// (A host without notices is read at every tick.)
			continue
		}
		if ok || poll {
			checks = append(checks, check{ws, kind})
		}
	}
	if len(checks) > 1 {
		// Read the sessions at once: each Read is a round trip to the host,
		// and the last of several workers finishing together should not
		// wait for the others' reads.
		ids := make([]session.ID, len(checks))
		cursors := make([]session.Cursor, len(checks))
		for i, c := range checks {
			ids[i], cursors[i] = session.ID(c.ws.w.SessionID), c.ws.book.At
		}
		r.follow.Prefetch(ctx, ids, cursors)
	}
	defer r.follow.DropPrefetched()
	for _, c := range checks {
		if c.ws.status == WorkerRunning {
			if err := r.checkWorker(ctx, c.ws, c.kind); r.ledger.Halted(&r.run, err) {
				return err
			}
		}
	}
	return nil
}

// checkTimeouts stops the workers that ran too long or too quietly.
func (r *runner) checkTimeouts(ctx context.Context) error {
	late, why := r.plan.overdue(r.e.now(), r.tmpl.Config)
	for i, ws := range late {
		if err := r.e.host.Interrupt(ctx, session.ID(ws.w.SessionID)); err != nil {
			r.log.Debug("interrupt worker session", "task", ws.w.TaskID, "err", err)
		}
		if err := ws.move(WorkerTimeout); r.ledger.Halted(&r.run, err) {
			return err
		} else if err != nil {
			continue
		}
		ws.w.Error = why[i]
		if err := r.apply(ctx, ws.event(EventWorkerTimeout, why[i])); err != nil {
			return err
		}
		if err := r.workerFailed(ctx, ws, why[i], true); r.ledger.Halted(&r.run, err) {
			return err
		}
	}
	return nil
}

// flushProgress writes and sends the progress gathered since the last
// flush (tool counts, current actions, tokens), as one event per kind.
func (r *runner) flushProgress(ctx context.Context) error {
	r.lastFlush = time.Now()
	var ws []*workerState
	for _, w := range r.plan.inOrder() {
		if w.dirty {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 && !r.main.Progressed {
		return nil
	}
	if err := r.sync(); err != nil {
		return r.ledger.Refuse(fmt.Errorf("save run %s: %w", r.run.ID, err))
	}
	c := store.Change{}
	for _, w := range ws {
		c.Workers = append(c.Workers, w.w)
		w.dirty = false
	}
	run := r.run
	c.Run = &run
	if err := r.ledger.Commit(ctx, c); err != nil {
		return err
	}
	if r.main.Progressed {
		r.main.Progressed = false
		r.e.emit(EventProgress, Payload{RunID: r.run.ID, Status: r.run.Status, Phase: r.run.Phase, Run: &run, Message: r.main.Action, Tool: r.main.Tool})
	}
	if len(ws) == 0 {
		return nil
	}
	p := Payload{RunID: r.run.ID, Status: r.run.Status, Phase: r.run.Phase, Run: &run}
	for _, w := range ws {
		p.Workers = append(p.Workers, w.w)
	}
	r.e.emit(EventWorkerProgress, p)
	return nil
}
