package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/simulator"
	"github.com/baton-app/baton/backend/store"
)

// tapHost is the adapter with a tap that notes when notices arrive and
// when each Read and Archive runs, for the breakdown of the detection
// latency. In polling mode its Notices returns nil, so the engine reads each
// session only at its poll interval, as the earlier Node.js system did; the
// adapter's own notices are then dropped.
type tapHost struct {
	*claude.Host
	rec     *recorder
	notices chan session.Notice // nil in polling mode
}

func newTapHost(ctx context.Context, h *claude.Host, rec *recorder, polling bool) *tapHost {
	t := &tapHost{Host: h, rec: rec}
	if !polling {
		t.notices = make(chan session.Notice, 64)
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case n := <-h.Notices():
				if t.notices == nil {
					continue
				}
				now := time.Now()
				rec.mu.Lock()
				rec.notices[string(n.SessionID)] = append(rec.notices[string(n.SessionID)], now)
				rec.mu.Unlock()
				select {
				case t.notices <- n:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return t
}

// Notices implements session.Host.
func (t *tapHost) Notices() <-chan session.Notice {
	if t.notices == nil {
		return nil
	}
	return t.notices
}

// Read implements session.Host.
func (t *tapHost) Read(ctx context.Context, id session.ID, c session.Cursor) (session.Batch, error) {
	from := time.Now()
	b, err := t.Host.Read(ctx, id, c)
	to := time.Now()
	t.rec.mu.Lock()
	t.rec.reads[string(id)] = span{from, to}
	t.rec.mu.Unlock()
	return b, err
}

// Archive implements session.Host.
func (t *tapHost) Archive(ctx context.Context, id session.ID) error {
	from := time.Now()
	err := t.Host.Archive(ctx, id)
	to := time.Now()
	t.rec.mu.Lock()
	t.rec.archives[string(id)] = span{from, to}
	t.rec.mu.Unlock()
	return err
}

// dagRun is one 20-task run: its wall time from confirmation to the last
// worker:completed and the critical path of agent time through its DAG.
type dagRun struct {
	Wall, Critical time.Duration
	Tasks          int
	MeanAgent      time.Duration
	// Retried counts the tasks that more than one session worked on.
	Retried int
}

func (d dagRun) Overhead() time.Duration { return d.Wall - d.Critical }

// modeResult is what one mode (push or polling) measured.
type modeResult struct {
	Mode   string
	Detect []time.Duration
	Parts  []breakdown
	Runs   []dagRun
	// Reads the entries the notices carried served, and those that went
	// to the page (CDP host).
	PushedReads, PageReads int
}

// runDAGs runs the 20-task DAG (4 layers of 5, maxWorkers 5) n times, one
// after the other, on one engine over the simulator in real Chromium.
func runDAGs(ctx context.Context, cfg config, polling bool, n int) (modeResult, error) {
	res := modeResult{Mode: "push"}
	if polling {
		res.Mode = "polling (2 s)"
	}
	dir, err := tempDir("baton-bench-dag-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	rec := newRecorder()
	host, _, err := hosts.StartSimulator(ctx, simulator.InstanceOptions{ChromePath: cfg.chrome,
		Simulator: simulator.Options{Speed: cfg.speed, Logger: quiet, OnEntry: rec.onEntry}}, claude.Options{Logger: quiet})
	if err != nil {
		return res, fmt.Errorf("start the simulator: %w", err)
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = host.Close(sctx)
	}()
	tctx, tstop := context.WithCancel(ctx)
	defer tstop()
	h := newTapHost(tctx, host, rec, polling)
	st, err := store.Open(filepath.Join(dir, "baton.db"), store.WithLogger(quiet))
	if err != nil {
		return res, err
	}
	defer st.Close()
	tmpls, err := newTemplates(filepath.Join(dir, "templates"), 5)
	if err != nil {
		return res, err
	}
	eng, err := engine.New(engine.Options{Store: st, Host: h, Templates: tmpls, Emitter: rec, Logger: quiet})
	if err != nil {
		return res, err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = eng.Shutdown(sctx)
	}()
	dctx, stop := context.WithCancel(ctx)
	defer stop()
	drv := newDriver(dctx, eng, rec)
	for i := range n {
		proj := filepath.Join(dir, fmt.Sprintf("project-%d", i))
		folders, err := makeProject(proj, 4)
		if err != nil {
			return res, err
		}
		id, err := drv.start(ctx, "bench-5", proj, func(ts []store.Task) engine.Modifications {
			return layered(ts, 5, 20, folders)
		})
		if err != nil {
			return res, err
		}
		snap, err := drv.wait(ctx, id)
		if err != nil {
			return res, err
		}
		dr, err := measureDAG(rec, snap, drv.confirmedAt(id))
		if err != nil {
			return res, err
		}
		res.Runs = append(res.Runs, dr)
	}
	rec.mu.Lock()
	res.Detect = append(res.Detect, rec.detect...)
	res.Parts = append(res.Parts, rec.parts...)
	rec.mu.Unlock()
	res.PushedReads, res.PageReads = host.Reads()
	return res, nil
}

// measureDAG computes the wall time of a finished run and the critical
// path of its agent time (prompt entry to result entry of each worker
// session, as the simulator published them; a task's is that of every
// session that worked on it, rec.sessionsOf).
func measureDAG(rec *recorder, snap engine.Snapshot, confirmed time.Time) (dagRun, error) {
	agent := map[string]time.Duration{}
	var sum time.Duration
	retried := 0
	for _, w := range snap.Workers {
		if _, ok := rec.agentTime(w.SessionID); !ok {
			return dagRun{}, fmt.Errorf("no simulator entries for session %s", w.SessionID)
		}
		sessions := rec.sessionsOf(snap.Run.ID, w)
		if len(sessions) > 1 {
			retried++
		}
		var d time.Duration
		for _, s := range sessions {
			a, _ := rec.agentTime(s)
			d += a
		}
		agent[w.TaskID] = d
		sum += d
	}
	deps := map[string][]string{}
	for _, t := range snap.Tasks {
		deps[t.ID] = t.Dependencies
	}
	memo := map[string]time.Duration{}
	var path func(id string, depth int) (time.Duration, error)
	path = func(id string, depth int) (time.Duration, error) {
		if v, ok := memo[id]; ok {
			return v, nil
		}
		if depth > len(deps) {
			return 0, errors.New("the task graph has a cycle")
		}
		var longest time.Duration
		for _, d := range deps[id] {
			v, err := path(d, depth+1)
			if err != nil {
				return 0, err
			}
			longest = max(longest, v)
		}
		memo[id] = longest + agent[id]
		return memo[id], nil
	}
	var critical time.Duration
	for id := range deps {
		v, err := path(id, 0)
		if err != nil {
			return dagRun{}, err
		}
		critical = max(critical, v)
	}
	rec.mu.Lock()
	var last time.Time
	for _, at := range rec.completed[snap.Run.ID] {
		if at.After(last) {
			last = at
		}
	}
	rec.mu.Unlock()
	if confirmed.IsZero() || last.IsZero() {
		return dagRun{}, fmt.Errorf("run %s: no confirmation or completion time recorded", snap.Run.ID)
	}
	return dagRun{Wall: last.Sub(confirmed), Critical: critical, Tasks: len(snap.Tasks),
		MeanAgent: sum / time.Duration(max(1, len(agent))), Retried: retried}, nil
}
