//go:build linux

package machines_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claudecode"
	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/machines"
	"github.com/baton-app/baton/backend/machines/sshtest"
	"github.com/baton-app/baton/backend/modelsim"
	"github.com/baton-app/baton/backend/session"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// rig is a model-sim on this machine and the other machine, which reaches
// it through a reverse forward of the ssh connection.
type rig struct {
	sim      *modelsim.Server
	requests *lockedBuffer // model-sim's log: one line per request
	s        *sshtest.Server
	claude   string // the pinned CLI as the other machine's user runs it
}

func newRig(t *testing.T, scenario string) *rig {
	t.Helper()
	r := &rig{requests: &lockedBuffer{}}
	sim, err := modelsim.New(modelsim.Options{Scenario: scenario, Logger: quiet, Log: r.requests})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = sim.Shutdown(ctx)
	})
	r.sim = sim
	r.s = sshtest.Start(t, sshtest.Options{Forward: strings.TrimPrefix(sim.URL(), "http://")})
	r.claude = r.s.Claude(t)
	return r
}

// target is the other machine with the CLI.
func (r *rig) target() machines.Target {
	tg := r.s.Target("other")
	tg.ClaudePath = r.claude
	return tg
}

// The doctor on the other machine passes every check, its tiny request
// answered by model-sim through the reverse forward, and leaves nothing
// in the workspace; a wrong claude path and an unknown host key fail their
// checks with a fix.
func TestDoctor(t *testing.T) {
	r := newRig(t, "happy")
	ctx := timeout(t, 3*time.Minute)
	m := open(t, r.s, r.target(), r.s.CLIEnv()...)
	rep := m.Test(ctx)
	var names []string
	for _, c := range rep.Checks {
		names = append(names, c.Name)
	}
	if !rep.OK || rep.Version != claudecodetest.Version || rep.Host != machines.HostKind ||
		!slices.Equal(names, []string{"SSH connection", "Git", "Workspace", "Claude Code CLI", "Version", "A tiny request"}) {
		t.Fatalf("the doctor: %+v", rep)
	}
	if !strings.Contains(rep.Verdict, "up to 2 workers on other") || !strings.Contains(rep.Target, sshtest.User+"@127.0.0.1") {
		t.Errorf("verdict %q, target %q", rep.Verdict, rep.Target)
	}
	if !strings.Contains(r.requests.String(), "/v1/messages") {
		t.Error("model-sim got no request: the tiny request did not come through the forward")
	}
	if left, _ := os.ReadDir(r.s.Workspace); len(left) != 0 {
		t.Errorf("the doctor left %v in the workspace", left)
	}
	var sb strings.Builder
	rep.Print(&sb)
	t.Log("\n" + sb.String())

	wrong := r.target()
	wrong.ClaudePath = r.s.Workspace + "/no/claude"
	rep = open(t, r.s, wrong, r.s.CLIEnv()...).Test(ctx)
	failed, ok := rep.Failed()
	if rep.OK || !ok || failed.Name != "Claude Code CLI" || !strings.Contains(failed.Fix, "on other") || len(rep.Checks) != 4 {
		t.Errorf("a wrong claude path: %+v", rep)
	}

	empty := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	unknown, err := machines.Open(r.target(), machines.Options{ClientOptions: machines.ClientOptions{ConfigFile: r.s.Config(empty)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unknown.Close(context.Background()) })
	rep = unknown.Test(ctx)
	if failed, ok := rep.Failed(); rep.OK || !ok || failed.Name != "SSH connection" || !strings.Contains(failed.Fix, "ssh-keyscan") || len(rep.Checks) != 1 {
		t.Errorf("an unknown host key: %+v", rep)
	}
}

// host is a Claude Code host whose CLIs run on the machine.
func host(t *testing.T, r *rig, m *machines.Machine) *claudecode.Host {
	t.Helper()
	h, err := claudecode.New(claudecode.Options{Path: r.claude, Launcher: m.Launcher, StateDir: t.TempDir(), Logger: quiet, IdleStop: -1, StopGrace: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

type entry struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	IsError bool   `json:"is_error"`
	Result  string `json:"result"`
}

func results(t *testing.T, h *claudecode.Host, id session.ID) []entry {
	t.Helper()
	b, err := h.Read(context.Background(), id, session.Cursor{})
	if err != nil {
		t.Fatal(err)
	}
	var out []entry
	for _, raw := range b.Entries {
		var e entry
		if json.Unmarshal(raw, &e) == nil && e.Type == "result" {
			out = append(out, e)
		}
	}
	return out
}

// waitTurns waits until the session has n results and no turn running.
func waitTurns(t *testing.T, h *claudecode.Host, id session.ID, n int) []entry {
	t.Helper()
	deadline := time.After(3 * time.Minute)
	for {
		info, err := h.Session(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if res := results(t, h, id); len(res) >= n && !info.TurnRunning {
			return res
		}
		select {
		case <-h.Notices():
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatalf("session %s: no %d results within 3 minutes: %+v", id, n, results(t, h, id))
		}
	}
}

const workerPrompt = "Do task_001.\nScope: docs/guide.md\nReport {\"phase\": \"progress\"} while working and {\"phase\": \"completion\"} at the end."

// One real CLI session on the other machine, in a worktree made there
// from the pushed run branch: the worker writes its notes, and its branch,
// fetched back, holds them. Closing the host then ends the CLI there, and
// so does the end of a turn cut by a lost connection, which resumes once
// the machine is back.
func TestWorkerOnTheOtherMachine(t *testing.T) {
	r := newRig(t, "happy")
	ctx := timeout(t, 5*time.Minute)
	m := open(t, r.s, r.target(), r.s.CLIEnv()...)
	local := localRepo(t, map[string]string{"README.md": "# shop\n", "docs/guide.md": "# Guide\n\nHow to shop.\n"})
	base := git(t, local, "rev-parse", "HEAD")
	repo, err := m.Repo(ctx, local)
	if err != nil {
		t.Fatal(err)
	}
	task, err := repo.StartTask(ctx, "run1", "task_001", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	h := host(t, r, m)
	id := session.ID("local___orch_run1_worker_task_001")
	if _, err := h.Start(ctx, session.StartOptions{ID: id, Cwd: task.Dir, Message: workerPrompt, PermissionMode: "acceptEdits"}); err != nil {
		t.Fatal(err)
	}
	res := waitTurns(t, h, id, 1)
	if res[0].IsError || !strings.Contains(res[0].Result, "completion") {
		t.Fatalf("the worker's result: %+v", res[0])
	}
	if _, err := os.Stat(filepath.Join(local, "docs", "task_001-notes.md")); !os.IsNotExist(err) {
		t.Fatal("the worker wrote into the local folder")
	}
	if committed, err := repo.Commit(ctx, "run1", "task_001", ""); err != nil || !committed {
		t.Fatalf("commit there: %v %v", committed, err)
	}
	tip, err := repo.Fetch(ctx, "run1", "task_001")
	if err != nil {
		t.Fatal(err)
	}
	if files := git(t, local, "diff", "--name-only", base, tip); !strings.Contains(files, "docs/task_001-notes.md") {
		t.Fatalf("the fetched branch changes %q, not the worker's notes", files)
	}
	if notes := git(t, local, "show", tip+":docs/task_001-notes.md"); !strings.Contains(notes, "task_001") {
		t.Fatalf("the notes: %q", notes)
	}
	// The session ran on the other machine, in the worktree there.
	if m, _ := filepath.Glob(filepath.Join(r.s.CLIHome, ".claude", "projects", "*", "*.jsonl")); len(m) != 1 {
		t.Fatalf("the CLI's transcripts on the other machine: %v", m)
	}

	// A worker mid-turn: closing the host ends its CLI there.
	id2 := session.ID("local___orch_run1_worker_task_002")
	task2, err := repo.StartTask(ctx, "run1", "task_002", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Start(ctx, session.StartOptions{ID: id2, Cwd: task2.Dir, Message: "Do task_002. [[sim:scenario=worker-hangs]]", PermissionMode: "acceptEdits"}); err != nil {
		t.Fatal(err)
	}
	claudes := func(p sshtest.Proc) bool { return strings.Contains(p.Args, r.claude) && p.Comm != "sh" }
	waitProcesses(t, r.s, 2, claudes) // task_001's idle CLI and task_002's
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := h.Close(cctx); err != nil {
		t.Fatal(err)
	}
	waitProcesses(t, r.s, 0, any)

	// A worker mid-turn when sshd stops: the turn ends with the lost
	// connection as its error; with sshd back, the next message resumes the
	// conversation there and finishes.
	h = host(t, r, m)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = h.Close(ctx)
	})
	if _, err := h.Start(ctx, session.StartOptions{ID: id2, Cwd: task2.Dir, Message: "Do task_002. [[sim:scenario=worker-hangs]]", PermissionMode: "acceptEdits"}); err != nil {
		t.Fatal(err)
	}
	waitProcesses(t, r.s, 1, claudes)
	r.s.Stop()
	cut := waitTurns(t, h, id2, 1)
	if last := cut[len(cut)-1]; last.Subtype != "error_during_execution" || !strings.Contains(last.Result, "is lost") {
		t.Fatalf("the cut turn: %+v", last)
	}
	t.Log(cut[len(cut)-1].Result)
	r.s.Restart()
	if err := h.Send(ctx, id2, "Go on with task_002. [[sim:scenario=happy]]"); err != nil {
		t.Fatal(err)
	}
	res = waitTurns(t, h, id2, len(cut)+1)
	if last := res[len(res)-1]; last.IsError {
		t.Fatalf("the resumed turn: %+v", last)
	}
	// The conversation there went on (no new one), and only the resumed
	// CLI runs: none of the lost session's is left.
	if m, _ := filepath.Glob(filepath.Join(r.s.CLIHome, ".claude", "projects", "*", "*.jsonl")); len(m) != 2 {
		t.Fatalf("the CLI's transcripts on the other machine: %v (the second conversation was not resumed)", m)
	}
	waitProcesses(t, r.s, 1, claudes)
}
