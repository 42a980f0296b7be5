//go:build unix

package claudecode

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/modelsim"
	"github.com/baton-app/baton/backend/session"
)

// freeAddr is a loopback address where nothing listens (for now).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// waitLink waits until the host's link satisfies cond.
func waitLink(t *testing.T, h *Host, timeout time.Duration, what string, cond func(session.LinkState) bool) session.LinkState {
	t.Helper()
	deadline := time.After(timeout)
	for {
		st := h.Link()
		if cond(st) {
			return st
		}
		select {
		case <-st.Changed:
		case <-deadline:
			t.Fatalf("%s: the link is still %+v after %s", what, h.Link(), timeout)
		}
	}
}

// A model nobody answers at, through the real CLI: its first retry takes
// the host's link down within seconds (the model only: the host's calls
// work), it stays down when the CLI gives up, comes up when the model
// answers the host's own check again, and the session then goes on.
func TestModelOutageThroughTheRealCLI(t *testing.T) {
	addr := freeAddr(t)
	r := newRig(t, "happy", func(o *Options) {
		o.Env = append(o.Env, "ANTHROPIC_BASE_URL=http://"+addr, "CLAUDE_CODE_MAX_RETRIES=2")
		o.ProbeEvery = 200 * time.Millisecond
	})
	dir := project(t)
	ctx := context.Background()
	if st := r.host.Link(); !st.Up {
		t.Fatalf("a new host's link is down: %+v", st)
	}
	id := session.ID("local___orch_run1_worker_task_001")
	start := time.Now()
	if _, err := r.host.Start(ctx, session.StartOptions{Cwd: dir, Message: "Look at this project.", ID: id}); err != nil {
		t.Fatal(err)
	}
	st := waitLink(t, r.host, 20*time.Second, "the first retry", func(st session.LinkState) bool { return !st.Up })
	t.Logf("the link went down after %s: %s", time.Since(start).Round(time.Millisecond), st.Reason)
	if !st.Model || st.Refuses() || st.Since.IsZero() || !strings.Contains(st.Reason, "the model cannot be reached") || !strings.Contains(st.Reason, "retries (attempt 1 of 2)") {
		t.Errorf("link %+v, want the model's, with why", st)
	}
	if time.Since(start) > 15*time.Second {
		t.Errorf("the outage was noticed after %s", time.Since(start))
	}
	since := st.Since
	// The CLI gives up after its two retries: the turn ends with its error,
	// and the link stays down while nothing answers.
	waitFor(t, r.host, id, time.Minute, "the CLI gives up", turnDone(1))
	res := results(entries(t, r.host, id))
	if !res[0].IsError || !strings.Contains(res[0].Result, "ECONNREFUSED") {
		t.Errorf("the turn ended with %+v", res[0])
	}
	time.Sleep(600 * time.Millisecond) // a few probes
	if st := r.host.Link(); st.Up || !st.Since.Equal(since) || !strings.Contains(st.Reason, "ECONNREFUSED") {
		t.Fatalf("after the CLI gave up, with nothing listening: %+v", st)
	}

	// The model is back at the same address: the host's check finds it.
	sim, err := modelsim.New(modelsim.Options{Addr: addr, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sim.Shutdown(context.Background()) })
	waitLink(t, r.host, 10*time.Second, "the model is back", func(st session.LinkState) bool { return st.Up })
	if err := r.host.Send(ctx, id, "Go on."); err != nil {
		t.Fatal(err)
	}
	waitFor(t, r.host, id, time.Minute, "the session goes on", turnDone(2))
	if res := results(entries(t, r.host, id)); res[1].IsError {
		t.Errorf("the second turn: %+v", res[1])
	}
	if st := r.host.Link(); !st.Up {
		t.Errorf("the link after the model answered: %+v", st)
	}
}

// A CLI that refuses to run says why on its error output and exits before
// its first event: the turn ends with that sentence as an error (asking it
// again would only repeat it), not as a turn that was cut. As root, the
// real CLI refuses bypassPermissions.
func TestRefusalOfTheRealCLIIsTheTurnsError(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the CLI refuses bypassPermissions only to root")
	}
	r := newRig(t, "happy")
	dir := project(t)
	id := session.ID("local___orch_run1_worker_task_001")
	_, err := r.host.Start(context.Background(), session.StartOptions{Cwd: dir, Message: "Look at this project.", ID: id, PermissionMode: session.ModeBypassPermissions})
	const sentence = "--dangerously-skip-permissions cannot be used with root/sudo privileges"
	if err == nil || !strings.Contains(err.Error(), sentence) {
		t.Errorf("Start: %v, want the CLI's sentence", err)
	}
	waitFor(t, r.host, id, 30*time.Second, "the refusal", turnDone(1))
	res := results(entries(t, r.host, id))
	if !res[0].IsError || !strings.HasPrefix(res[0].Result, sentence) || strings.Contains(string(res[0].raw), `"baton_cut":true`) {
		t.Errorf("the turn ended with %s", res[0].raw)
	}
}
