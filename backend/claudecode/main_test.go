//go:build unix

package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/modelsim"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/testsupport"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// rig is a model-sim and a Host running the pinned CLI against it, with
// its own HOME and state folder.
type rig struct {
	t     *testing.T
	sim   *modelsim.Server
	home  string
	state string
	host  *Host
	env   []string
}

func newRig(t *testing.T, scenario string, tune ...func(*Options)) *rig {
	t.Helper()
	return newLoggedRig(t, scenario, nil, tune...)
}

// newLoggedRig is newRig with model-sim's log of every request and answer
// written to log (when not nil).
func newLoggedRig(t *testing.T, scenario string, log io.Writer, tune ...func(*Options)) *rig {
	t.Helper()
	bin := claudecodetest.Binary(t)
	sim, err := modelsim.New(modelsim.Options{Scenario: scenario, Logger: quiet, Log: log})
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
	r := &rig{t: t, sim: sim, home: t.TempDir(), state: t.TempDir()}
	// A cut stream is retried once, not ten times.
	// The Go caches stay the test's own: "go test", which the agent runs,
	// would otherwise build the standard library again under the new HOME.
	r.env = claudecodetest.Env(r.home, sim.URL(), append(goEnv(t), "CLAUDE_CODE_MAX_RETRIES=1")...)
	opts := Options{Path: bin, BaseEnv: r.env, StateDir: r.state, Logger: quiet, StopGrace: 2 * time.Second}
	for _, f := range tune {
		f(&opts)
	}
	r.host = r.open(opts)
	return r
}

var (
	goEnvOnce sync.Once
	goEnvVars []string
)

// goEnv is GOCACHE, GOMODCACHE and GOPATH as the test's go command sees
// them.
func goEnv(t *testing.T) []string {
	goEnvOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
		if err != nil {
			return
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		for i, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
			if i < len(lines) && lines[i] != "" {
				goEnvVars = append(goEnvVars, k+"="+lines[i])
			}
		}
	})
	if len(goEnvVars) != 3 {
		t.Fatal("go env GOCACHE GOMODCACHE GOPATH did not answer")
	}
	// Clipped: callers append to it, some at once.
	return slices.Clip(goEnvVars)
}

// open makes a Host on the rig's state folder; it is closed (and its
// children checked gone) at the end of the test.
func (r *rig) open(opts Options) *Host {
	r.t.Helper()
	h, err := New(opts)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { closeAndCheck(r.t, h) })
	return h
}

// closeAndCheck closes h and fails when any child (or a process of its
// group) is still alive.
func closeAndCheck(t *testing.T, h *Host) {
	t.Helper()
	pids := h.Running()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	for _, pid := range pids {
		if left := groupAlive(pid); len(left) > 0 {
			t.Errorf("after Close, processes of claude's group %d are alive: %v", pid, left)
		}
	}
}

// groupAlive lists the live processes (from /proc) whose id or process
// group is pgid.
func groupAlive(pgid int) []int {
	var out []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...
		rest := stat[bytes.LastIndexByte(stat, ')')+1:]
		f := strings.Fields(string(rest))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if pg, _ := strconv.Atoi(f[2]); pg == pgid || pid == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// project makes a small Go project to work in.
func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":           "module example.com/shop\n\ngo 1.22\n",
		"cart/cart.go":     "// Package cart adds up a cart.\npackage cart\n\n// Total sums the prices.\nfunc Total(prices []int) int {\n\tn := 0\n\tfor _, p := range prices {\n\t\tn += p\n\t}\n\treturn n\n}\n",
		"README.md":        "# shop\n\nA tiny shop.\n",
		"stock/stock.go":   "package stock\n\n// Count is the number of items in stock.\nfunc Count(items map[string]int) int { return len(items) }\n",
		"cmd/shop/main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"shop\") }\n",
	}
	testsupport.WriteTree(t, dir, files)
	return dir
}

// waitFor waits, reading only the host's notices, until cond holds for
// session id (checked after each notice about it). It returns how long
// that took.
func waitFor(t *testing.T, h *Host, id session.ID, timeout time.Duration, what string, cond func(session.Info, []entry) bool) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := time.After(timeout)
	check := func() bool {
		info, err := h.Session(context.Background(), id)
		if err != nil {
			t.Fatalf("Session(%s): %v", id, err)
		}
		return cond(info, entries(t, h, id))
	}
	if check() {
		return time.Since(start)
	}
	for {
		select {
		case n := <-h.Notices():
			if n.SessionID == id && check() {
				return time.Since(start)
			}
		case <-deadline:
			info, _ := h.Session(context.Background(), id)
			var kinds []string
			for _, e := range entries(t, h, id) {
				kinds = append(kinds, e.Type+"/"+e.Subtype)
			}
			t.Fatalf("%s: not within %s; session %+v; entries %v", what, timeout, info, kinds)
		}
	}
}

// entry is the part of a transcript entry the tests look at.
type entry struct {
	Type    string  `json:"type"`
	Subtype string  `json:"subtype"`
	UUID    string  `json:"uuid"`
	IsError bool    `json:"is_error"`
	Result  string  `json:"result"`
	Cost    float64 `json:"total_cost_usd"`
	Message *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	raw json.RawMessage
}

func entries(t *testing.T, h *Host, id session.ID) []entry {
	t.Helper()
	b, err := h.Read(context.Background(), id, session.Cursor{})
	if err != nil {
		t.Fatalf("Read(%s): %v", id, err)
	}
	var out []entry
	for _, raw := range b.Entries {
		var e entry
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatalf("entry is not JSON: %s", raw)
		}
		e.raw = raw
		out = append(out, e)
	}
	return out
}

func results(es []entry) []entry {
	var out []entry
	for _, e := range es {
		if e.Type == "result" {
			out = append(out, e)
		}
	}
	return out
}

func turnDone(n int) func(session.Info, []entry) bool {
	return func(info session.Info, es []entry) bool { return len(results(es)) >= n && !info.TurnRunning }
}

func pendingTool(tool string) func(session.Info, []entry) bool {
	return func(info session.Info, _ []entry) bool {
		return len(info.Pending) > 0 && info.Pending[0].ToolName == tool
	}
}
