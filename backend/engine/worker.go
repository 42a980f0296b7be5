package engine

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/limits"
	"github.com/baton-app/baton/backend/scope"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/transcript"
	"github.com/baton-app/baton/backend/workflows"
)

// workerState is the worker of one task as the run sees it. Its methods
// change it and return the change to apply.
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
	early *workflows.Report
	// memory is the free memory (MB, at least 1) last shown while the
	// worker waits for memory to start; 0 when it does not wait.
	memory int64
	// before is the snapshot of its scope and planned outputs taken before
	// its worker started, in a shared run (nil: none, after a restart).
	before *scope.Snapshot
}

// workerBook is a worker's state beyond its row, stored with it.
type workerBook struct {
	transcript.Cursor
	// Reprompts counts the re-prompts for the completion report.
	Reprompts   int `json:"reprompts"`
	Attempt     int `json:"attempt,omitempty"`
	AutoRetries int `json:"autoRetries,omitempty"`
	// Partials counts the partial reports that re-queued the task.
	Partials int `json:"partials,omitempty"`
	// OutputAsks counts the times the worker was asked again for outputs
	// it declared and did not write.
	OutputAsks int      `json:"outputAsks,omitempty"`
	SkippedBy  string   `json:"skippedBy,omitempty"`
	Resume     string   `json:"resume,omitempty"`
	ToolFiles  []string `json:"toolFiles,omitempty"`
	// Done are the tool calls the worker made in its session, one line
	// each, the last maxDone: what it is told it already did when its turn
	// stopped and it goes on (prompts.GoOn).
	Done []string `json:"done,omitempty"`
	reviewGate
	limits.Book
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

// live is the worker's session that may still run ("": none).
func (ws *workerState) live() string {
	if ws.status != WorkerRunning && ws.status != WorkerPaused && ws.status != WorkerSpawning && ws.status != WorkerTimeout {
		return ""
	}
	return ws.w.SessionID
}

// event is event name about this worker.
func (ws *workerState) event(name, msg string) change {
	return change{}.with([]*workerState{ws}, newEvent(name, ws, msg))
}

// cancellable says why the user cannot cancel the worker now (nil: they
// can).
func (ws *workerState) cancellable() error {
	if !ws.status.CanMove(WorkerCancelled) || ws.status == WorkerTimeout {
		return illegalWorker(ws.w.TaskID, ws.status, WorkerCancelled)
	}
	return nil
}

// pause stops watching the worker (and keeps a pending one from starting).
func (ws *workerState) pause() (change, error) {
	if ws.status != WorkerPending && ws.status != WorkerRunning {
		return change{}, illegalWorker(ws.w.TaskID, ws.status, WorkerPaused)
	}
	was := ws.status
	if err := ws.move(WorkerPaused); err != nil {
		return change{}, err
	}
	ws.book.Resume = was.String()
	return ws.event(EventWorkerPaused, ""), nil
}

// unpause returns a paused worker to what it was doing at now.
func (ws *workerState) unpause(now time.Time) (change, error) {
	if ws.status != WorkerPaused {
		return change{}, fmt.Errorf("worker %s is %s, not paused: %w", ws.w.TaskID, ws.status, ErrIllegalTransition)
	}
	next := WorkerPending
	if ws.book.Resume == WorkerRunning.String() {
		next = WorkerRunning
	}
	if err := ws.move(next); err != nil {
		return change{}, err
	}
	if next == WorkerRunning {
		ws.activity = now
	}
	ws.book.Resume = ""
	return ws.event(EventWorkerResumed, ""), nil
}

// started: the worker's session started at now.
func (ws *workerState) started(now time.Time) error {
	if err := ws.move(WorkerRunning); err != nil {
		return err
	}
	ws.w.StartedAt = &now
	ws.w.CompletedAt = nil
	ws.w.LastActivityAt = &now
	ws.activity = now
	return nil
}

// mayHaveSession reports whether the worker may have a session on the host
// that a restored run follows again.
func (ws *workerState) mayHaveSession() bool {
	return ws.status == WorkerSpawning || ws.status == WorkerRunning || ws.status == WorkerTimeout ||
		(ws.status == WorkerPaused && ws.w.SessionID != "")
}

// restoreStep is what a restored run still does for a worker
// (workerState.restored).
type restoreStep int

const (
	// restoreFollow: its session is followed again (or it starts again).
	restoreFollow restoreStep = iota
	// restoreStop: it timed out before its session was stopped: stop it
	// now.
	restoreStop
	// restoreLost: the host lost its session.
	restoreLost
)

// restored takes the worker up again after a restart at now, given what the
// host said of its session (err from Session; nil: it exists): a session
// that exists, or is not visible right now for another reason, is followed
// again from where it was read (reads that keep failing end in a retry),
// never started a second time; one that never started starts again under
// the same id.
func (ws *workerState) restored(err error, now time.Time) (restoreStep, error) {
	missing := errors.Is(err, session.ErrNoSession)
	switch {
	case err == nil && ws.status == WorkerTimeout:
		return restoreStop, nil
	case err == nil || (!missing && ws.status != WorkerTimeout):
		if ws.status == WorkerSpawning {
			if err := ws.move(WorkerRunning); err != nil {
				return 0, err
			}
			ws.w.StartedAt = &now
		}
		ws.book.Replay()
		ws.activity = now
		return restoreFollow, nil
	case ws.status == WorkerSpawning:
		if err := ws.move(WorkerPending); err != nil {
			return 0, err
		}
		ws.w.SessionID = ""
		return restoreFollow, nil
	}
	if ws.status == WorkerPaused {
		if err := ws.move(WorkerRunning); err != nil {
			return 0, err
		}
	}
	return restoreLost, nil
}

// startLost: the worker's start was cut because the host was lost. Nothing
// is counted against the task: it is started again, under the same id, when
// the host is back, and a session the host made meanwhile is found by it.
// A worker on a machine waits for it (msg says so) or, past the bound,
// leaves it (leftMachine).
func (ws *workerState) startLost(msg string) (change, error) {
	if err := ws.move(WorkerPending); err != nil {
		return change{}, err
	}
	ws.w.SessionID, ws.w.Error, ws.w.CurrentAction = "", "", msg
	return ws.event(EventWorkerRetrying, cmp.Or(msg, "the session host was lost while the worker started")), nil
}

// leftMachine: the worker's start was cut by its machine's loss, and the
// machine stayed away past the bound (why): it starts elsewhere in a new
// session, no retry spent (a session the machine made lives on there).
func (ws *workerState) leftMachine(why string) change {
	ws.book.Attempt++
	ws.book.Done = nil
	ws.w.RetryCount++
	ws.w.Error, ws.w.CurrentAction = why, ""
	return ws.event(EventWorkerRetrying, why)
}

// took counts what a read of the worker's session said, at now; files are
// relative to root (the worker's folder).
func (ws *workerState) took(d transcript.Digest, root string, now time.Time) {
	if d.Activity {
		ws.activity = now
		ws.w.LastActivityAt = &now
		ws.dirty = true
	}
	if d.Retry != nil {
		// The CLI waits before it asks the model again: quiet until then
		// is no inactivity.
		ws.activity = now.Add(d.Retry.Delay)
	}
	if len(d.Made) > 0 {
		ws.book.Done = append(ws.book.Done, d.Made...)
		if n := len(ws.book.Done); n > maxDone {
			ws.book.Done = slices.Clone(ws.book.Done[n-maxDone:])
		}
	}
	before := ws.w
	transcript.AddTools(&ws.w.Tools, d.Tools)
	ws.book.ToolFiles = transcript.RelFiles(root, ws.book.ToolFiles, d.Files)
	ws.w.InputTokens, ws.w.OutputTokens = ws.book.InputTokens, ws.book.OutputTokens
	ws.w.CostUSD, _ = ws.book.Cost()
	if d.LastAction != "" {
		ws.w.CurrentAction = d.LastAction
	}
	ws.w.Tools.Running = ws.book.Running()
	// Tool calls, their results and tokens are progress too: a card shows
	// what runs now, not what ran before the last text.
	if ws.w.CurrentAction != before.CurrentAction || ws.w.Tools.Total != before.Tools.Total ||
		!store.SameTool(ws.w.Tools.Running, before.Tools.Running) || ws.w.InputTokens != before.InputTokens ||
		ws.w.OutputTokens != before.OutputTokens || ws.w.CostUSD != before.CostUSD {
		ws.dirty = true
	}
}

// maxDone is how many tool calls a worker's book keeps.
const maxDone = 60

// retrying shows on the worker's card that its CLI retries a request to the
// model, or no longer does; false when nothing changed.
func (ws *workerState) retrying() (change, bool) {
	text := ""
	if rt := ws.book.Retrying(); rt != nil {
		text = rt.Text()
	}
	switch {
	case text != "" && ws.w.CurrentAction != text:
		ws.w.CurrentAction = text
		return ws.event(EventModelRetry, text), true
	case text == "" && strings.HasPrefix(ws.w.CurrentAction, "waiting for the model"):
		ws.w.CurrentAction = ""
		ws.dirty = true
	}
	return change{}, false
}

// wentOn: the worker, whose turn stopped before it ended (why), was sent
// the message to go on in its session at now; reprompt counts it against
// the re-prompts.
func (ws *workerState) wentOn(why string, now time.Time, reprompt bool) change {
	n := ws.book.Reprompts
	if reprompt {
		n++
	}
	ws.book.Reset(ws.book.At)
	ws.book.Reprompts = n
	ws.activity = now
	ws.w.LastActivityAt = &now
	ws.w.CurrentAction = ""
	return ws.event(EventWorkerResumed, "goes on in the same session: "+why)
}

// permission shows the permission request the worker is blocked on (info
// from its host), or that it no longer is; false when nothing changed.
func (ws *workerState) permission(info session.Info, now time.Time) (change, bool) {
	var p *store.Permission
	if len(info.Pending) > 0 {
		q := info.Pending[0]
		p = &store.Permission{RequestID: q.RequestID, ToolName: q.ToolName, Input: q.Input, ToolUseID: q.ToolUseID}
	}
	was := ""
	if ws.w.Waiting != nil {
		was = ws.w.Waiting.RequestID
	}
	is := ""
	if p != nil {
		is = p.RequestID
	}
	if was == is {
		return change{}, false
	}
	ws.w.Waiting = p
	msg := ""
	if p != nil {
		msg = fmt.Sprintf("waiting for permission to use %s", p.ToolName)
		ws.w.CurrentAction = msg
	} else {
		ws.activity = now
		ws.w.CurrentAction = ws.doing()
	}
	return ws.event(EventWorkerWaiting, msg), true
}

// doing is what the worker does once nothing waits for the user: the tool
// call that runs, else it thinks.
func (ws *workerState) doing() string {
	if t := ws.w.Tools.Running; t != nil {
		return strings.TrimSpace(t.Name + " " + t.Input)
	}
	return "thinking"
}

// permitted: the user answered the worker's permission request at now. The
// card says what the worker does now: the tool it was allowed runs (its
// time from its call), a denied one ends with an error the agent reads.
func (ws *workerState) permitted(decision session.PermissionDecision, now time.Time) change {
	tool := ""
	if ws.w.Waiting != nil {
		tool = ws.w.Waiting.ToolName
	}
	ws.w.Waiting = nil
	ws.activity = now
	if decision == session.Deny {
		ws.w.CurrentAction = strings.TrimSpace("denied " + tool + "; the worker goes on without it")
	} else {
		ws.w.CurrentAction = ws.doing()
	}
	return ws.event(EventWorkerWaiting, "permission answered: "+string(decision))
}

// reprompted: the worker was asked again for its completion report at
// now (n of max times), because of why.
func (ws *workerState) reprompted(now time.Time, max int, why string) change {
	n := ws.book.Reprompts + 1
	ws.book.Reset(ws.book.At)
	ws.book.Reprompts = n
	ws.activity = now
	return ws.event(EventWorkerReprompted, fmt.Sprintf("asked again for the completion report (%d of %d): %s", n, max, why))
}

// asks puts the worker in waiting for the answer to its questions.
func (ws *workerState) asks(questions []string) change {
	ws.w.Questions = append([]string(nil), questions...)
	ws.w.CurrentAction = "waiting for an answer: " + strings.Join(questions, " ")
	// The report is taken: what the session says next answers anew.
	ws.book.Reset(ws.book.At)
	ws.book.Reprompts = 0
	return ws.event(EventWorkerQuestion, strings.Join(questions, "\n"))
}

// told: the user's answer text went to the worker's session at now.
func (ws *workerState) told(text string, now time.Time) change {
	// Everything read so far was before the answer.
	ws.book.Reset(ws.book.At)
	ws.w.Questions = nil
	ws.w.CurrentAction = "answer received"
	ws.activity = now
	ws.w.LastActivityAt = &now
	return ws.event(EventWorkerAnswered, text)
}

// holdFor puts the worker, whose turn ended on a limit, to wait w out in
// its session; msg says until when.
func (ws *workerState) holdFor(w limits.Wait, msg string) {
	// What the session wrote up to the limit is read: the continue message
	// is answered after it (a restore reads again from here, not from the
	// entries that reported the limit).
	ws.book.Reset(ws.book.At)
	ws.book.Hold(w)
	ws.w.CurrentAction = msg
	ws.dirty = true
}

// budgetWait holds the worker, whose turn ended while the budget is used
// up, in its session until the budget is raised.
func (ws *workerState) budgetWait(now time.Time) change {
	ws.book.Hold(limits.Wait{Kind: limits.Budget, Since: now})
	ws.w.CurrentAction = "waiting for the budget to be raised"
	return ws.event(EventWorkerPaused, ws.w.CurrentAction)
}

// continued: the continue message went to the worker's session at now,
// after it waited for kind.
func (ws *workerState) continued(kind limits.Kind, now time.Time) change {
	ws.book.Reset(ws.book.At)
	ws.activity = now
	ws.w.LastActivityAt = &now
	ws.w.CurrentAction = ""
	return ws.event(EventWorkerResumed, "goes on in the same session after the "+kind.Describe())
}
