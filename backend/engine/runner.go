package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/mailbox"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/skills"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

type command struct {
	fn    func(context.Context, *runner) error
	reply chan error
}

// sessionBook is where the engine is in one session's transcript. It is
// stored with the run (main session) or the worker, so a restart continues
// from the same place.
type sessionBook struct {
	// Asked is the protocol phase the last prompt asked for ("" none).
	Asked protocol.Phase `json:"asked,omitempty"`
	// Prompt is the cursor at the last prompt: answers count only after it.
	Prompt Cursor `json:"prompt"`
	// Cursor is how far the transcript has been read.
	Cursor    Cursor    `json:"cursor"`
	Reprompts int       `json:"reprompts"`
	AskedAt   time.Time `json:"askedAt"`
	// Usage of the session.
	InputTokens  int64   `json:"inputTokens,omitempty"`
	OutputTokens int64   `json:"outputTokens,omitempty"`
	CostUSD      float64 `json:"costUsd,omitempty"`
	// Worker bookkeeping.
	Attempt     int      `json:"attempt,omitempty"`
	AutoRetries int      `json:"autoRetries,omitempty"`
	SkippedBy   string   `json:"skippedBy,omitempty"`
	Resume      string   `json:"resume,omitempty"`
	ToolFiles   []string `json:"toolFiles,omitempty"`
	// Review gate (seed 001): the completion report awaiting review, the
	// reviewer's last rejection (added to the next prompt) and how many
	// times the task was rejected.
	Report     json.RawMessage `json:"report,omitempty"`
	Feedback   string          `json:"feedback,omitempty"`
	Rejections int             `json:"rejections,omitempty"`

	// In memory only.
	entries   []protocol.Entry
	assistant bool // an assistant entry arrived since the prompt
	result    bool // a result entry arrived since the prompt
	seen      *usageBook
	lastEntry time.Time // when an entry last arrived
	replayTo  int       // entries before this index were already counted
	failures  int       // consecutive read failures
	lastRead  time.Time // when the session was last read (wall clock)
	more      bool      // the last read returned a part: more entries wait
}

func (b *sessionBook) reset(at Cursor) {
	b.Prompt, b.Cursor = at, at
	b.entries, b.assistant, b.result = nil, false, false
	b.replayTo = 0
}

type runState struct {
	Main   sessionBook `json:"main"`
	Resume string      `json:"resume,omitempty"`
	// Reviewing is the task whose review the main session was asked for.
	Reviewing string `json:"reviewing,omitempty"`
	// Remediation counts the QA rounds that added remediation tasks.
	Remediation int `json:"remediation,omitempty"`
}

type workerState struct {
	w        store.Worker
	status   WorkerStatus
	book     sessionBook
	activity time.Time
	noticed  time.Time // when a host notice last led to a read (wall clock)
	dirty    bool      // progress not yet written
	// early is a mailbox report that came while the worker was still
	// starting; it is taken once the worker runs.
	early *mailbox.Report
}

// messageReadGap is the least time between two reads of a worker session
// prompted only by "message" notices. An agent adds entries in bursts (tool
// call, tool result, text), each with its notice; reading at every one would
// keep the run's goroutine busy with progress while another worker's result
// waits. A "result", "updated" or "permission" notice is read at once.
const messageReadGap = 100 * time.Millisecond

type startResult struct {
	taskID  string
	attempt int
	id      SessionID
	err     error
}

type runner struct {
	e      *Engine
	run    store.Run
	status RunStatus
	resume RunStatus
	tmpl   template.Template
	parser *protocol.Parser
	values map[string]any
	main   sessionBook

	tasks   []store.Task
	workers map[string]*workerState

	cmds     chan command
	wake     chan struct{}
	started  chan startResult
	done     chan struct{}
	finished chan struct{}
	inflight int

	dirtyMu sync.Mutex
	dirty   map[SessionID]NoticeKind
	// The main session's latest action, sent coalesced as orchestrator:progress.
	mainAction string
	mainDirty  bool
	// reviewing is the task the main session reviews (runState.Reviewing).
	reviewing string
	// remediation is runState.Remediation.
	remediation int
	// skills is the run's skill library, loaded on first use.
	skills *skills.Library
	// mb is the file mailbox (transport "mailbox"), opened on first use;
	// mail carries its reports to the run's goroutine.
	mb        *mailbox.Mailbox
	mail      chan mailbox.Report
	lastPoll  time.Time
	lastFlush time.Time
	pollEvery time.Duration
	// toArchive holds the sessions of workers that reported; they are
	// archived in the background after the step's commits (archiving is a
	// round trip to the host that must not delay the next detection), and
	// archiving is waited for before the run counts as finished.
	toArchive []SessionID
	archiving sync.WaitGroup
	// prefetched holds the reads step made at once for the sessions it is
	// about to check, consumed by absorb.
	prefetched map[SessionID]prefetch
	// laterTimer wakes the loop at laterAt for the message notices step
	// put off (messageReadGap).
	laterTimer *time.Timer
	laterAt    time.Time
}

// prefetch is one Read made ahead by step.
type prefetch struct {
	cursor Cursor
	batch  Batch
	err    error
}

func newRunner(e *Engine, run store.Run, tmpl template.Template, tasks []store.Task, workers []store.Worker) (*runner, error) {
	parser, err := protocol.NewParser(delimiters(tmpl), e.logger)
	if err != nil {
		return nil, err
	}
	st, err := ParseRunStatus(run.Status)
	if err != nil {
		return nil, err
	}
	r := &runner{e: e, run: run, status: st, tmpl: tmpl, parser: parser, tasks: tasks,
		workers: map[string]*workerState{}, cmds: make(chan command), wake: make(chan struct{}, 1),
		started: make(chan startResult, 64), done: make(chan struct{}), finished: make(chan struct{}),
		dirty: map[SessionID]NoticeKind{}, mail: make(chan mailbox.Report)}
	var rs runState
	if len(run.State) > 0 {
		if err := json.Unmarshal(run.State, &rs); err != nil {
			return nil, fmt.Errorf("run state: %w", err)
		}
	}
	r.main = rs.Main
	r.main.seen = newUsageBook()
	r.reviewing = rs.Reviewing
	r.remediation = rs.Remediation
	if rs.Resume != "" {
		if r.resume, err = ParseRunStatus(rs.Resume); err != nil {
			return nil, err
		}
	}
	r.values = map[string]any{}
	for k, v := range run.Variables {
		r.values[k] = v
	}
	r.values[template.VarUserRequest] = run.Request
	r.values[template.VarCWD] = run.Cwd
	for _, w := range workers {
		ws := &workerState{w: w}
		if ws.status, err = ParseWorkerStatus(w.Status); err != nil {
			return nil, err
		}
		if len(w.State) > 0 {
			if err := json.Unmarshal(w.State, &ws.book); err != nil {
				return nil, fmt.Errorf("worker %s state: %w", w.TaskID, err)
			}
		}
		ws.book.seen = newUsageBook()
		ws.activity = e.now()
		r.workers[w.TaskID] = ws
	}
	r.pollEvery = time.Duration(tmpl.Config.PollInterval * float64(time.Second))
	if r.pollEvery <= 0 {
		r.pollEvery = 2 * time.Second
	}
	return r, nil
}

func (r *runner) log() interface {
	Warn(string, ...any)
	Info(string, ...any)
	Debug(string, ...any)
} {
	return r.e.logger.With("run", r.run.ID)
}

func (r *runner) markDirty(id SessionID, kind NoticeKind) {
	r.dirtyMu.Lock()
	r.dirty[id] = kind
	r.dirtyMu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *runner) takeDirty() map[SessionID]NoticeKind {
	r.dirtyMu.Lock()
	defer r.dirtyMu.Unlock()
	d := r.dirty
	r.dirty = map[SessionID]NoticeKind{}
	return d
}

func (r *runner) hostCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.e.hostWait)
}

// loop owns the run: every change of its state happens here.
func (r *runner) loop(ctx context.Context) {
	defer close(r.done)
	defer r.archiving.Wait()
	defer func() {
		if r.laterTimer != nil {
			r.laterTimer.Stop()
		}
	}()
	defer r.closeMail()
	ticker := time.NewTicker(r.pollEvery)
	defer ticker.Stop()
	flush := time.NewTicker(r.e.progress)
	defer flush.Stop()
	r.step(ctx, true)
	for {
		poll := false
		select {
		case <-ctx.Done():
			r.flushProgress(context.WithoutCancel(ctx))
			return
		case c := <-r.cmds:
			c.reply <- c.fn(ctx, r)
		case <-r.wake:
		case res := <-r.started:
			if ctx.Err() != nil {
				// Stopping: the store keeps the worker as spawning and
				// Restore asks the host whether its session exists.
				return
			}
			r.onStarted(ctx, res)
		case rep := <-r.mail:
			r.onMail(ctx, rep)
		case <-ticker.C:
			poll = true
		case <-flush.C:
			r.flushProgress(ctx)
			continue
		}
		r.step(ctx, poll)
		r.archiveReported(ctx)
		if r.status.Finished() && r.inflight == 0 {
			r.flushProgress(ctx)
			return
		}
	}
}

// step reads what changed and moves the run on.
func (r *runner) step(ctx context.Context, poll bool) {
	if ctx.Err() != nil {
		return
	}
	dirty := r.takeDirty()
	if r.status.Finished() {
		return
	}
	if r.main.Asked == "" {
		// A phase of the main session without its prompt: the process
		// stopped between the status change and the prompt. Ask again.
		switch r.status {
		case RunAnalyzing:
			_ = r.ask(ctx, template.PhaseAnalysis, protocol.PhaseAnalysis)
		case RunPlanning:
			_ = r.ask(ctx, template.PhaseTaskPlanning, protocol.PhaseTaskList)
		case RunAggregating:
			_ = r.ask(ctx, template.PhaseAggregation, protocol.PhaseAggregation)
		case RunVerifying:
			_ = r.ask(ctx, template.PhaseVerification, protocol.PhaseVerification)
		case RunSpawning, RunRunning:
			r.askReview(ctx)
		}
		if r.status.Finished() {
			return
		}
	}
	if r.main.Asked != "" && r.status != RunPaused {
		if _, ok := dirty[SessionID(r.run.MainSessionID)]; ok || poll {
			r.checkMain(ctx)
		}
		r.checkPhaseTimeout(ctx)
	}
	now := time.Now()
	type check struct {
		ws   *workerState
		kind NoticeKind
	}
	var checks []check
	for _, id := range r.order() {
		ws := r.workers[id]
		if ws.status != WorkerRunning {
			continue
		}
		kind, ok := dirty[SessionID(ws.w.SessionID)]
		if ok && kind == NoticeMessage && !ws.book.more {
			if wait := messageReadGap - now.Sub(ws.book.lastRead); wait > 0 {
				r.readLater(SessionID(ws.w.SessionID), wait)
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
		ids := make([]SessionID, len(checks))
		cursors := make([]Cursor, len(checks))
		for i, c := range checks {
			ids[i], cursors[i] = SessionID(c.ws.w.SessionID), c.ws.book.Cursor
		}
		r.prefetch(ctx, ids, cursors)
	}
	for _, c := range checks {
		if c.ws.status == WorkerRunning {
			r.checkWorker(ctx, c.ws, c.kind)
		}
	}
	r.prefetched = nil
	r.checkTimeouts(ctx)
	r.schedule(ctx)
	r.checkDeadlock(ctx)
	r.afterWorkers(ctx)
	if time.Since(r.lastFlush) >= r.e.progress {
		r.flushProgress(ctx)
	}
}

// order returns the task ids in plan order.
func (r *runner) order() []string {
	out := make([]string, 0, len(r.tasks))
	for _, t := range r.tasks {
		if _, ok := r.workers[t.ID]; ok {
			out = append(out, t.ID)
		}
	}
	return out
}

func (r *runner) task(id string) *store.Task {
	for i := range r.tasks {
		if r.tasks[i].ID == id {
			return &r.tasks[i]
		}
	}
	return nil
}

// sync writes the in-memory state into the run row and worker rows.
func (r *runner) sync() {
	r.run.Status = r.status.String()
	r.run.ResumeStatus = ""
	if r.status == RunPaused {
		r.run.ResumeStatus = r.resume.String()
	}
	st := runState{Main: r.main, Reviewing: r.reviewing, Remediation: r.remediation}
	if r.status == RunPaused {
		st.Resume = r.resume.String()
	}
	r.run.State, _ = json.Marshal(st)
	var in, out int64
	var cost float64
	var done, failed, skipped int
	for _, ws := range r.workers {
		ws.w.Status = ws.status.String()
		ws.w.State, _ = json.Marshal(ws.book)
		in += ws.w.InputTokens
		out += ws.w.OutputTokens
		cost += ws.w.CostUSD
		switch {
		case ws.w.Skipped:
			skipped++
		case ws.status == WorkerCompleted:
			done++
		case ws.status == WorkerFailed || ws.status == WorkerCancelled:
			failed++
		}
	}
	r.run.TasksTotal = len(r.tasks)
	r.run.TasksCompleted, r.run.TasksFailed, r.run.TasksSkipped = done, failed, skipped
	r.run.InputTokens = in + r.main.InputTokens
	r.run.OutputTokens = out + r.main.OutputTokens
	r.run.CostUSD = cost + r.main.CostUSD
}

type event struct {
	name string
	p    Payload
}

func (r *runner) ev(name string, ws *workerState, msg string) event {
	p := Payload{RunID: r.run.ID, Status: r.status.String(), Phase: r.run.Phase, Message: msg}
	if ws != nil {
		w := ws.w
		w.Status = ws.status.String()
		p.TaskID = w.TaskID
		p.Worker = &w
	}
	return event{name: name, p: p}
}

// commit writes the run row, the given workers (and tasks, answers) in one
// transaction with the events' rows, then emits the events.
func (r *runner) commit(ctx context.Context, c store.Change, workers []*workerState, events ...event) error {
	r.sync()
	run := r.run
	c.Run = &run
	for _, ws := range workers {
		c.Workers = append(c.Workers, ws.w)
		ws.dirty = false
	}
	for i := range events {
		if events[i].p.Run == nil && (strings.HasPrefix(events[i].name, "orchestrator:")) {
			rc := run
			events[i].p.Run = &rc
		}
		events[i].p.Status = run.Status
		events[i].p.Phase = run.Phase
		pj, err := json.Marshal(events[i].p)
		if err != nil {
			return err
		}
		c.Events = append(c.Events, store.Event{RunID: r.run.ID, TaskID: events[i].p.TaskID, Name: events[i].name, Payload: pj})
	}
	if err := r.e.store.Commit(context.WithoutCancel(ctx), r.run.ID, c); err != nil {
		r.log().Warn("commit failed", "err", err)
		return fmt.Errorf("save run %s: %w", r.run.ID, err)
	}
	for _, e := range events {
		r.e.emit(e.name, e.p)
	}
	if r.status.Finished() {
		// Whoever waits for the run sees its sessions archived.
		r.archiveReported(ctx)
		r.archiving.Wait()
		select {
		case <-r.finished:
		default:
			close(r.finished)
		}
	}
	return nil
}

func (r *runner) setStatus(next RunStatus) error {
	if !r.status.CanMove(next) {
		return illegalRun(r.status, next)
	}
	r.status = next
	return nil
}

func (r *runner) setWorker(ws *workerState, next WorkerStatus) error {
	if !ws.status.CanMove(next) {
		return illegalWorker(ws.w.TaskID, ws.status, next)
	}
	ws.status = next
	ws.w.Status = next.String()
	return nil
}

// fail ends the run in error with the reason.
func (r *runner) fail(ctx context.Context, reason string) {
	if ctx.Err() != nil {
		return // stopping: nothing failed; Restore takes it up from the store
	}
	if r.status.Finished() {
		return
	}
	r.status = RunError
	r.run.Error = reason
	now := r.e.now()
	r.run.CompletedAt = &now
	var ws []*workerState
	for _, w := range r.workers {
		if !w.status.Done() && w.status != WorkerTimeout {
			r.stopSession(ctx, w)
			w.status = WorkerCancelled
			w.w.Error = "the run failed: " + reason
			ws = append(ws, w)
		}
	}
	r.main.Asked = ""
	var change store.Change
	r.finalReport(ctx, &change)
	_ = r.commit(ctx, change, ws, r.ev(EventError, nil, reason))
}

// ---- main session ----

func (r *runner) begin(ctx context.Context) error {
	if r.status != RunCreated {
		return illegalRun(r.status, RunAnalyzing)
	}
	now := r.e.now()
	r.run.StartedAt = &now
	if r.tmpl.Phases.Analysis.Enabled {
		r.status = RunAnalyzing
		r.run.Phase = string(PhaseAnalysis)
		if err := r.commit(ctx, store.Change{}, nil, r.ev(EventStarted, nil, ""), r.ev(EventPhaseChanged, nil, "")); err != nil {
			return err
		}
		return r.ask(ctx, template.PhaseAnalysis, protocol.PhaseAnalysis)
	}
	r.status = RunPlanning
	r.run.Phase = string(PhaseTaskPlanning)
	if err := r.commit(ctx, store.Change{}, nil, r.ev(EventStarted, nil, ""), r.ev(EventPhaseChanged, nil, "")); err != nil {
		return err
	}
	return r.ask(ctx, template.PhaseTaskPlanning, protocol.PhaseTaskList)
}

func (r *runner) render(phase template.Phase, extra map[string]any) (string, error) {
	values := make(map[string]any, len(r.values)+len(extra))
	for k, v := range r.values {
		values[k] = v
	}
	for k, v := range extra {
		values[k] = v
	}
	p, err := r.tmpl.Render(phase, values)
	if err != nil {
		return "", err
	}
	parts := []string{}
	for _, s := range []string{p.System, p.User} {
		if strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n"), nil
}

// ask sends the prompt of a phase to the main session (starting it for the
// first phase). Only entries after the prompt can answer it.
func (r *runner) ask(ctx context.Context, phase template.Phase, want protocol.Phase) error {
	return r.askWith(ctx, phase, want, r.phaseValues(phase))
}

func (r *runner) askWith(ctx context.Context, phase template.Phase, want protocol.Phase, values map[string]any) error {
	text, err := r.render(phase, values)
	if err != nil {
		r.fail(ctx, fmt.Sprintf("render the %s prompt: %v", phase, err))
		return err
	}
	hctx, cancel := r.hostCtx(ctx)
	defer cancel()
	var at Cursor
	if r.run.MainSessionID == "" {
		title := "Baton: " + r.run.Request
		if len(title) > 80 {
			title = title[:77] + "..."
		}
		id, err := r.e.host.Start(hctx, StartOptions{Cwd: r.run.Cwd, Message: text, Title: title,
			Model: r.tmpl.Config.Models.Main, PermissionMode: r.tmpl.Config.PermissionMode})
		if err != nil {
			r.fail(ctx, fmt.Sprintf("start the main session: %v", err))
			return err
		}
		r.run.MainSessionID = string(id)
		r.e.track(id, r)
	} else {
		at, err = r.readToEnd(hctx, SessionID(r.run.MainSessionID), r.main.Cursor)
		if err != nil {
			r.fail(ctx, fmt.Sprintf("read the main session: %v", err))
			return err
		}
		if err := r.e.host.Send(hctx, SessionID(r.run.MainSessionID), text); err != nil {
			r.fail(ctx, fmt.Sprintf("send the %s prompt: %v", phase, err))
			return err
		}
	}
	r.main.reset(at)
	r.main.Asked = want
	r.main.Reprompts = 0
	r.main.AskedAt = r.e.now()
	// A notice may have come before the session was known: look once now.
	r.markDirty(SessionID(r.run.MainSessionID), NoticeMessage)
	return r.commit(ctx, store.Change{}, nil)
}

// readToEnd reads (and counts the usage of) everything after cursor and
// returns the end.
func (r *runner) readToEnd(ctx context.Context, id SessionID, c Cursor) (Cursor, error) {
	for {
		b, err := r.e.host.Read(ctx, id, c)
		if err != nil {
			return c, err
		}
		d := digestEntries(b.Entries, r.main.seen)
		r.main.InputTokens += d.inputTokens
		r.main.OutputTokens += d.outputTokens
		r.main.CostUSD += d.costUSD
		if b.Next.Index >= b.Total || len(b.Entries) == 0 {
			return b.Next, nil
		}
		c = b.Next
	}
}

func (r *runner) phaseValues(phase template.Phase) map[string]any {
	if phase != template.PhaseAggregation {
		return nil
	}
	var b strings.Builder
	for _, id := range r.order() {
		ws := r.workers[id]
		t := r.task(id)
		fmt.Fprintf(&b, "### %s - %s (%s)\n", id, t.Title, ws.status)
		if ws.w.Skipped {
			fmt.Fprintf(&b, "Not run: %s\n\n", ws.w.Error)
			continue
		}
		if ws.w.Unstructured {
			b.WriteString("Note: the worker sent no structured report; this is its last message.\n")
		}
		if ws.w.Summary != "" {
			fmt.Fprintf(&b, "Summary: %s\n", ws.w.Summary)
		}
		if len(ws.w.OutputFiles) > 0 {
			fmt.Fprintf(&b, "Files: %s\n", strings.Join(ws.w.OutputFiles, ", "))
		}
		if ws.w.Error != "" {
			fmt.Fprintf(&b, "Error: %s\n", ws.w.Error)
		}
		for _, c := range ws.w.Conflicts {
			fmt.Fprintf(&b, "Conflict to resolve: %s\n", c)
		}
		if ws.w.Output != "" {
			fmt.Fprintf(&b, "Output:\n%s\n", ws.w.Output)
		}
		b.WriteString("\n")
	}
	return map[string]any{template.VarWorkerOutputs: b.String()}
}

// readLater keeps session id dirty, without waking the loop now, and makes
// sure the loop wakes within after to read it.
func (r *runner) readLater(id SessionID, after time.Duration) {
	r.dirtyMu.Lock()
	if _, ok := r.dirty[id]; !ok {
		r.dirty[id] = NoticeMessage
	}
	r.dirtyMu.Unlock()
	now := time.Now()
	due := now.Add(after)
	if r.laterTimer != nil && r.laterAt.After(now) && !due.Before(r.laterAt) {
		return // the pending wake comes in time
	}
	if r.laterTimer != nil {
		r.laterTimer.Stop()
	}
	r.laterAt = due
	r.laterTimer = time.AfterFunc(after, func() {
		select {
		case r.wake <- struct{}{}:
		default:
		}
	})
}

// prefetch reads the sessions ids from cursors concurrently into
// r.prefetched.
func (r *runner) prefetch(ctx context.Context, ids []SessionID, cursors []Cursor) {
	out := make([]prefetch, len(ids))
	var wg sync.WaitGroup
	for i := range ids {
		out[i].cursor = cursors[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			hctx, cancel := r.hostCtx(ctx)
			defer cancel()
			out[i].batch, out[i].err = r.e.host.Read(hctx, ids[i], cursors[i])
		}()
	}
	wg.Wait()
	r.prefetched = make(map[SessionID]prefetch, len(ids))
	for i, id := range ids {
		r.prefetched[id] = out[i]
	}
}

// read returns the entries of session id after c: the prefetched ones when
// step read them ahead from the same cursor, otherwise a Read.
func (r *runner) read(ctx context.Context, id SessionID, c Cursor) (Batch, error) {
	if p, ok := r.prefetched[id]; ok {
		delete(r.prefetched, id)
		if p.cursor == c {
			return p.batch, p.err
		}
	}
	hctx, cancel := r.hostCtx(ctx)
	defer cancel()
	return r.e.host.Read(hctx, id, c)
}

// absorb reads new entries of a session into its book.
func (r *runner) absorb(ctx context.Context, id SessionID, b *sessionBook) (digest, error) {
	batch, err := r.read(ctx, id, b.Cursor)
	if err != nil {
		b.failures++
		return digest{}, err
	}
	b.failures = 0
	b.lastRead = time.Now()
	b.more = batch.Next.Index < batch.Total
	raw := batch.Entries
	first := batch.Next.Index - len(raw)
	if batch.Reset {
		// The transcript was rewritten: start again after the prompt.
		b.entries, b.assistant, b.result = nil, false, false
		skip := b.Prompt.Index
		if skip > len(raw) {
			skip = len(raw)
		}
		raw = raw[skip:]
		first = skip
		b.replayTo = 0
	}
	var counted []json.RawMessage
	var replayed []json.RawMessage
	for i, e := range raw {
		if first+i < b.replayTo {
			replayed = append(replayed, e)
		} else {
			counted = append(counted, e)
		}
	}
	if len(replayed) > 0 {
		// Counted before a restart: their usage and cost are in the store,
		// and the book learns them so that later entries and the turn's
		// result do not count them again.
		rd := digestEntries(replayed, b.seen)
		b.entries = append(b.entries, rd.entries...)
		b.assistant = b.assistant || rd.assistant
		b.result = b.result || rd.result
	}
	d := digestEntries(counted, b.seen)
	b.entries = append(b.entries, d.entries...)
	b.assistant = b.assistant || d.assistant
	b.result = b.result || d.result
	b.InputTokens += d.inputTokens
	b.OutputTokens += d.outputTokens
	b.CostUSD += d.costUSD
	b.Cursor = batch.Next
	if len(batch.Entries) > 0 {
		b.lastEntry = r.e.now()
	}
	if batch.Next.Index < batch.Total {
		// The host returned a part: read the rest on the next step.
		r.markDirty(id, NoticeMessage)
	}
	return d, nil
}

// turnOver reports whether the session has finished answering the prompt:
// a result entry arrived, or (for a host whose transcript has none) the
// session reports no turn running and nothing new came for a grace period,
// since a host's turn state may lag behind its transcript.
func (r *runner) turnOver(ctx context.Context, id SessionID, b *sessionBook) (SessionInfo, bool) {
	hctx, cancel := r.hostCtx(ctx)
	defer cancel()
	info, err := r.e.host.Session(hctx, id)
	if err != nil {
		return info, b.result
	}
	grace := 2 * r.pollEvery
	if grace < time.Second {
		grace = time.Second
	}
	quiet := !b.lastEntry.IsZero() && r.e.now().Sub(b.lastEntry) >= grace
	return info, b.result || (b.assistant && !info.TurnRunning && quiet)
}

func (r *runner) checkMain(ctx context.Context) {
	id := SessionID(r.run.MainSessionID)
	d, err := r.absorb(ctx, id, &r.main)
	if err != nil {
		r.log().Warn("read main session", "err", err)
		if r.main.failures >= 5 {
			r.fail(ctx, fmt.Sprintf("the main session cannot be read: %v", err))
		}
		return
	}
	if d.lastAction != "" || d.inputTokens > 0 {
		if d.lastAction != "" {
			r.mainAction = d.lastAction
		}
		r.mainDirty = true
	}
	res := r.parser.ParseEntries(r.main.entries, protocol.Options{Phase: r.main.Asked})
	if resp, ok := res.Last(r.main.Asked); ok {
		r.answer(ctx, resp)
		return
	}
	if !r.main.assistant && !r.main.result {
		return
	}
	if _, over := r.turnOver(ctx, id, &r.main); !over {
		return
	}
	failure := protocol.Failure{Kind: protocol.FailureNoBlock, Phase: r.main.Asked, Message: "no answer block"}
	if res.Failure != nil {
		failure = *res.Failure
	}
	ans := store.PhaseAnswer{Phase: string(r.main.Asked), Attempt: r.main.Reprompts, Status: "invalid",
		Errors: []string{failure.Message}}
	for _, is := range failure.Errors {
		ans.Errors = append(ans.Errors, is.String())
	}
	if r.main.Reprompts >= r.tmpl.Config.MaxRetries {
		_ = r.commit(ctx, store.Change{Answers: []store.PhaseAnswer{ans}}, nil)
		r.fail(ctx, fmt.Sprintf("the %s answer is still missing or invalid after %d re-prompts: %s",
			r.main.Asked, r.main.Reprompts, failure.Message))
		return
	}
	text := r.reprompt(failure, r.main.Asked)
	hctx, cancel := r.hostCtx(ctx)
	defer cancel()
	at := r.main.Cursor
	if err := r.e.host.Send(hctx, id, text); err != nil {
		r.fail(ctx, fmt.Sprintf("send the re-prompt: %v", err))
		return
	}
	asked, n := r.main.Asked, r.main.Reprompts+1
	r.markDirty(id, NoticeMessage)
	r.main.reset(at)
	r.main.Asked, r.main.Reprompts = asked, n
	_ = r.commit(ctx, store.Change{Answers: []store.PhaseAnswer{ans}}, nil,
		r.ev(EventReprompted, nil, fmt.Sprintf("asked again for the %s answer (%d of %d): %s", asked, n, r.tmpl.Config.MaxRetries, failure.Message)))
}

func (r *runner) checkPhaseTimeout(ctx context.Context) {
	var secs int
	switch r.main.Asked {
	case protocol.PhaseAnalysis:
		secs = r.tmpl.Phases.Analysis.Timeout
	case protocol.PhaseTaskList:
		secs = r.tmpl.Phases.TaskPlanning.Timeout
	case protocol.PhaseAggregation:
		secs = r.tmpl.Phases.Aggregation.Timeout
	case protocol.PhaseVerification:
		secs = r.tmpl.Phases.Verification.Timeout
	}
	if secs <= 0 || r.main.AskedAt.IsZero() {
		return
	}
	if r.e.now().Sub(r.main.AskedAt) > template.Seconds(secs) {
		hctx, cancel := r.hostCtx(ctx)
		_ = r.e.host.Interrupt(hctx, SessionID(r.run.MainSessionID))
		cancel()
		r.fail(ctx, fmt.Sprintf("the %s answer did not come within %d s", r.main.Asked, secs))
	}
}

func answerRecord(resp protocol.Response) store.PhaseAnswer {
	data, _ := json.Marshal(resp.Data)
	a := store.PhaseAnswer{Phase: string(resp.Phase), Status: "valid", Data: data}
	if resp.Repaired() {
		a.Status = "repaired"
	}
	for _, rp := range resp.Repairs {
		a.Repairs = append(a.Repairs, rp.Description())
	}
	for _, w := range resp.Warnings {
		a.Errors = append(a.Errors, "warning: "+w.String())
	}
	return a
}

func (r *runner) answer(ctx context.Context, resp protocol.Response) {
	ans := answerRecord(resp)
	ans.Attempt = r.main.Reprompts
	r.main.Asked = ""
	change := store.Change{Answers: []store.PhaseAnswer{ans}}
	switch data := resp.Data.(type) {
	case *protocol.Analysis:
		r.status = RunPlanning
		r.run.Phase = string(PhaseTaskPlanning)
		if r.commit(ctx, change, nil, r.ev(EventAnalysisComplete, nil, data.Summary), r.ev(EventPhaseChanged, nil, "")) == nil {
			_ = r.ask(ctx, template.PhaseTaskPlanning, protocol.PhaseTaskList)
		}
	case *protocol.TaskList:
		tasks := tasksFromPlan(r.run.ID, data.Tasks)
		checkErr := CheckTasks(tasks, r.tmpl.Config.MaxTasks)
		tasks = setAsideDuplicates(tasks)
		skillNote := r.matchSkills(tasks)
		r.tasks = tasks
		r.workers = map[string]*workerState{}
		r.status = RunConfirming
		r.run.Message = skillNote
		change.Tasks, change.ReplaceTasks = tasks, true
		ready := r.ev(EventTasksReady, nil, "")
		ready.p.Tasks, ready.p.Groups = tasks, ParallelGroups(tasks)
		evs := []event{ready, r.ev(EventPhaseChanged, nil, "")}
		var tle *TaskListError
		if errors.As(checkErr, &tle) {
			r.run.Message = strings.TrimSpace(checkErr.Error() + "\n" + skillNote)
			ev := r.ev(EventTasksInvalid, nil, r.run.Message)
			ev.p.Problems = tle.Problems
			evs = append(evs, ev)
		}
		if r.commit(ctx, change, nil, evs...) != nil {
			return
		}
		if checkErr == nil && r.tmpl.Config.AutoConfirm {
			if err := r.confirm(ctx, Modifications{}); err != nil {
				r.log().Warn("auto-confirm", "err", err)
			}
		}
	case *protocol.Aggregation:
		if r.tmpl.Phases.Verification.Enabled {
			r.status = RunVerifying
			r.run.Phase = string(PhaseVerification)
			if r.commit(ctx, change, nil, r.ev(EventPhaseChanged, nil, data.Summary)) == nil {
				_ = r.ask(ctx, template.PhaseVerification, protocol.PhaseVerification)
			}
			return
		}
		r.complete(ctx, change, data.Summary)
	case *protocol.Verification:
		r.verified(ctx, change, data)
	case *protocol.Review:
		r.reviewed(ctx, change, data)
	default:
		r.fail(ctx, fmt.Sprintf("unexpected answer of phase %s", resp.Phase))
	}
}

func (r *runner) complete(ctx context.Context, change store.Change, summary string) {
	r.status = RunCompleted
	now := r.e.now()
	r.run.CompletedAt = &now
	r.main.Asked = ""
	r.sync()
	msg := summary
	if r.run.TasksFailed+r.run.TasksSkipped > 0 {
		msg = fmt.Sprintf("%d of %d tasks completed, %d failed, %d skipped. %s", r.run.TasksCompleted,
			r.run.TasksTotal, r.run.TasksFailed, r.run.TasksSkipped, summary)
	}
	if note := r.archiveJournal(); note != "" {
		msg += " " + note
	}
	r.run.Message = strings.TrimSpace(msg)
	r.finalReport(ctx, &change)
	_ = r.commit(ctx, change, nil, r.ev(EventCompleted, nil, r.run.Message))
}

// ---- confirmation and scheduling ----

// taskValues are the prompt variables of one task.
func taskValues(t *store.Task) map[string]any {
	scope := strings.Join(t.Scope, ", ")
	if scope == "" {
		scope = "(no particular files)"
	}
	tj, _ := json.Marshal(protocol.Task{ID: t.ID, Title: t.Title, Description: t.Description, Scope: t.Scope,
		Priority: &t.Priority, Dependencies: t.Dependencies, Complexity: t.Complexity})
	return map[string]any{
		template.VarTaskID: t.ID, template.VarTaskTitle: t.Title, template.VarTaskDescription: t.Description,
		template.VarTaskScope: scope, template.VarTaskJSON: string(tj)}
}

func (r *runner) confirm(ctx context.Context, mods Modifications) error {
	if r.status != RunConfirming {
		return illegalRun(r.status, RunSpawning)
	}
	tasks, err := mods.Apply(r.run.ID, r.tasks)
	if err != nil {
		return err
	}
	if err := CheckTasks(tasks, r.tmpl.Config.MaxTasks); err != nil {
		return err
	}
	r.matchSkills(tasks) // edits may change what a task is about
	r.initJournal(tasks)
	r.tasks = tasks
	r.workers = map[string]*workerState{}
	var ws []*workerState
	for _, t := range tasks {
		w := &workerState{w: store.Worker{RunID: r.run.ID, TaskID: t.ID}, status: WorkerPending}
		w.book.seen = newUsageBook()
		if t.Skipped {
			w.status = WorkerCancelled
			w.w.Skipped = true
			w.w.Error = "skipped by the user"
		}
		r.workers[t.ID] = w
		ws = append(ws, w)
	}
	r.status = RunSpawning
	r.run.Phase = string(PhaseWorkerExecution)
	r.run.Message = ""
	return r.commit(ctx, store.Change{Tasks: tasks, ReplaceTasks: true}, ws, r.ev(EventPhaseChanged, nil, ""))
}

// satisfied reports whether a task's dependencies let it start.
func (r *runner) satisfied(t *store.Task) bool {
	for _, d := range t.Dependencies {
		w := r.workers[d]
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

func (r *runner) busy() int {
	n := 0
	for _, ws := range r.workers {
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

func (r *runner) schedule(ctx context.Context) {
	if r.status != RunSpawning && r.status != RunRunning {
		return
	}
	max := r.tmpl.Config.MaxWorkers
	if max <= 0 {
		max = 1
	}
	free := max - r.busy()
	if free <= 0 {
		return
	}
	var ready []*store.Task
	for i := range r.tasks {
		t := &r.tasks[i]
		if ws := r.workers[t.ID]; ws != nil && ws.status == WorkerPending && r.satisfied(t) {
			ready = append(ready, t)
		}
	}
	byPriority(ready)
	delay := time.Duration(r.tmpl.Config.SpawnDelay * float64(time.Second))
	for i, t := range ready {
		if i >= free {
			break
		}
		r.spawn(ctx, r.workers[t.ID], t, time.Duration(i)*delay)
	}
}

func (r *runner) spawn(ctx context.Context, ws *workerState, t *store.Task, wait time.Duration) {
	part := t.ID
	if ws.book.Attempt > 0 {
		part = fmt.Sprintf("%s-r%d", t.ID, ws.book.Attempt)
	}
	id, err := WorkerSessionID(r.run.ID, part)
	if err != nil {
		r.finalFail(ctx, ws, err.Error())
		return
	}
	if r.tmpl.Config.Transport == TransportMailbox {
		if err := r.assign(ctx, t); err != nil {
			r.finalFail(ctx, ws, err.Error())
			return
		}
	}
	text, err := r.render(template.PhaseWorkerExecution, r.workerValues(t))
	if err != nil {
		r.finalFail(ctx, ws, fmt.Sprintf("render the worker prompt: %v", err))
		return
	}
	if sec := r.skillSection(t); sec != "" {
		text += "\n\n" + sec
	}
	if sec := r.journalSection(t); sec != "" {
		text += "\n\n" + sec
	}
	if ws.book.Feedback != "" {
		text += "\n\n" + ws.book.Feedback
	}
	_ = r.setWorker(ws, WorkerSpawning)
	ws.early = nil
	ws.w.SessionID = string(id)
	ws.w.Error = ""
	ws.book.reset(Cursor{})
	// The session id is stored before the session exists: after a crash,
	// Restore finds the session by this id instead of starting another.
	if r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerSpawned, ws, "")) != nil {
		return
	}
	r.e.track(id, r)
	opts := StartOptions{Cwd: r.run.Cwd, Message: text, Title: HiddenMarker + r.run.ID + " " + t.ID + ": " + t.Title,
		ID: id, Model: r.tmpl.Config.Models.For(t.Complexity), PermissionMode: r.tmpl.Config.PermissionMode}
	r.inflight++
	attempt := ws.book.Attempt
	r.e.wg.Add(1)
	go func() {
		defer r.e.wg.Done()
		res := startResult{taskID: t.ID, attempt: attempt}
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
}

func (r *runner) onStarted(ctx context.Context, res startResult) {
	r.inflight--
	ws := r.workers[res.taskID]
	if ws == nil || ws.book.Attempt != res.attempt || ws.status != WorkerSpawning {
		// Cancelled (or retried) while starting: stop what was started.
		if res.err == nil && res.id != "" {
			hctx, cancel := r.hostCtx(ctx)
			_ = r.e.host.Interrupt(hctx, res.id)
			_ = r.e.host.Archive(hctx, res.id)
			cancel()
		}
		return
	}
	if res.err != nil {
		// The call failed, but the host may have created the session: look
		// before trying again, and try again under the same id, so that
		// one task never gets two sessions.
		hctx, cancel := r.hostCtx(ctx)
		_, serr := r.e.host.Session(hctx, SessionID(ws.w.SessionID))
		cancel()
		if serr != nil {
			reason := fmt.Sprintf("start the worker session: %v", res.err)
			if ws.book.AutoRetries < r.tmpl.Config.MaxRetries && r.status != RunPaused {
				r.requeue(ctx, ws, reason, true, false)
			} else {
				r.finalFail(ctx, ws, reason)
			}
			return
		}
		r.log().Info("the worker session exists although its start failed", "task", ws.w.TaskID, "err", res.err)
		res.id = SessionID(ws.w.SessionID)
	}
	if string(res.id) != ws.w.SessionID {
		r.e.untrack(SessionID(ws.w.SessionID))
		ws.w.SessionID = string(res.id)
		r.e.track(res.id, r)
	}
	now := r.e.now()
	_ = r.setWorker(ws, WorkerRunning)
	ws.w.StartedAt = &now
	ws.w.CompletedAt = nil
	ws.w.LastActivityAt = &now
	ws.activity = now
	evs := []event{r.ev(EventWorkerStarted, ws, "")}
	if r.status == RunSpawning {
		r.status = RunRunning
		evs = append(evs, r.ev(EventWorkersSpawned, nil, ""), r.ev(EventStatusChanged, nil, ""))
	}
	_ = r.commit(ctx, store.Change{}, []*workerState{ws}, evs...)
	r.markDirty(res.id, NoticeMessage)
	if rep := ws.early; rep != nil {
		ws.early = nil
		r.onMail(ctx, *rep)
	}
}

// afterWorkers moves the run to aggregation when every task is done.
func (r *runner) afterWorkers(ctx context.Context) {
	if (r.status != RunSpawning && r.status != RunRunning) || r.inflight > 0 {
		return
	}
	for _, ws := range r.workers {
		if !ws.status.Done() {
			return
		}
	}
	r.flushProgress(ctx)
	if r.tmpl.Phases.Aggregation.Enabled {
		r.status = RunAggregating
		r.run.Phase = string(PhaseAggregation)
		if r.commit(ctx, store.Change{}, nil, r.ev(EventPhaseChanged, nil, "")) == nil {
			_ = r.ask(ctx, template.PhaseAggregation, protocol.PhaseAggregation)
		}
		return
	}
	if r.tmpl.Phases.Verification.Enabled {
		r.status = RunVerifying
		r.run.Phase = string(PhaseVerification)
		if r.commit(ctx, store.Change{}, nil, r.ev(EventPhaseChanged, nil, "")) == nil {
			_ = r.ask(ctx, template.PhaseVerification, protocol.PhaseVerification)
		}
		return
	}
	r.complete(ctx, store.Change{}, "")
}

// ---- workers ----

func (r *runner) checkWorker(ctx context.Context, ws *workerState, kind NoticeKind) {
	id := SessionID(ws.w.SessionID)
	d, err := r.absorb(ctx, id, &ws.book)
	if err != nil {
		r.log().Warn("read worker session", "task", ws.w.TaskID, "err", err)
		if ws.book.failures >= 5 {
			r.workerFailed(ctx, ws, fmt.Sprintf("the worker session cannot be read: %v", err), true)
		}
		return
	}
	now := r.e.now()
	if len(d.entries) > 0 {
		ws.activity = now
		ws.w.LastActivityAt = &now
		ws.dirty = true
	}
	ws.w.Tools.Total += d.tools.Total
	ws.w.Tools.Reads += d.tools.Reads
	ws.w.Tools.Writes += d.tools.Writes
	ws.w.Tools.Edits += d.tools.Edits
	ws.w.Tools.Bash += d.tools.Bash
	ws.w.Tools.Search += d.tools.Search
	ws.w.Tools.Web += d.tools.Web
	ws.w.Tools.Task += d.tools.Task
	ws.w.Tools.Other += d.tools.Other
	ws.book.ToolFiles = relFiles(r.run.Cwd, ws.book.ToolFiles, d.files)
	ws.w.InputTokens, ws.w.OutputTokens, ws.w.CostUSD = ws.book.InputTokens, ws.book.OutputTokens, ws.book.CostUSD
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
		if cr, ok := res.Last(protocol.PhaseCompletion); ok {
			if c, ok := cr.Data.(*protocol.Completion); ok {
				r.workerReport(ctx, ws, c, false)
				return
			}
		}
	}
	if kind == NoticeMessage && !d.result && !d.text {
		// Only tool calls came: the turn goes on, and a permission request
		// would come with its own notice (or the next poll).
		return
	}
	info, over := r.turnOver(ctx, id, &ws.book)
	r.permission(ctx, ws, info)
	if !over || (!ws.book.assistant && !ws.book.result) {
		return
	}
	if !d.text {
		res = r.parser.ParseEntries(ws.book.entries, protocol.Options{Phase: protocol.PhaseCompletion})
		if cr, ok := res.Last(protocol.PhaseCompletion); ok {
			if c, ok := cr.Data.(*protocol.Completion); ok {
				r.workerReport(ctx, ws, c, false)
				return
			}
		}
	}
	if d.resultError != "" && !ws.book.assistant {
		r.workerFailed(ctx, ws, "the session ended with an error: "+d.resultError, false)
		return
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
			r.workerFailed(ctx, ws, fmt.Sprintf("send the re-prompt: %v", err), true)
			return
		}
		n := ws.book.Reprompts + 1
		r.markDirty(id, NoticeMessage)
		ws.book.reset(ws.book.Cursor)
		ws.book.Reprompts = n
		ws.activity = now
		_ = r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerReprompted, ws,
			fmt.Sprintf("asked again for the completion report (%d of %d): %s", n, r.tmpl.Config.MaxRetries, failure.Message)))
		return
	}
	text := assistantText(ws.book.entries)
	if fb := protocol.KeywordFallback(text); fb.Detected && fb.ProbablePhase == string(protocol.PhaseCompletion) {
		summary := strings.TrimSpace(text)
		if len(summary) > 2000 {
			summary = summary[len(summary)-2000:]
		}
		r.workerReport(ctx, ws, &protocol.Completion{TaskID: ws.w.TaskID, Status: "success", Summary: summary}, true)
		return
	}
	r.workerFailed(ctx, ws, fmt.Sprintf("no valid completion report after %d re-prompts: %s", ws.book.Reprompts, failure.Message), false)
}

// permission surfaces a permission request the worker is blocked on.
func (r *runner) permission(ctx context.Context, ws *workerState, info SessionInfo) {
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
		return
	}
	ws.w.Waiting = p
	msg := ""
	if p != nil {
		msg = fmt.Sprintf("waiting for permission to use %s", p.ToolName)
		ws.w.CurrentAction = msg
	} else {
		ws.activity = r.e.now()
	}
	_ = r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerWaiting, ws, msg))
}

func (r *runner) workerReport(ctx context.Context, ws *workerState, c *protocol.Completion, unstructured bool) {
	var art []string
	for _, a := range c.Artifacts {
		art = append(art, a.Path)
	}
	ws.w.OutputFiles = relFiles(r.run.Cwd, c.OutputFiles, c.FilesCreated, c.FilesModified, art, ws.book.ToolFiles)
	ws.w.Summary = c.Summary
	ws.w.Output = c.Output
	ws.w.Unstructured = unstructured
	switch c.Status {
	case "needs_input":
		if len(c.Questions) > 0 {
			r.askUser(ctx, ws, c.Questions)
			return
		}
		r.workerFailed(ctx, ws, "the worker needs input but asked no question", false)
	case "success", "partial", "awaiting_review", "conflict":
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
		if c.Status == "conflict" {
			ws.w.Conflicts = conflicts(c)
		}
		msg := ""
		if unstructured {
			msg = "completed without a structured report (guessed from its words)"
		}
		if ws.w.SessionID != "" {
			r.toArchive = append(r.toArchive, SessionID(ws.w.SessionID))
		}
		if r.tmpl.Phases.Review.Enabled {
			r.awaitReview(ctx, ws, c, msg)
			return
		}
		_ = r.setWorker(ws, WorkerCompleted)
		r.journalDone(ws.w.TaskID, true)
		_ = r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerCompleted, ws, msg))
	default:
		reason := c.Error
		if reason == "" {
			reason = "the worker reported status " + c.Status
		}
		if len(c.Questions) > 0 {
			reason += " (questions: " + strings.Join(c.Questions, "; ") + ")"
		}
		r.workerFailed(ctx, ws, reason, false)
	}
}

// archiveReported archives, in the background, the sessions of the workers
// that reported since the last call.
func (r *runner) archiveReported(ctx context.Context) {
	log := r.log()
	for _, id := range r.toArchive {
		r.e.untrack(id)
		r.archiving.Add(1)
		hctx, cancel := r.hostCtx(ctx)
		go func() {
			defer r.archiving.Done()
			defer cancel()
			if err := r.e.host.Archive(hctx, id); err != nil {
				log.Debug("archive worker session", "session", id, "err", err)
			}
		}()
	}
	r.toArchive = nil
}

func (r *runner) archive(ctx context.Context, ws *workerState) {
	if ws.w.SessionID == "" {
		return
	}
	hctx, cancel := r.hostCtx(ctx)
	defer cancel()
	if err := r.e.host.Archive(hctx, SessionID(ws.w.SessionID)); err != nil {
		r.log().Debug("archive worker session", "task", ws.w.TaskID, "err", err)
	}
	r.e.untrack(SessionID(ws.w.SessionID))
}

func (r *runner) stopSession(ctx context.Context, ws *workerState) {
	if ws.w.SessionID == "" || (ws.status != WorkerRunning && ws.status != WorkerPaused &&
		ws.status != WorkerSpawning && ws.status != WorkerTimeout) {
		return
	}
	hctx, cancel := r.hostCtx(ctx)
	if err := r.e.host.Interrupt(hctx, SessionID(ws.w.SessionID)); err != nil {
		r.log().Debug("interrupt worker session", "task", ws.w.TaskID, "err", err)
	}
	cancel()
	r.archive(ctx, ws)
}

// workerFailed stops the worker's session and retries it automatically when
// retry is true and the cap allows, else fails it for good.
func (r *runner) workerFailed(ctx context.Context, ws *workerState, reason string, retry bool) {
	if ctx.Err() != nil {
		return // stopping: nothing failed; Restore takes it up from the store
	}
	r.stopSession(ctx, ws)
	if retry && ws.book.AutoRetries < r.tmpl.Config.MaxRetries && r.status != RunPaused {
		r.requeue(ctx, ws, reason, true, true)
		return
	}
	r.finalFail(ctx, ws, reason)
}

// requeue makes the task pending again. With newSession it runs next in a
// new session (the old one was stopped); else under the same id, for a
// session that never started.
func (r *runner) requeue(ctx context.Context, ws *workerState, reason string, auto, newSession bool) {
	if ctx.Err() != nil {
		return // stopping: nothing failed; Restore takes it up from the store
	}
	ws.status = WorkerPending
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
	ws.book.reset(Cursor{})
	_ = r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerRetrying, ws, reason))
}

func (r *runner) finalFail(ctx context.Context, ws *workerState, reason string) {
	if ctx.Err() != nil {
		return // stopping: nothing failed; Restore takes it up from the store
	}
	now := r.e.now()
	ws.status = WorkerFailed
	ws.w.Error = reason
	r.journalDone(ws.w.TaskID, false)
	ws.w.CompletedAt = &now
	ws.w.Waiting = nil
	skipped := r.skipDependents(ws.w.TaskID, fmt.Sprintf("skipped because %s failed", ws.w.TaskID))
	evs := []event{r.ev(EventWorkerFailed, ws, reason)}
	all := []*workerState{ws}
	for _, s := range skipped {
		evs = append(evs, r.ev(EventWorkerSkipped, s, s.w.Error))
		all = append(all, s)
	}
	if len(skipped) > 0 {
		evs[0].p.Skipped = ids(skipped)
	}
	_ = r.commit(ctx, store.Change{}, all, evs...)
}

func ids(ws []*workerState) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.w.TaskID
	}
	sort.Strings(out)
	return out
}

// skipDependents cancels every pending task that depends, directly or not,
// on task id, and names the reason.
func (r *runner) skipDependents(id, reason string) []*workerState {
	var out []*workerState
	queue := []string{id}
	seen := map[string]bool{id: true}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, t := range r.tasks {
			if seen[t.ID] {
				continue
			}
			for _, d := range t.Dependencies {
				if d != cur {
					continue
				}
				ws := r.workers[t.ID]
				if ws != nil && (ws.status == WorkerPending || ws.status == WorkerPaused) && ws.w.SessionID == "" {
					ws.status = WorkerCancelled
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
	return out
}

func (r *runner) checkTimeouts(ctx context.Context) {
	now := r.e.now()
	abs := template.Seconds(r.tmpl.Config.WorkerTimeout)
	idle := template.Seconds(r.tmpl.Config.InactivityTimeout)
	for _, id := range r.order() {
		ws := r.workers[id]
		if ws.status != WorkerRunning || ws.w.StartedAt == nil || len(ws.w.Questions) > 0 {
			// A worker with open questions waits for the user, not for itself.
			continue
		}
		reason := ""
		switch {
		case abs > 0 && now.Sub(*ws.w.StartedAt) > abs:
			reason = fmt.Sprintf("ran longer than the worker timeout of %d s", r.tmpl.Config.WorkerTimeout)
		case idle > 0 && ws.w.Waiting == nil && now.Sub(ws.activity) > idle:
			reason = fmt.Sprintf("no transcript activity for %d s", r.tmpl.Config.InactivityTimeout)
		}
		if reason == "" {
			continue
		}
		hctx, cancel := r.hostCtx(ctx)
		_ = r.e.host.Interrupt(hctx, SessionID(ws.w.SessionID))
		cancel()
		_ = r.setWorker(ws, WorkerTimeout)
		ws.w.Error = reason
		if r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerTimeout, ws, reason)) != nil {
			continue
		}
		r.workerFailed(ctx, ws, reason, true)
	}
}

func (r *runner) flushProgress(ctx context.Context) {
	r.lastFlush = time.Now()
	var ws []*workerState
	for _, id := range r.order() {
		if w := r.workers[id]; w.dirty {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 && !r.mainDirty {
		return
	}
	r.sync()
	c := store.Change{}
	for _, w := range ws {
		c.Workers = append(c.Workers, w.w)
		w.dirty = false
	}
	run := r.run
	c.Run = &run
	if err := r.e.store.Commit(context.WithoutCancel(ctx), r.run.ID, c); err != nil {
		r.log().Warn("save progress", "err", err)
		return
	}
	if r.mainDirty {
		r.mainDirty = false
		r.e.emit(EventProgress, Payload{RunID: r.run.ID, Status: r.run.Status, Phase: r.run.Phase, Run: &run, Message: r.mainAction})
	}
	if len(ws) == 0 {
		return
	}
	p := Payload{RunID: r.run.ID, Status: r.run.Status, Phase: r.run.Phase, Run: &run}
	for _, w := range ws {
		p.Workers = append(p.Workers, w.w)
	}
	r.e.emit(EventWorkerProgress, p)
}

// ---- commands ----

func (r *runner) pause(ctx context.Context) error {
	if !r.status.CanMove(RunPaused) {
		return illegalRun(r.status, RunPaused)
	}
	r.resume = r.status
	r.status = RunPaused
	return r.commit(ctx, store.Change{}, nil, r.ev(EventPaused, nil, ""))
}

func (r *runner) resumeRun(ctx context.Context) error {
	if r.status != RunPaused {
		return fmt.Errorf("run is %s, not paused: %w", r.status, ErrIllegalTransition)
	}
	r.status = r.resume
	now := r.e.now()
	for _, ws := range r.workers {
		ws.activity = now
	}
	if r.main.Asked != "" {
		r.main.AskedAt = now
		r.markDirty(SessionID(r.run.MainSessionID), NoticeMessage)
	}
	return r.commit(ctx, store.Change{}, nil, r.ev(EventResumed, nil, ""))
}

func (r *runner) cancel(ctx context.Context) error {
	if !r.status.CanMove(RunCancelled) {
		return illegalRun(r.status, RunCancelled)
	}
	var ws []*workerState
	evs := []event{}
	for _, id := range r.order() {
		w := r.workers[id]
		if w.status.Done() {
			continue
		}
		r.stopSession(ctx, w)
		w.status = WorkerCancelled
		if w.w.Error == "" {
			w.w.Error = "the run was cancelled"
		}
		ws = append(ws, w)
		evs = append(evs, r.ev(EventWorkerCancelled, w, ""))
	}
	if r.main.Asked != "" && r.run.MainSessionID != "" {
		hctx, cancel := r.hostCtx(ctx)
		_ = r.e.host.Interrupt(hctx, SessionID(r.run.MainSessionID))
		cancel()
	}
	r.main.Asked = ""
	r.status = RunCancelled
	now := r.e.now()
	r.run.CompletedAt = &now
	var change store.Change
	r.finalReport(ctx, &change)
	return r.commit(ctx, change, ws, append(evs, r.ev(EventCancelled, nil, ""))...)
}

func (r *runner) worker(taskID string) (*workerState, error) {
	ws := r.workers[taskID]
	if ws == nil {
		return nil, fmt.Errorf("run %s has no worker for task %s: %w", r.run.ID, taskID, ErrUnknownTask)
	}
	return ws, nil
}

func (r *runner) pauseWorker(ctx context.Context, taskID string) error {
	ws, err := r.worker(taskID)
	if err != nil {
		return err
	}
	if ws.status != WorkerPending && ws.status != WorkerRunning {
		return illegalWorker(taskID, ws.status, WorkerPaused)
	}
	ws.book.Resume = ws.status.String()
	ws.status = WorkerPaused
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerPaused, ws, ""))
}

func (r *runner) resumeWorker(ctx context.Context, taskID string) error {
	ws, err := r.worker(taskID)
	if err != nil {
		return err
	}
	if ws.status != WorkerPaused {
		return fmt.Errorf("worker %s is %s, not paused: %w", taskID, ws.status, ErrIllegalTransition)
	}
	next := WorkerPending
	if ws.book.Resume == WorkerRunning.String() {
		next = WorkerRunning
		ws.activity = r.e.now()
		r.markDirty(SessionID(ws.w.SessionID), NoticeMessage)
	}
	ws.status = next
	ws.book.Resume = ""
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerResumed, ws, ""))
}

func (r *runner) cancelWorker(ctx context.Context, taskID string) error {
	ws, err := r.worker(taskID)
	if err != nil {
		return err
	}
	if !ws.status.CanMove(WorkerCancelled) || ws.status == WorkerTimeout {
		return illegalWorker(taskID, ws.status, WorkerCancelled)
	}
	r.stopSession(ctx, ws)
	ws.status = WorkerCancelled
	ws.w.Error = "cancelled by the user"
	now := r.e.now()
	ws.w.CompletedAt = &now
	skipped := r.skipDependents(taskID, fmt.Sprintf("skipped because %s was cancelled", taskID))
	evs := []event{r.ev(EventWorkerCancelled, ws, "")}
	if len(skipped) > 0 {
		evs[0].p.Skipped = ids(skipped)
	}
	for _, s := range skipped {
		evs = append(evs, r.ev(EventWorkerSkipped, s, s.w.Error))
	}
	return r.commit(ctx, store.Change{}, append([]*workerState{ws}, skipped...), evs...)
}

func (r *runner) retryWorker(ctx context.Context, taskID string) error {
	ws, err := r.worker(taskID)
	if err != nil {
		return err
	}
	work := r.status == RunSpawning || r.status == RunRunning ||
		(r.status == RunPaused && (r.resume == RunSpawning || r.resume == RunRunning))
	if !work {
		return fmt.Errorf("run is %s; workers can be retried only while they run: %w", r.status, ErrIllegalTransition)
	}
	if ws.w.Skipped && ws.book.SkippedBy == "" {
		// A task the user skipped: run it after all.
		ws.w.Skipped = false
	} else if !ws.status.CanMove(WorkerPending) || ws.status == WorkerPaused || ws.status == WorkerSpawning {
		return illegalWorker(taskID, ws.status, WorkerPending)
	}
	changed := []*workerState{ws}
	for _, o := range r.workers {
		if o.w.Skipped && o.book.SkippedBy != "" && r.dependsOn(o.w.TaskID, taskID) {
			o.status = WorkerPending
			o.w.Skipped = false
			o.w.Error = ""
			o.book.SkippedBy = ""
			changed = append(changed, o)
		}
	}
	ws.w.Skipped = false
	r.requeue(ctx, ws, "", false, true)
	if len(changed) > 1 {
		return r.commit(ctx, store.Change{}, changed[1:])
	}
	return nil
}

// dependsOn reports whether task a depends on task b, directly or not.
func (r *runner) dependsOn(a, b string) bool {
	seen := map[string]bool{}
	var walk func(id string) bool
	walk = func(id string) bool {
		if seen[id] {
			return false
		}
		seen[id] = true
		t := r.task(id)
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

// reattach prepares a restored run: each worker session that exists is
// followed again from where it was read; one that never started is started
// again under the same id.
func (r *runner) reattach(ctx context.Context) error {
	if r.tmpl.Config.Transport == TransportMailbox && !r.status.Finished() && r.status >= RunSpawning {
		if err := r.openMail(r.e.ctx); err != nil {
			r.log().Warn("reopen the file mailbox", "err", err)
		}
	}
	for _, id := range r.order() {
		ws := r.workers[id]
		if ws.status != WorkerSpawning && ws.status != WorkerRunning &&
			!(ws.status == WorkerPaused && ws.w.SessionID != "") && ws.status != WorkerTimeout {
			continue
		}
		hctx, cancel := r.hostCtx(ctx)
		_, err := r.e.host.Session(hctx, SessionID(ws.w.SessionID))
		cancel()
		missing := errors.Is(err, ErrNoSession)
		switch {
		case err == nil && ws.status == WorkerTimeout:
			ws.status = WorkerRunning
			r.workerFailed(ctx, ws, ws.w.Error, true)
		case err == nil || (!missing && ws.status != WorkerTimeout):
			// Alive, or not visible right now for another reason: follow it
			// (reads that keep failing end in a retry), never start a second.
			if err != nil {
				r.log().Warn("worker session not checked on restore", "task", id, "err", err)
			}
			if ws.status == WorkerSpawning {
				ws.status = WorkerRunning
				now := r.e.now()
				ws.w.StartedAt = &now
			}
			// Re-read from the prompt so the answer can be found; entries
			// already counted are not counted twice.
			ws.book.replayTo = ws.book.Cursor.Index
			ws.book.Cursor = ws.book.Prompt
			ws.activity = r.e.now()
		case ws.status == WorkerSpawning:
			// Never started: start it (under the same id) again.
			ws.status = WorkerPending
			ws.w.SessionID = ""
		default:
			r.log().Warn("worker session is gone", "task", id, "err", err)
			ws.status = WorkerRunning
			r.workerFailed(ctx, ws, fmt.Sprintf("the worker session was lost: %v", err), true)
		}
	}
	if r.main.Asked != "" {
		r.main.replayTo = r.main.Cursor.Index
		r.main.Cursor = r.main.Prompt
		r.main.AskedAt = r.e.now()
	}
	var all []*workerState
	for _, id := range r.order() {
		all = append(all, r.workers[id])
	}
	// Announce the restored state; a run that waits for confirmation shows
	// its plan again, so a view (or "baton run --resume") can ask for it.
	evs := []event{r.ev(EventStatusChanged, nil, "restored")}
	if r.status == RunConfirming {
		ready := r.ev(EventTasksReady, nil, "")
		ready.p.Tasks, ready.p.Groups = r.tasks, ParallelGroups(r.tasks)
		evs = append(evs, ready)
		var tle *TaskListError
		if err := CheckTasks(r.tasks, r.tmpl.Config.MaxTasks); errors.As(err, &tle) {
			inv := r.ev(EventTasksInvalid, nil, err.Error())
			inv.p.Problems = tle.Problems
			evs = append(evs, inv)
		}
	}
	return r.commit(ctx, store.Change{}, all, evs...)
}

func (r *runner) respondPermission(ctx context.Context, taskID string, decision PermissionDecision, input json.RawMessage) error {
	ws, err := r.worker(taskID)
	if err != nil {
		return err
	}
	if ws.w.Waiting == nil {
		return fmt.Errorf("worker %s is not waiting for a permission: %w", taskID, ErrBadRequest)
	}
	if !decision.Valid() {
		return fmt.Errorf("permission decision %q is not once, always or deny: %w", decision, ErrBadRequest)
	}
	b, ok := r.e.host.(SessionBrowser)
	if !ok {
		return fmt.Errorf("this session host cannot answer permission requests: %w", ErrBadRequest)
	}
	hctx, cancel := r.hostCtx(ctx)
	defer cancel()
	if err := b.RespondPermission(hctx, ws.w.Waiting.RequestID, decision, input); err != nil {
		return fmt.Errorf("answer the permission request of %s: %w", taskID, err)
	}
	ws.w.Waiting = nil
	ws.activity = r.e.now()
	r.markDirty(SessionID(ws.w.SessionID), NoticePermission)
	return r.commit(ctx, store.Change{}, []*workerState{ws}, r.ev(EventWorkerWaiting, ws, "permission answered: "+string(decision)))
}
