package service

import "sync"

// Events fans Baton's events (engine, templates, host status, inbox) out to
// every subscriber: the window, the desktop notifications, the inbox
// watcher, the terminal's progress display. Subscribers run on the sender's
// goroutine, in the order they subscribed, and must not block.
type Events struct {
	mu   sync.RWMutex
	subs []func(name string, payload any)
}

// Subscribe adds fn; it receives every event sent after it.
func (e *Events) Subscribe(fn func(name string, payload any)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.subs = append(e.subs, fn)
}

// Emit sends one event named domain:what to every subscriber.
func (e *Events) Emit(name string, payload any) {
	e.mu.RLock()
	subs := e.subs
	e.mu.RUnlock()
	for _, fn := range subs {
		fn(name, payload)
	}
}
