package engine

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// schedule starts the ready tasks the free places allow.
func (r *runner) schedule(ctx context.Context) error {
	if r.status != RunSpawning && r.status != RunRunning {
		return nil
	}
	if r.limitWaiting() {
		return nil // a limit: nothing new starts before it resets
	}
	free := r.maxWorkers() - r.plan.busy()
	if free <= 0 {
		return nil
	}
	delay := time.Duration(r.tmpl.Config.SpawnDelay * float64(time.Second))
	for i, t := range r.isoReady(r.plan.ready()) {
		if i >= free {
			break
		}
		if err := r.spawn(ctx, r.plan.workers[t.ID], t, time.Duration(i)*delay); err != nil {
			return err
		}
	}
	return nil
}

// checkDeadlock stops a run whose pending tasks can never start: nothing
// runs, nothing is starting or waiting for a decision, and every pending
// task waits for a task that will not complete.
func (r *runner) checkDeadlock(ctx context.Context) error {
	if (r.status != RunSpawning && r.status != RunRunning) || r.inflight > 0 {
		return nil
	}
	if why := r.plan.deadlock(); why != "" {
		return r.fail(ctx, "dependency deadlock: no task can start and none is running: "+why)
	}
	return nil
}

// spawn starts the worker of task t after wait. Its session id is stored
// before the session exists: after a crash, Restore finds the session by
// this id instead of starting another.
func (r *runner) spawn(ctx context.Context, ws *workerState, t *store.Task, wait time.Duration) error {
	part := t.ID
	if ws.book.Attempt > 0 {
		part = fmt.Sprintf("%s-r%d", t.ID, ws.book.Attempt)
	}
	id, err := WorkerSessionID(r.run.ID, part)
	if err != nil {
		return r.finalFail(ctx, ws, err.Error())
	}
	if err := r.hooks.assign(ctx, t); err != nil {
		return r.finalFail(ctx, ws, err.Error())
	}
	cwd, err := r.workerCwd(ctx, t)
	if err != nil {
		return r.finalFail(ctx, ws, "give the worker its git worktree: "+err.Error())
	}
	prompt, system, err := r.workerPrompt(t, ws)
	if err != nil {
		return r.finalFail(ctx, ws, err.Error())
	}
	if err := ws.move(WorkerSpawning); err != nil {
		return err
	}
	ws.early = nil
	ws.w.SessionID = string(id)
	ws.w.Model = r.modelFor(t)
	ws.w.Error = ""
	ws.book.reset(session.Cursor{})
	if err := r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerSpawned, ws, "")); err != nil {
		return err
	}
	r.e.track(id, r)
	opts := session.StartOptions{Cwd: cwd, Title: hiddenPrefix(r.run.ID) + " " + t.ID + ": " + t.Title,
		ID: id, Model: ws.w.Model, PermissionMode: r.tmpl.Config.PermissionMode, SystemPrompt: system}
	r.inflight++
	attempt := ws.book.Attempt
	r.e.wg.Add(1)
	go func() {
		defer r.e.wg.Done()
		res := startResult{taskID: t.ID, attempt: attempt}
		opts.Message = prompt()
		if wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				res.err = ctx.Err()
			}
		}
		if res.err == nil {
			hctx, cancel := context.WithTimeout(ctx, r.e.hostWait)
			res.id, res.err = r.e.host.Start(hctx, opts)
			cancel()
		}
		select {
		case r.started <- res:
		case <-ctx.Done():
		}
	}()
	return nil
}

func (r *runner) onStarted(ctx context.Context, res startResult) error {
	r.inflight--
	ws := r.plan.workers[res.taskID]
	if ws == nil || ws.book.Attempt != res.attempt || ws.status != WorkerSpawning {
		// Cancelled (or retried) while starting: stop what was started.
		if res.err == nil && res.id != "" {
			hctx, cancel := r.hostCtx(ctx)
			if err := r.e.host.Interrupt(hctx, res.id); err != nil {
				r.log().Debug("interrupt a session started too late", "session", res.id, "err", err)
			}
			if err := r.e.host.Archive(hctx, res.id); err != nil {
				r.log().Debug("archive a session started too late", "session", res.id, "err", err)
			}
			cancel()
		}
		return nil
	}
	if res.err != nil && lostHost(res.err) {
		return r.startLost(ctx, ws, res.err)
	}
	if res.err != nil {
		// The call failed, but the host may have created the session: look
		// before trying again, and try again under the same id, so that
		// one task never gets two sessions.
		hctx, cancel := r.hostCtx(ctx)
		_, serr := r.e.host.Session(hctx, session.ID(ws.w.SessionID))
		cancel()
		if serr != nil {
			reason := fmt.Sprintf("start the worker session: %v", res.err)
			if ws.book.AutoRetries < r.tmpl.Config.MaxRetries && !r.status.held() {
				return r.requeue(ctx, ws, reason, true, false)
			}
			return r.finalFail(ctx, ws, reason)
		}
		r.log().Info("the worker session exists although its start failed", "task", ws.w.TaskID, "err", res.err)
		res.id = session.ID(ws.w.SessionID)
	}
	if string(res.id) != ws.w.SessionID {
		r.e.untrack(session.ID(ws.w.SessionID))
		ws.w.SessionID = string(res.id)
		r.e.track(res.id, r)
	}
	now := r.e.now()
	if err := ws.move(WorkerRunning); err != nil {
		return err
	}
	ws.w.StartedAt = &now
	ws.w.CompletedAt = nil
	ws.w.LastActivityAt = &now
	ws.activity = now
	evs := []event{r.ev(EventWorkerStarted, ws, "")}
	if r.status == RunSpawning {
		if err := r.move(RunRunning); err != nil {
			return err
		}
		evs = append(evs, r.ev(EventWorkersSpawned, nil, ""), r.ev(EventStatusChanged, nil, ""))
	}
	if err := r.commit(ctx, store.Change{}, []*workerState{ws}, evs...); err != nil {
		return err
	}
	r.markDirty(res.id, session.NoticeMessage)
	if rep := ws.early; rep != nil {
		ws.early = nil
		return r.onMail(ctx, *rep)
	}
	return nil
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
		if ok && kind == session.NoticeMessage && !ws.book.more {
			if wait := messageReadGap - now.Sub(ws.book.lastRead); wait > 0 {
				r.follow.later(session.ID(ws.w.SessionID), wait)
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
			ids[i], cursors[i] = session.ID(c.ws.w.SessionID), c.ws.book.Cursor
		}
		r.follow.prefetch(ctx, ids, cursors)
	}
	defer r.follow.dropPrefetched()
	for _, c := range checks {
		if c.ws.status == WorkerRunning {
			if err := r.checkWorker(ctx, c.ws, c.kind); r.halted(err) {
				return err
			}
		}
	}
	return nil
}

// checkWorker reads a running worker's new entries: progress, a completion
// report, a permission request, or a turn that ended without a report.
func (r *runner) checkWorker(ctx context.Context, ws *workerState, kind session.NoticeKind) error {
	id := session.ID(ws.w.SessionID)
	d, err := r.follow.absorb(ctx, id, &ws.book.transcriptCursor)
	if err != nil {
		r.log().Warn("read worker session", "task", ws.w.TaskID, "err", err)
		if ws.book.failures >= 5 {
			return r.workerFailed(ctx, ws, fmt.Sprintf("the worker session cannot be read: %v", err), true)
		}
		return nil
	}
	now := r.e.now()
	if len(d.entries) > 0 {
		ws.activity = now
		ws.w.LastActivityAt = &now
		ws.dirty = true
	}
	addTools(&ws.w.Tools, d.tools)
	ws.book.ToolFiles = relFiles(r.filesRoot(ws.w.TaskID), ws.book.ToolFiles, d.files)
	ws.w.InputTokens, ws.w.OutputTokens = ws.book.InputTokens, ws.book.OutputTokens
	ws.w.CostUSD, _ = ws.book.costUSD()
	if d.lastAction != "" {
		ws.w.CurrentAction = d.lastAction
	}
	var res protocol.Result
	if d.text {
		res = r.parser.ParseEntries(ws.book.entries, protocol.Options{Phase: protocol.PhaseCompletion})
		if pr, ok := res.Last(protocol.PhaseProgress); ok {
			if p, ok := pr.Data.(*protocol.Progress); ok {
				if p.ProgressPercent != nil {
					ws.w.Progress = *p.ProgressPercent
				}
				if p.CurrentAction != "" {
					ws.w.CurrentAction = p.CurrentAction
				}
				ws.dirty = true
			}
		}
		if c, ok := completion(res); ok {
			return r.workerReport(ctx, ws, c, false)
		}
	}
	if kind == session.NoticeMessage && !d.result && !d.text {
		// Only tool calls came: the turn goes on, and a permission request
		// would come with its own notice (or the next poll).
		return nil
	}
	info, over := r.follow.turnOver(ctx, id, &ws.book.transcriptCursor)
	if err := r.permission(ctx, ws, info); err != nil {
		return err
	}
	if !over || (!ws.book.assistant && !ws.book.result) {
		return nil
	}
	if !d.text {
		res = r.parser.ParseEntries(ws.book.entries, protocol.Options{Phase: protocol.PhaseCompletion})
		if c, ok := completion(res); ok {
			return r.workerReport(ctx, ws, c, false)
		}
	}
	if l := ws.book.limit; l != nil {
		return r.limitHit(ctx, ws, *l) // a wait, not a failure: no retry used
	}
	if r.limits.Budget.Paused {
		// The budget is used up: the worker's turn ended, and it waits.
		return r.budgetWait(ctx, ws)
	}
	if d.resultError != "" && !ws.book.assistant {
		return r.workerFailed(ctx, ws, "the session ended with an error: "+d.resultError, false)
	}
	failure := protocol.Failure{Kind: protocol.FailureNoBlock, Phase: protocol.PhaseCompletion, Message: "no completion block"}
	if res.Failure != nil {
		failure = *res.Failure
	}
	if ws.book.Reprompts < r.tmpl.Config.MaxRetries {
		text := r.reprompt(failure, protocol.PhaseCompletion)
		hctx, cancel := r.hostCtx(ctx)
		err := r.e.host.Send(hctx, id, text)
		cancel()
		if err != nil {
			return r.workerFailed(ctx, ws, fmt.Sprintf("send the re-prompt: %v", err), true)
		}
		n := ws.book.Reprompts + 1
		r.markDirty(id, session.NoticeMessage)
		ws.book.reset(ws.book.Cursor)
		ws.book.Reprompts = n
		ws.activity = now
		return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerReprompted, ws,
			fmt.Sprintf("asked again for the completion report (%d of %d): %s", n, r.tmpl.Config.MaxRetries, failure.Message)))
	}
	text := assistantText(ws.book.entries)
	if fb := protocol.KeywordFallback(text); fb.Detected && fb.ProbablePhase == string(protocol.PhaseCompletion) {
		summary := lastRunes(strings.TrimSpace(text), 2000)
		return r.workerReport(ctx, ws, &protocol.Completion{TaskID: ws.w.TaskID, Status: "success", Summary: summary}, true)
	}
	return r.workerFailed(ctx, ws, fmt.Sprintf("no valid completion report after %d re-prompts: %s", ws.book.Reprompts, failure.Message), false)
}

// completion is the last completion report of a parse.
func completion(res protocol.Result) (*protocol.Completion, bool) {
	if cr, ok := res.Last(protocol.PhaseCompletion); ok {
		if c, ok := cr.Data.(*protocol.Completion); ok {
			return c, true
		}
	}
	return nil, false
}

// permission surfaces a permission request the worker is blocked on.
func (r *runner) permission(ctx context.Context, ws *workerState, info session.Info) error {
	var p *store.Permission
	if len(info.Pending) > 0 {
		q := info.Pending[0]
		p = &store.Permission{RequestID: q.RequestID, ToolName: q.ToolName, Input: q.Input}
	}
	was := ""
	if ws.w.Waiting != nil {
		was = ws.w.Waiting.RequestID
	}
	now := ""
	if p != nil {
		now = p.RequestID
	}
	if was == now {
		return nil
	}
	ws.w.Waiting = p
	msg := ""
	if p != nil {
		msg = fmt.Sprintf("waiting for permission to use %s", p.ToolName)
		ws.w.CurrentAction = msg
	} else {
		ws.activity = r.e.now()
	}
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerWaiting, ws, msg))
}

// workerReport takes a worker's completion report.
func (r *runner) workerReport(ctx context.Context, ws *workerState, c *protocol.Completion, unstructured bool) error {
	if refused, err := r.checkMailReport(ctx, ws, c); refused || err != nil {
		return err
	}
	var art []string
	for _, a := range c.Artifacts {
		art = append(art, a.Path)
	}
	ws.w.OutputFiles = relFiles(r.filesRoot(ws.w.TaskID), c.OutputFiles, c.FilesCreated, c.FilesModified, art, ws.book.ToolFiles)
	ws.w.Summary = c.Summary
	ws.w.Output = c.Output
	ws.w.Unstructured = unstructured
	switch c.Status {
	case "needs_input":
		if len(c.Questions) > 0 {
			return r.askUser(ctx, ws, c.Questions)
		}
		return r.workerFailed(ctx, ws, "the worker needs input but asked no question", false)
	case "conflict":
		r.limitSuccess()
		return r.conflictReport(ctx, ws, c)
	case "success", "partial", "awaiting_review":
		r.limitSuccess()
		if c.Status == "partial" {
			if again, err := r.partialReport(ctx, ws, c); again || err != nil {
				return err
			}
		}
		now := r.e.now()
		ws.w.Progress = 100
		ws.w.CompletedAt = &now
		ws.w.Waiting = nil
		ws.w.Error = ""
		if c.Status == "partial" {
			ws.w.Error = "partly done: " + c.Error
		}
		ws.w.Questions = nil
		ws.w.Conflicts = nil
		msg := ""
		if unstructured {
			msg = "completed without a structured report (guessed from its words)"
		}
		if ws.w.SessionID != "" {
			r.archive.add(session.ID(ws.w.SessionID))
		}
		if r.tmpl.Phases.Review.Enabled {
			return r.awaitReview(ctx, ws, c, msg)
		}
		if err := ws.move(WorkerCompleted); err != nil {
			return err
		}
		r.hooks.finished(ws.w.TaskID, true)
		return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerCompleted, ws, msg))
	default:
		reason := c.Error
		if reason == "" {
			reason = "the worker reported status " + c.Status
		}
		if len(c.Questions) > 0 {
			reason += " (questions: " + strings.Join(c.Questions, "; ") + ")"
		}
		// A reported failure is retried in a new session within maxRetries
		// unless the template says retryFailedReports: false.
		return r.workerFailed(ctx, ws, reason, r.tmpl.Config.RetryFailedReports())
	}
}

// archiver archives the sessions of workers that reported, in the
// background after the step's commits: archiving is a round trip to the
// host that must not delay the next detection. The run waits for it before
// it counts as finished.
type archiver struct {
	host     session.Host
	hostWait time.Duration
	untrack  func(session.ID)
	log      *slog.Logger
	pending  []session.ID
	running  sync.WaitGroup
}

// add puts a session on the list of the next flush.
func (a *archiver) add(id session.ID) { a.pending = append(a.pending, id) }

// flush starts archiving the sessions added since the last flush.
func (a *archiver) flush(ctx context.Context) {
	for _, id := range a.pending {
		a.untrack(id)
		a.running.Add(1)
		hctx, cancel := context.WithTimeout(ctx, a.hostWait)
		go func() {
			defer a.running.Done()
			defer cancel()
			if err := a.host.Archive(hctx, id); err != nil {
				a.log.Debug("archive worker session", "session", id, "err", err)
			}
		}()
	}
	a.pending = nil
}

// wait waits for the archiving started.
func (a *archiver) wait() { a.running.Wait() }

// stopSession interrupts and archives a worker's session.
func (r *runner) stopSession(ctx context.Context, ws *workerState) {
	if ws.w.SessionID == "" || (ws.status != WorkerRunning && ws.status != WorkerPaused &&
		ws.status != WorkerSpawning && ws.status != WorkerTimeout) {
		return
	}
	id := session.ID(ws.w.SessionID)
	hctx, cancel := r.hostCtx(ctx)
	if err := r.e.host.Interrupt(hctx, id); err != nil {
		r.log().Debug("interrupt worker session", "task", ws.w.TaskID, "err", err)
	}
	cancel()
	hctx, cancel = r.hostCtx(ctx)
	defer cancel()
	if err := r.e.host.Archive(hctx, id); err != nil {
		r.log().Debug("archive worker session", "task", ws.w.TaskID, "err", err)
	}
	r.e.untrack(id)
}

// workerFailed stops the worker's session and retries it automatically when
// retry is true and the cap allows, else fails it for good.
func (r *runner) workerFailed(ctx context.Context, ws *workerState, reason string, retry bool) error {
	if ctx.Err() != nil {
		return nil // stopping: nothing failed; Restore takes it up from the store
	}
	if r.e.hostDown() {
		// The host is lost, not the worker: it is read again when the
		// host is back (or the run stops as interrupted).
		return session.LostError(reason)
	}
	r.stopSession(ctx, ws)
	if retry && ws.book.AutoRetries < r.tmpl.Config.MaxRetries && !r.status.held() {
		return r.requeue(ctx, ws, reason, true, true)
	}
	return r.finalFail(ctx, ws, reason)
}

// requeue makes the task pending again. With newSession it runs next in a
// new session (the old one was stopped); else under the same id, for a
// session that never started.
func (r *runner) requeue(ctx context.Context, ws *workerState, reason string, auto, newSession bool) error {
	if ctx.Err() != nil {
		return nil // stopping: nothing failed; Restore takes it up from the store
	}
	if err := ws.move(WorkerPending); err != nil {
		return err
	}
	if auto {
		ws.book.AutoRetries++
	}
	if newSession {
		ws.book.Attempt++
	}
	ws.w.RetryCount++
	ws.w.SessionID = ""
	ws.w.Error = reason
	ws.w.Progress = 0
	ws.w.Waiting = nil
	ws.w.CompletedAt = nil
	ws.book.Reprompts = 0
	ws.book.reset(session.Cursor{})
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerRetrying, ws, reason))
}

// finalFail fails a task for good; the tasks that depend on it are skipped.
func (r *runner) finalFail(ctx context.Context, ws *workerState, reason string) error {
	if ctx.Err() != nil {
		return nil // stopping: nothing failed; Restore takes it up from the store
	}
	now := r.e.now()
	if err := ws.move(WorkerFailed); err != nil {
		return err
	}
	ws.w.Error = reason
	r.hooks.finished(ws.w.TaskID, false)
	ws.w.CompletedAt = &now
	ws.w.Waiting = nil
	skipped, err := r.plan.skipDependents(ws.w.TaskID, fmt.Sprintf("skipped because %s failed", ws.w.TaskID))
	if err != nil {
		return err
	}
	r.hooks.skipped(ids(skipped))
	evs := []event{r.ev(EventWorkerFailed, ws, reason)}
	all := []*workerState{ws}
	for _, s := range skipped {
		evs = append(evs, r.ev(EventWorkerSkipped, s, s.w.Error))
		all = append(all, s)
	}
	if len(skipped) > 0 {
		evs[0].p.Skipped = ids(skipped)
	}
	return r.commit(ctx, store.Change{}, all, evs...)
}

// checkTimeouts stops the workers that ran too long or too quietly.
func (r *runner) checkTimeouts(ctx context.Context) error {
	now := r.e.now()
	abs := template.Seconds(r.tmpl.Config.WorkerTimeout)
	idle := template.Seconds(r.tmpl.Config.InactivityTimeout)
	for _, ws := range r.plan.inOrder() {
		if ws.status != WorkerRunning || ws.w.StartedAt == nil || len(ws.w.Questions) > 0 || ws.book.Wait != nil {
			// A worker with open questions waits for the user, not for itself.
			continue
		}
		reason := ""
		switch {
		case abs > 0 && now.Sub(*ws.w.StartedAt)-ws.book.Waited > abs:
			reason = fmt.Sprintf("ran longer than the worker timeout of %d s", r.tmpl.Config.WorkerTimeout)
		case idle > 0 && ws.w.Waiting == nil && now.Sub(ws.activity) > idle:
			reason = fmt.Sprintf("no transcript activity for %d s", r.tmpl.Config.InactivityTimeout)
		}
		if reason == "" {
			continue
		}
		hctx, cancel := r.hostCtx(ctx)
		if err := r.e.host.Interrupt(hctx, session.ID(ws.w.SessionID)); err != nil {
			r.log().Debug("interrupt worker session", "task", ws.w.TaskID, "err", err)
		}
		cancel()
		if err := ws.move(WorkerTimeout); r.halted(err) {
			return err
		} else if err != nil {
			continue
		}
		ws.w.Error = reason
		if err := r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerTimeout, ws, reason)); err != nil {
			return err
		}
		if err := r.workerFailed(ctx, ws, reason, true); r.halted(err) {
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
	if len(ws) == 0 && !r.main.progressed {
		return nil
	}
	r.sync()
	c := store.Change{}
	for _, w := range ws {
		c.Workers = append(c.Workers, w.w)
		w.dirty = false
	}
	run := r.run
	c.Run = &run
	if err := r.ledger.commit(ctx, c); err != nil {
		return err
	}
	if r.main.progressed {
		r.main.progressed = false
		r.e.emit(EventProgress, Payload{RunID: r.run.ID, Status: r.run.Status, Phase: r.run.Phase, Run: &run, Message: r.main.action})
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
