package notify

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/session"
)

// Sender is what the Announcer sends through (a Desktop notifier).
type Sender interface {
	Notify(ctx context.Context, n Notification) error
}

// Announcer turns engine events into desktop notifications, only for what
// needs or informs the user: a run that finished (with its failures
// counted), a run that stopped on an error, limits and budgets, a task list
// to review, and the workers that wait for the user (a permission prompt,
// questions). A prompt that was answered says nothing; prompts that arrive
// together (within Together of the first) are one notification ("3 workers
// need you"), which opens their run, or the Inbox when they are of several
// runs; one answered meanwhile is left out. It is an engine.Emitter; Emit
// never blocks (the sends happen on the Announcer's own goroutine).
type Announcer struct {
	send Sender
	log  *slog.Logger
	// together is how long prompts are gathered into one notification.
	together time.Duration

	mu    sync.Mutex
	names map[string]string // run id → what the run is called
	// needs are the workers that wait for the user, gathered since the
	// first of them; flush sends them as one notification.
	needs []need
	timer *time.Timer

	queue chan Notification
	done  chan struct{}
	wg    sync.WaitGroup
}

// Together is how long the Announcer gathers the workers that start waiting
// for the user into one notification.
const Together = 1500 * time.Millisecond

// need is one worker that waits for the user.
type need struct {
	runID, taskID string
	// what it waits for ("Bash rm -rf build", "a question").
	what string
}

// NewAnnouncer starts an Announcer that sends through s until Close.
func NewAnnouncer(s Sender, logger *slog.Logger) *Announcer {
	return newAnnouncer(s, logger, Together)
}

func newAnnouncer(s Sender, logger *slog.Logger, together time.Duration) *Announcer {
	if logger == nil {
		logger = slog.Default()
	}
	a := &Announcer{send: s, log: logger.With("component", "notify"), names: map[string]string{}, together: together,
		queue: make(chan Notification, 64), done: make(chan struct{})}
	a.wg.Add(1)
	go a.loop()
	return a
}

func (a *Announcer) loop() {
	defer a.wg.Done()
	for {
		select {
		case <-a.done:
			return
		case n := <-a.queue:
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if err := a.send.Notify(ctx, n); err != nil {
				a.log.Warn("desktop notification not shown", "err", err)
			}
			cancel()
		}
	}
}

// Emit implements engine.Emitter.
func (a *Announcer) Emit(name string, p engine.Payload) {
	if p.Run != nil {
		a.mu.Lock()
		a.names[p.RunID] = RunName(p.Run.TemplateName, p.Run.Request)
		a.mu.Unlock()
	}
	if a.gather(name, p) {
		return
	}
	n, ok := a.notification(name, p)
	if !ok {
		return
	}
	a.enqueue(n)
}

func (a *Announcer) enqueue(n Notification) {
	select {
	case a.queue <- n:
	default:
		a.log.Warn("desktop notification dropped: too many at once", "summary", n.Summary)
	}
}

// gather takes the events about workers that wait for the user: a worker
// that starts waiting joins the gathered ones (the first starts the clock),
// one that was answered, or moved on, leaves them. It reports whether the
// event was one of these.
func (a *Announcer) gather(name string, p engine.Payload) bool {
	var what string
	switch {
	case name == engine.EventWorkerWaiting && p.Worker != nil && p.Worker.Waiting != nil:
		what = session.ToolSummary(p.Worker.Waiting.ToolName, p.Worker.Waiting.Input, session.ToolLine)
	case name == engine.EventWorkerQuestion:
		what = "a question"
		if p.Message != "" {
			what = "a question: " + strings.ReplaceAll(p.Message, "\n", " ")
		}
	case name == engine.EventWorkerProgress:
		// Tokens and tools read while it waits: no answer.
		return false
	case strings.HasPrefix(name, "worker:"):
		// Anything else about the worker (the prompt answered, a result,
		// a failure) means it no longer waits for this.
		a.mu.Lock()
		a.needs = slices.DeleteFunc(a.needs, func(n need) bool { return n.runID == p.RunID && n.taskID == p.TaskID })
		a.mu.Unlock()
		return name == engine.EventWorkerWaiting || name == engine.EventWorkerAnswered
	default:
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.needs = slices.DeleteFunc(a.needs, func(n need) bool { return n.runID == p.RunID && n.taskID == p.TaskID })
	a.needs = append(a.needs, need{runID: p.RunID, taskID: p.TaskID, what: what})
	if a.timer == nil {
		a.timer = time.AfterFunc(a.together, a.flush)
	}
	return true
}

// flush sends the workers gathered as one notification.
func (a *Announcer) flush() {
	a.mu.Lock()
	needs := a.needs
	a.needs, a.timer = nil, nil
	names := map[string]string{}
	for _, n := range needs {
		names[n.runID] = a.names[n.runID]
	}
	a.mu.Unlock()
	if n, ok := needsYou(needs, names); ok {
		a.enqueue(n)
	}
}

// needsYou is the one notification about the workers in needs that wait
// for the user; names are what their runs are called. One worker is named
// with what it waits for; several are counted; a click opens their run, or
// the Inbox when they are of several runs. False: nobody waits.
func needsYou(needs []need, names map[string]string) (Notification, bool) {
	if len(needs) == 0 {
		return Notification{}, false
	}
	runName := func(id string) string {
		if n := names[id]; n != "" {
			return n
		}
		return id
	}
	runs := []string{}
	for _, n := range needs {
		if !slices.Contains(runs, n.runID) {
			runs = append(runs, n.runID)
		}
	}
	if len(needs) == 1 {
		n := needs[0]
		return Notification{Summary: "A worker needs you: " + runName(n.runID), Body: fmt.Sprintf("%s waits for your answer: %s", n.taskID, n.what),
			RunID: n.runID, Urgency: UrgencyCritical}, true
	}
	tasks := make([]string, len(needs))
	for i, n := range needs {
		tasks[i] = n.taskID
	}
	summary := fmt.Sprintf("%d workers need you", len(needs))
	if len(runs) == 1 {
		return Notification{Summary: summary + ": " + runName(runs[0]), Body: strings.Join(tasks, ", ") + " wait for your answer.",
			RunID: runs[0], Urgency: UrgencyCritical}, true
	}
	body := fmt.Sprintf("%s wait for your answer, in %d runs. The Inbox has them all.", strings.Join(tasks, ", "), len(runs))
	return Notification{Summary: summary, Body: body, Inbox: true, Urgency: UrgencyCritical}, true
}

func (a *Announcer) name(runID string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n := a.names[runID]; n != "" {
		return n
	}
	return runID
}

// notification is what event name says to the user, if anything.
func (a *Announcer) notification(name string, p engine.Payload) (Notification, bool) {
	run := a.name(p.RunID)
	switch name {
	case engine.EventCompleted:
		body := ""
		urgency := UrgencyNormal
		summary := "Run finished: "
		status := p.Status
		if r := p.Run; r != nil {
			status = r.Status
			body = fmt.Sprintf("%d of %d %s completed", r.TasksCompleted, r.TasksTotal, map[bool]string{true: "task", false: "tasks"}[r.TasksTotal == 1])
			if r.TasksFailed > 0 || r.TasksSkipped > 0 {
				body += fmt.Sprintf(", %d failed, %d skipped", r.TasksFailed, r.TasksSkipped)
				urgency = UrgencyCritical
			}
			body += "."
			// The outcome says what is open: the first issues follow.
			for i, is := range r.Issues {
				if i == 2 {
					body += fmt.Sprintf(" (%d more in the run's report)", len(r.Issues)-2)
					break
				}
				body += " " + is
			}
		}
		switch status {
		case engine.RunCompletedWithIssues.String():
			summary, urgency = "Run completed with issues: ", UrgencyCritical
		case engine.RunFailed.String():
			summary, urgency = "Run failed: ", UrgencyCritical
		}
		return Notification{Summary: summary + run, Body: body, RunID: p.RunID, Urgency: urgency}, true
	case engine.EventError:
		return Notification{Summary: "Run stopped: " + run, Body: p.Message, RunID: p.RunID, Urgency: UrgencyCritical}, true
	case engine.EventLimitWaiting:
		body := p.Message
		if p.ResumesAt != nil {
			body = "Waiting for the limit, resumes at " + p.ResumesAt.Local().Format("15:04") + ". " + p.Message
		}
		return Notification{Summary: "Limit reached: " + run, Body: body, RunID: p.RunID, Urgency: UrgencyNormal}, true
	case engine.EventLimitDue:
		return Notification{Summary: "Limit reset: " + run, Body: "The run waits for you: Resume now in the Inbox.", RunID: p.RunID, Urgency: UrgencyCritical}, true
	case engine.EventBudgetWarning:
		return Notification{Summary: "Budget almost used: " + run, Body: p.Message, RunID: p.RunID, Urgency: UrgencyNormal}, true
	case engine.EventBudgetReached:
		return Notification{Summary: "Budget used up, run paused: " + run, Body: p.Message, RunID: p.RunID, Urgency: UrgencyCritical}, true
	case engine.EventTasksReady, engine.EventTasksInvalid:
		if p.Status != engine.RunConfirming.String() {
			return Notification{}, false
		}
		return Notification{Summary: "Tasks to review: " + run, Body: "The plan is ready; review and confirm it to start the workers.", RunID: p.RunID, Urgency: UrgencyNormal}, true
	}
	return Notification{}, false
}

// RunName is how notifications name a run: its template and the start of
// its request.
func RunName(templateName, request string) string {
	req := strings.Join(strings.Fields(request), " ")
	if r := []rune(req); len(r) > 60 {
		req = string(r[:59]) + "…"
	}
	switch {
	case templateName == "":
		return req
	case req == "":
		return templateName
	}
	return templateName + " — " + req
}

// Close stops sending; notifications still queued or gathered are dropped.
func (a *Announcer) Close() {
	a.mu.Lock()
	if a.timer != nil {
		a.timer.Stop()
		a.timer = nil
	}
	a.needs = nil
	a.mu.Unlock()
	close(a.done)
	a.wg.Wait()
}
