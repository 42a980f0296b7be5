package notify

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/engine"
)

// Sender is what the Announcer sends through (a Desktop notifier).
type Sender interface {
	Notify(ctx context.Context, n Notification) error
}

// Announcer turns engine events into desktop notifications: a run that
// finished (with its failures counted), a run that stopped on an error, and
// a worker or task list that waits for the user. It is an engine.Emitter;
// Emit never blocks (the sends happen on the Announcer's own goroutine).
type Announcer struct {
	send Sender
	log  *slog.Logger

	mu    sync.Mutex
	names map[string]string // run id → what the run is called

	queue chan Notification
	done  chan struct{}
	wg    sync.WaitGroup
}

// NewAnnouncer starts an Announcer that sends through s until Close.
func NewAnnouncer(s Sender, logger *slog.Logger) *Announcer {
	if logger == nil {
		logger = slog.Default()
	}
	a := &Announcer{send: s, log: logger.With("component", "notify"), names: map[string]string{},
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
	n, ok := a.notification(name, p)
	if !ok {
		return
	}
	select {
	case a.queue <- n:
	default:
		a.log.Warn("desktop notification dropped: too many at once", "summary", n.Summary)
	}
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
	case engine.EventWorkerWaiting:
		body := fmt.Sprintf("%s waits for your answer", p.TaskID)
		if p.Message != "" {
			body += ": " + p.Message
		}
		return Notification{Summary: "A worker needs you: " + run, Body: body, RunID: p.RunID, Urgency: UrgencyCritical}, true
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

// Close stops sending; notifications still queued are dropped.
func (a *Announcer) Close() {
	close(a.done)
	a.wg.Wait()
}
