package workflows

import (
	"log/slog"
	"sync"
)

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
