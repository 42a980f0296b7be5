//go:build unix

package claudecode

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/session"
)

// waitGone waits until no process of pid's group is alive.
func waitGone(t *testing.T, pid int, within time.Duration, what string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for len(groupAlive(pid)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s: claude %d still alive after %s: %v", what, pid, within, groupAlive(pid))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestWarmStart warms a worker's session, then starts it: the message goes
// to the very child Warm started, which runs the turn in the session's
// folder with its options; the started session is no longer warm.
func TestWarmStart(t *testing.T) {
	var log lockedBuffer
	r := newLoggedRig(t, "happy", &log)
	dir := project(t)
	ctx := context.Background()
	id := session.ID("local___orch_run1_worker_task_001")
	opts := session.StartOptions{Cwd: dir, Title: "worker", ID: id, PermissionMode: "acceptEdits", Model: "sonnet", SystemPrompt: "You are worker WARMSYSTEM3."}
	warm, err := r.host.Warm(ctx, opts)
	if err != nil || warm != id {
		t.Fatalf("Warm = %v, %v", warm, err)
	}
	if again, err := r.host.Warm(ctx, opts); err != nil || again != id {
		t.Errorf("Warm of a warm session = %v, %v; want %s", again, err, id)
	}
	pids := r.host.Running()
	if len(pids) != 1 || r.host.Warming() != 1 {
		t.Fatalf("after Warm: children %v, warming %d", pids, r.host.Warming())
	}
	if _, err := r.host.Session(ctx, id); err == nil {
		t.Error("a warm session is a session before its Start")
	}
	if l, _ := r.host.List(ctx, true); len(l) != 0 {
		t.Errorf("List shows warm sessions: %+v", l)
	}
	// The CLI answers the initialize request Warm sent: it has set its
	// session up and waits for the message.
	for deadline := time.Now().Add(30 * time.Second); !warmReady(r.host, id); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the warm CLI did not answer its initialize request within 30 s")
		}
	}
	opts.Message = "Look at this project."
	start := time.Now()
	if _, err := r.host.Start(ctx, opts); err != nil {
		t.Fatal(err)
	}
	t.Logf("Start of a warm session returned in %s", time.Since(start))
	if got := r.host.PID(id); got != pids[0] {
		t.Errorf("the session runs in child %d, want the warm child %d", got, pids[0])
	}
	if r.host.Warming() != 0 {
		t.Errorf("warming %d after Start", r.host.Warming())
	}
	if w, c := r.host.Starts(); w != 1 || c != 0 || r.host.ReadyStarts() != 1 {
		t.Errorf("starts: %d warm (%d ready), %d cold; want the one warm and ready", w, r.host.ReadyStarts(), c)
	}
	waitFor(t, r.host, id, time.Minute, "first turn", turnDone(1))
	es := entries(t, r.host, id)
	if es[0].Type != "user" || !strings.Contains(string(es[0].raw), "Look at this project.") {
		t.Errorf("first entry is not the prompt: %s", es[0].raw)
	}
	inits := 0
	for _, e := range es {
		if e.Type == "system" && e.Subtype == "init" {
			inits++
			if !strings.Contains(string(e.raw), `"cwd":"`+dir+`"`) || !strings.Contains(string(e.raw), `"permissionMode":"acceptEdits"`) {
				t.Errorf("init event: %s", e.raw)
			}
		}
	}
	if res := results(es); inits != 1 || len(res) != 1 || res[0].IsError {
		t.Errorf("init events %d, results %+v", inits, res)
	}
	// Initialized before its message, the CLI still sends the model the
	// system prompt it was started with, and the message in the messages.
	asked := 0
	for _, req := range modelRequests(t, log.String()) {
		if strings.Contains(req.Messages, "Look at this project.") {
			asked++
			if !strings.Contains(req.System, "WARMSYSTEM3") {
				t.Errorf("a request of the warm session lacks its system prompt: %.300s", req.System)
			}
		}
	}
	if asked == 0 {
		t.Error("model-sim saw no request with the message")
	}
	info, err := r.host.Session(ctx, id)
	if err != nil || info.Title != "worker" || info.Cwd != dir {
		t.Errorf("Session: %+v, %v", info, err)
	}
	if _, err := os.Stat(filepath.Join(r.state, uuidFor(id)+".json")); err != nil {
		t.Errorf("the started session has no metadata: %v", err)
	}
	// A started session is not warmed again.
	if warm, err := r.host.Warm(ctx, opts); err != nil || warm != "" {
		t.Errorf("Warm of a started session = %q, %v; want none", warm, err)
	}
}

// TestWarmNotTaken: a warm child whose Start asks for other options ends,
// and a new child runs the session; Cool, the WarmFor bound and MaxWarm end
// or refuse the others, and they leave nothing in the state folder.
func TestWarmNotTaken(t *testing.T) {
	r := newRig(t, "happy", func(o *Options) { o.MaxWarm = 2; o.WarmFor = 2 * time.Second })
	dir := project(t)
	ctx := context.Background()
	opts := func(id string) session.StartOptions {
		return session.StartOptions{Cwd: dir, ID: session.ID("local___orch_run1_worker_" + id), PermissionMode: "acceptEdits"}
	}
	a := opts("a")
	if warm, err := r.host.Warm(ctx, a); err != nil || warm != a.ID {
		t.Fatalf("Warm a = %v, %v", warm, err)
	}
	warmA := r.host.Running()[0]
	a.PermissionMode = "plan"
	a.Message = "Look at this project."
	if _, err := r.host.Start(ctx, a); err != nil {
		t.Fatal(err)
	}
	if got := r.host.PID(a.ID); got == warmA || got == 0 {
		t.Errorf("the session with other options runs in child %d (the warm one was %d)", got, warmA)
	}
	waitGone(t, warmA, 10*time.Second, "a warm child that did not fit its Start")
	waitFor(t, r.host, a.ID, time.Minute, "the turn", turnDone(1))

	b, c, d := opts("b"), opts("c"), opts("d")
	for _, o := range []session.StartOptions{b, c} {
		if warm, err := r.host.Warm(ctx, o); err != nil || warm != o.ID {
			t.Fatalf("Warm %s = %v, %v", o.ID, warm, err)
		}
	}
	if warm, err := r.host.Warm(ctx, d); err != nil || warm != "" {
		t.Errorf("Warm beyond MaxWarm = %q, %v; want none", warm, err)
	}
	before := r.host.Running()
	r.host.Cool(b.ID)
	if r.host.Warming() != 1 {
		t.Errorf("warming %d after Cool, want 1", r.host.Warming())
	}
	// c ends by itself after WarmFor.
	for _, pid := range before {
		if pid != r.host.PID(a.ID) {
			waitGone(t, pid, 15*time.Second, "a cooled or expired warm child")
		}
	}
	if r.host.Warming() != 0 {
		t.Errorf("warming %d after WarmFor", r.host.Warming())
	}
	files, _ := filepath.Glob(filepath.Join(r.state, "*"))
	for _, f := range files {
		if !strings.HasPrefix(filepath.Base(f), uuidFor(a.ID)) {
			t.Errorf("a warm session left %s in the state folder", f)
		}
	}
	if _, err := r.host.Session(ctx, b.ID); err == nil {
		t.Error("a cooled warm session is a session")
	}
}

// TestWarmWithoutID: a child warmed before its session's id is known goes
// to the first new session of its shape, which keeps the child's
// conversation: after a restart of the host the session is read back and
// resumed from it.
func TestWarmWithoutID(t *testing.T) {
	r := newRig(t, "happy")
	dir := project(t)
	ctx := context.Background()
	shape := session.StartOptions{Cwd: dir, PermissionMode: "acceptEdits", SystemPrompt: "You are a worker."}
	key, err := r.host.Warm(ctx, shape)
	if err != nil || key == "" {
		t.Fatalf("Warm without an id = %q, %v", key, err)
	}
	warmPID := r.host.Running()[0]
	other := shape
	other.ID, other.Message, other.PermissionMode = "local___orch_run1_worker_x", "Look at this project.", "plan"
	if _, err := r.host.Start(ctx, other); err != nil {
		t.Fatal(err)
	}
	if r.host.PID(other.ID) == warmPID {
		t.Error("a session of another shape took the warm child")
	}
	// Another model is no obstacle: it is set before the message.
	id := session.ID("local___orch_run1_worker_y")
	opts := shape
	opts.ID, opts.Message, opts.Model = id, "Look at this project.", "haiku"
	if _, err := r.host.Start(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if got := r.host.PID(id); got != warmPID {
		t.Fatalf("the session runs in child %d, want the warm child %d", got, warmPID)
	}
	waitFor(t, r.host, id, time.Minute, "first turn", turnDone(1))
	waitFor(t, r.host, other.ID, time.Minute, "the other's turn", turnDone(1))
	es := entries(t, r.host, id)
	if es[0].Type != "user" {
		t.Errorf("the control response is in the transcript before the prompt: %s", es[0].raw)
	}
	for _, e := range es {
		if e.Type == "system" && e.Subtype == "init" && !strings.Contains(string(e.raw), "haiku") {
			t.Errorf("the warm child runs another model than the session's: %s", e.raw)
		}
	}
	r.host.Cool(key) // taken: nothing to end
	if r.host.PID(id) != warmPID {
		t.Error("Cool of a taken warm key ended the session's child")
	}
	closeAndCheck(t, r.host)

	again := r.open(Options{Path: claudecodetest.Binary(t), BaseEnv: r.env, StateDir: r.state, Logger: quiet, StopGrace: 2 * time.Second})
	before := entries(t, again, id)
	if len(results(before)) != 1 {
		t.Fatalf("after a restart the session reads %d results", len(results(before)))
	}
	if err := again.Send(ctx, id, "And now a second look."); err != nil {
		t.Fatal(err)
	}
	waitFor(t, again, id, time.Minute, "second turn", turnDone(2))
	// The second child resumed the warm child's conversation (--resume
	// of its UUID, which is not the one uuidFor gives the id).
	var convs []string
	for _, e := range entries(t, again, id) {
		if e.Type == "system" && e.Subtype == "init" {
			var ev struct {
				SessionID string `json:"session_id"`
			}
			_ = json.Unmarshal(e.raw, &ev)
			convs = append(convs, ev.SessionID)
		}
	}
	if len(convs) != 2 || convs[0] != convs[1] || convs[0] == uuidFor(id) || !strings.HasSuffix(string(key), convs[0]) {
		t.Errorf("conversations of the two children %v (warm key %s, uuidFor %s)", convs, key, uuidFor(id))
	}
	if lost := results(entries(t, again, id)); lost[1].IsError {
		t.Errorf("the resumed turn failed: %s", lost[1].raw)
	}
}

// TestWarmAgain: Warm with the key it chose keeps that child while it is
// warm, and starts another under a new key once it ended or a Start took
// it (never the taken session's conversation again).
func TestWarmAgain(t *testing.T) {
	r := newRig(t, "happy")
	dir := project(t)
	ctx := context.Background()
	shape := session.StartOptions{Cwd: dir, PermissionMode: "acceptEdits", SystemPrompt: "You are a worker."}
	key, err := r.host.Warm(ctx, shape)
	if err != nil || key == "" {
		t.Fatalf("Warm without an id = %q, %v", key, err)
	}
	first := r.host.Running()
	again := shape
	again.ID = key
	if k, err := r.host.Warm(ctx, again); err != nil || k != key || !slices.Equal(r.host.Running(), first) {
		t.Fatalf("Warm of a warm key = %q, %v, children %v; want %s in child %v", k, err, r.host.Running(), key, first)
	}
	r.host.Cool(key)
	waitGone(t, first[0], 10*time.Second, "cooled")
	k2, err := r.host.Warm(ctx, again)
	if err != nil || k2 == "" || k2 == key || r.host.Warming() != 1 {
		t.Fatalf("Warm of a cooled key = %q, %v (warming %d); want a new key", k2, err, r.host.Warming())
	}
	id := session.ID("local___orch_run1_worker_a")
	opts := shape
	opts.ID, opts.Message = id, "Look at this project."
	if _, err := r.host.Start(ctx, opts); err != nil {
		t.Fatal(err)
	}
	taken := r.host.PID(id)
	again.ID = k2
	k3, err := r.host.Warm(ctx, again)
	if err != nil || k3 == "" || k3 == k2 || r.host.Warming() != 1 {
		t.Fatalf("Warm of a taken key = %q, %v (warming %d); want a new key", k3, err, r.host.Warming())
	}
	if pids := r.host.Running(); len(pids) != 2 || !slices.Contains(pids, taken) {
		t.Errorf("children %v: want the session's %d and a new warm one", pids, taken)
	}
	waitFor(t, r.host, id, time.Minute, "first turn", turnDone(1))
}

// TestStartUndone: a Start that cannot keep its session (the state folder
// takes no file) fails, knows no session afterwards and ends the warm child
// it took; once the folder takes files again, a Start of the same id runs.
func TestStartUndone(t *testing.T) {
	r := newRig(t, "happy")
	dir := project(t)
	ctx := context.Background()
	id := session.ID("local___orch_run1_worker_undone")
	opts := session.StartOptions{Cwd: dir, ID: id, PermissionMode: "acceptEdits"}
	if warm, err := r.host.Warm(ctx, opts); err != nil || warm != id {
		t.Fatalf("Warm = %q, %v", warm, err)
	}
	warmPID := r.host.Running()[0]
	if out, err := exec.Command("chattr", "+i", r.state).CombinedOutput(); err != nil {
		t.Fatalf("make the state folder immutable: %v: %s", err, out)
	}
	immutable := true
	unlock := func() {
		if immutable {
			immutable = false
			if out, err := exec.Command("chattr", "-i", r.state).CombinedOutput(); err != nil {
				t.Errorf("chattr -i: %v: %s", err, out)
			}
		}
	}
	t.Cleanup(unlock)
	opts.Message = "Look at this project."
	if _, err := r.host.Start(ctx, opts); err == nil {
		t.Fatal("Start succeeded in a state folder that takes no file")
	}
	if _, err := r.host.Session(ctx, id); !errors.Is(err, ErrNoSession) {
		t.Errorf("after the failed Start, Session = %v; want ErrNoSession", err)
	}
	waitGone(t, warmPID, 10*time.Second, "the warm child of a failed Start")
	unlock()
	if _, err := r.host.Start(ctx, opts); err != nil {
		t.Fatal(err)
	}
	waitFor(t, r.host, id, time.Minute, "first turn", turnDone(1))
}

// memLauncher is Local with the memory figures a test chooses.
type memLauncher struct {
	Local
	free int64
	each int64
}

func (m memLauncher) Available() (int64, string, error) { return m.free, "test", nil }
func (m memLauncher) Footprint(int) (int64, error)      { return m.each, nil }

// TestRoom: the room says how many CLIs fit in what is free beside the
// margin, counts what live children may still grow, and keeps Warm from
// taking the last place.
func TestRoom(t *testing.T) {
	const mib = 1 << 20
	r := newRig(t, "happy", func(o *Options) {
		o.Launcher = memLauncher{free: 1000 * mib, each: 100 * mib}
		o.Footprint = 300 * mib
		o.MemoryMargin = 100 * mib
	})
	room := r.host.Room()
	if room.Free != 1000*mib || room.Each != 300*mib || room.Margin != 100*mib || room.Fits() != 3 || room.FreeMB() != 1000 {
		t.Fatalf("Room with no child = %+v (fits %d)", room, room.Fits())
	}
	ctx := context.Background()
	dir := project(t)
	// One warm child of 100 MiB may grow to the estimate: 200 MiB held
	// back for it.
	if warm, err := r.host.Warm(ctx, session.StartOptions{Cwd: dir, ID: "local___orch_run1_worker_a"}); err != nil || warm == "" {
		t.Fatalf("Warm = %v, %v", warm, err)
	}
	time.Sleep(roomEvery)
	room = r.host.Room()
	if room.Free != 800*mib || room.Fits() != 2 {
		t.Errorf("Room with a warm child = %+v (fits %d), want 800 MiB free", room, room.Fits())
	}
	// A started session's child sets the estimate: its peak, 100 MiB,
	// but never below half the default.
	if _, err := r.host.Start(ctx, session.StartOptions{Cwd: dir, ID: "local___orch_run1_worker_a", Message: "Look at this project."}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(roomEvery)
	room = r.host.Room()
	if room.Each != 150*mib || room.Free != 950*mib {
		t.Errorf("Room after a child was measured = %+v, want 150 MiB each, 950 MiB free", room)
	}

	tight := newRig(t, "happy", func(o *Options) {
		o.Launcher = memLauncher{free: 700 * mib, each: 100 * mib}
		o.Footprint = 300 * mib
		o.MemoryMargin = 100 * mib
	})
	if f := tight.host.Room().Fits(); f != 2 {
		t.Fatalf("fits %d, want 2", f)
	}
	if warm, err := tight.host.Warm(ctx, session.StartOptions{Cwd: dir, ID: "local___orch_run1_worker_b"}); err != nil || warm == "" {
		t.Fatalf("Warm with room for two = %v, %v", warm, err)
	}
	time.Sleep(roomEvery)
	if warm, err := tight.host.Warm(ctx, session.StartOptions{Cwd: dir, ID: "local___orch_run1_worker_c"}); err != nil || warm != "" {
		t.Errorf("Warm with room for one = %v, %v; want false", warm, err)
	}
	if n := len(tight.host.Running()); n != 1 {
		t.Errorf("%d children, want the one warm child", n)
	}
}

// TestRoomOfThisMachine: the Local launcher reads this machine's memory.
func TestRoomOfThisMachine(t *testing.T) {
	r := newRig(t, "happy")
	room := r.host.Room()
	if room.Free <= 0 || room.Each != 300<<20 || room.Margin != 256<<20 {
		t.Errorf("Room = %+v", room)
	}
	if !slices.Equal(r.host.Running(), nil) {
		t.Errorf("children: %v", r.host.Running())
	}
}

// TestWarmBounds: by default warm children are bounded in number and an
// idle one ends within a minute (TestWarmNotTaken sees the bound end one).
func TestWarmBounds(t *testing.T) {
	r := newRig(t, "happy")
	if o := r.host.opts; o.MaxWarm <= 0 || o.WarmFor <= 0 || o.WarmFor > time.Minute {
		t.Errorf("MaxWarm %d, WarmFor %s: want a bound and at most a minute", o.MaxWarm, o.WarmFor)
	}
}

// warmReady reports whether the warm child of id answered its initialize
// request.
func warmReady(h *Host, id session.ID) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	w := h.warm[id]
	return w != nil && w.p.ready.Load()
}
