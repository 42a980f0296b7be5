package main

import (
	"context"
	"sync"

	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// EventOpenRun asks the frontend to open a run (a notification was clicked).
const EventOpenRun = "run:open"

// EventOpenInbox asks the frontend to open the Inbox (a notification about
// what waits in several runs was clicked).
const EventOpenInbox = "inbox:open"

// eventBridge forwards backend events to the frontend with EventsEmit. The
// backend services are built before Wails gives us its context; events sent
// before that (nobody is listening yet) are dropped.
type eventBridge struct {
	mu  sync.RWMutex
	ctx context.Context
}

func (b *eventBridge) attach(ctx context.Context) {
	b.mu.Lock()
	b.ctx = ctx
	b.mu.Unlock()
}

// Emit sends one event named domain:what.
func (b *eventBridge) Emit(name string, payload any) {
	b.mu.RLock()
	ctx := b.ctx
	b.mu.RUnlock()
	if ctx == nil {
		return
	}
	wailsruntime.EventsEmit(ctx, name, payload)
}

// Show brings the window to the front.
func (b *eventBridge) Show() {
	b.mu.RLock()
	ctx := b.ctx
	b.mu.RUnlock()
	if ctx == nil {
		return
	}
	wailsruntime.WindowShow(ctx)
	wailsruntime.WindowUnminimise(ctx)
}
