package engine

import (
	"context"
	"log/slog"
	"sync"

	"github.com/baton-app/baton/backend/mailbox"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/store"
)

// hooks are the seed workflows (skills, journal, file mailbox) as the run
// loop sees them: the runner calls them at fixed points and never touches
// their state. Implementations queue their file writes on their own
// goroutine; what must be known before the loop goes on (a prompt section,
// an assignment's error, the journal's archive) is waited for.
type hooks interface {
	// planned annotates tasks that were planned, edited or added (their
	// matched skills) and returns a note for the run's message ("" none).
	planned(tasks []store.Task) string
	// confirmed: the plan was confirmed.
	confirmed(tasks []store.Task)
	// assign: the worker of task t is about to start; an error fails the
	// task.
	assign(ctx context.Context, t *store.Task) error
	// sections are what the workflows add to the worker prompt of task t.
	// It is called off the run's goroutine, before the worker starts.
	sections(t *store.Task) []string
	// awaitingReview: a completion waits for its review.
	awaitingReview(taskID string, c *protocol.Completion)
	// decided: a review decision was taken.
	decided(taskID string, d *protocol.Review)
	// finished: a task completed, or failed for good.
	finished(taskID string, completed bool)
	// skipped: tasks that will not run (a dependency failed, the user
	// skipped them).
	skipped(taskIDs []string)
	// completed: the run completed; returns a sentence for its message.
	completed() string
	// restored: a restored run that is past confirmation is taken up.
	restored()
	// reports carries the mailbox's reports to the loop (nil: none).
	reports() <-chan mailbox.Report
	// flush waits for the writes queued so far.
	flush()
	// close waits for the writes and releases what the workflows hold; the
	// loop calls it when the run's goroutine ends.
	close()
}

// seedHooks are the hooks of seeds 001 (mailbox), 004 (skills, journal).
type seedHooks struct {
	skills  *skillsHook
	journal *journalHook
	mail    *mailHook
	w       *writer
}

func (h *seedHooks) planned(tasks []store.Task) string { return h.skills.match(tasks) }

func (h *seedHooks) confirmed(tasks []store.Task) {
	if h.journal.on() {
		h.w.do(func() { h.journal.init(tasks) })
	}
}

func (h *seedHooks) assign(ctx context.Context, t *store.Task) error {
	if !h.mail.on() {
		return nil
	}
	var err error
	h.w.call(func() { err = h.mail.assign(ctx, t) })
	return err
}

func (h *seedHooks) sections(t *store.Task) []string {
	var out []string
	if s := h.skills.section(t); s != "" {
		out = append(out, s)
	}
	if h.journal.on() {
		var s string
		h.w.call(func() { s = h.journal.section(t) })
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (h *seedHooks) awaitingReview(taskID string, c *protocol.Completion) {
	if h.mail.on() {
		h.w.do(func() { h.mail.reported(taskID, c) })
	}
}

func (h *seedHooks) decided(taskID string, d *protocol.Review) {
	if h.mail.on() {
		h.w.do(func() { h.mail.decided(taskID, d) })
	}
}

func (h *seedHooks) finished(taskID string, completed bool) {
	if h.journal.on() {
		h.w.do(func() { h.journal.done(taskID, completed) })
	}
}

func (h *seedHooks) skipped(ids []string) {
	if h.journal.on() && len(ids) > 0 {
		h.w.do(func() { h.journal.skipped(ids) })
	}
}

func (h *seedHooks) completed() string {
	if !h.journal.on() {
		return ""
	}
	var note string
	h.w.call(func() { note = h.journal.archive() })
	return note
}

func (h *seedHooks) restored() {
	if h.mail.on() {
		h.w.call(h.mail.reopen)
	}
}

func (h *seedHooks) reports() <-chan mailbox.Report { return h.mail.out }

func (h *seedHooks) flush() { h.w.flush() }

func (h *seedHooks) close() {
	h.w.close()
	h.mail.close()
}

// writer runs jobs one after another on its own goroutine, started by the
// first job. do queues a job; call queues one and waits for it, so that it
// sees every write queued before it.
type writer struct {
	log     *slog.Logger
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []func()
	started bool
	closed  bool
	done    chan struct{}
}

func newWriter(log *slog.Logger) *writer {
	w := &writer{log: log, done: make(chan struct{})}
	w.cond = sync.NewCond(&w.mu)
	return w
}

func (w *writer) do(job func()) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		w.log.Warn("a workflow write came after the run ended; done at once")
		job()
		return
	}
	if !w.started {
		w.started = true
		go w.loop()
	}
	w.queue = append(w.queue, job)
	w.cond.Signal()
	w.mu.Unlock()
}

func (w *writer) call(job func()) {
	done := make(chan struct{})
	w.do(func() {
		defer close(done)
		job()
	})
	<-done
}

// flush waits for the jobs queued so far.
func (w *writer) flush() {
	w.mu.Lock()
	idle := !w.started || w.closed
	w.mu.Unlock()
	if !idle {
		w.call(func() {})
	}
}

// close waits for the queued jobs and stops the goroutine.
func (w *writer) close() {
	w.mu.Lock()
	w.closed = true
	started := w.started
	w.cond.Signal()
	w.mu.Unlock()
	if started {
		<-w.done
	}
}

func (w *writer) loop() {
	defer close(w.done)
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && !w.closed {
			w.cond.Wait()
		}
		if len(w.queue) == 0 {
			w.mu.Unlock()
			return
		}
		job := w.queue[0]
		w.queue = w.queue[1:]
		w.mu.Unlock()
		job()
	}
}
