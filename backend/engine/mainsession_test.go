package engine

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

// isWorkerSession tells a worker's session id from the main session's (both
// are chosen by the engine).
func isWorkerSession(id session.ID) bool { return strings.Contains(string(id), "_worker_") }

// mainSessions lists the sessions of the fake host that are not workers.
func (h *fakeHost) mainSessions() []session.ID {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []session.ID
	seen := map[session.ID]bool{}
	for _, id := range h.order {
		if _, ok := h.sessions[id]; ok && !isWorkerSession(id) && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// A crash between storing the main session's id and the start's outcome
// being stored: the resume finds the session by its stored id (or starts
// it under that id when the host never got it) and never starts a second
// main session.
func TestOneMainSessionAcrossACrashAtItsStart(t *testing.T) {
	for _, started := range []bool{true, false} {
		name := "the host has the session"
		if !started {
			name = "the start never reached the host"
		}
		t.Run(name, func(t *testing.T) {
			tasks := plan(planned{"a", 5, nil})
			h := newHarness(t, testTemplate(nil), scripted(tasks, nil), true)
			id := h.create()
			var (
				mu      sync.Mutex
				atStart *store.Run
				asked   session.ID
			)
			h.host.onStart = func(o session.StartOptions) {
				if strings.Contains(string(o.ID), "_worker_") {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if atStart == nil {
					run, err := h.st.Run(context.Background(), id)
					if err != nil {
						t.Error(err)
					}
					atStart, asked = &run, o.ID
				}
			}
			if err := h.eng.Start(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			h.wait(id)
			mu.Lock()
			snap := *atStart
			mu.Unlock()
			if snap.MainSessionID == "" || session.ID(snap.MainSessionID) != asked {
				t.Fatalf("when the main session was started the store held main session %q; the start asked for %q", snap.MainSessionID, asked)
			}
			// Crash: the store is as it was when the session was started.
			h.close()
			h.host.onStart = nil
			st, err := store.Open(h.path, store.WithLogger(quiet))
			if err != nil {
				t.Fatal(err)
			}
			snap.CompletedAt = nil
			if err := st.Commit(context.Background(), id, store.Change{Run: &snap}); err != nil {
				t.Fatal(err)
			}
			_ = st.Close()
			if !started {
				h.host.mu.Lock()
				delete(h.host.sessions, asked)
				h.host.mu.Unlock()
			}
			h.open()
			if err := h.eng.RestoreRun(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			run := h.wait(id)
			if run.Status != "completed" {
				t.Fatalf("after the resume the run is %s: %s", run.Status, run.Error)
			}
			if mains := h.host.mainSessions(); len(mains) != 1 || mains[0] != asked || run.MainSessionID != string(asked) {
				t.Fatalf("main sessions %v (run says %s), want only %s", mains, run.MainSessionID, asked)
			}
		})
	}
}
