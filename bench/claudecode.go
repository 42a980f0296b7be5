package main

// The Claude Code CLI host's rows of the report: the same engine with
// backend/claudecode as its host, every session a real child process of the
// pinned CLI (tools/claude-code) whose model is an in-process model-sim
// (backend/modelsim). It measures
//
//   - completion detection: from the host reading a worker's result event
//     off the CLI's stdout (its result notice) to worker:completed;
//   - scheduling overhead on the same 20-task DAG as the CDP host;
//   - with 20 CLI workers at once, in an engine subprocess (this program
//     re-executed with -child-cli), Baton's own CPU and peak RSS (its
//     getrusage, which leaves out its children) and the CLI processes'
//     summed RSS, PSS and CPU from /proc, sampled by the parent.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/claudecode"
	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/modelsim"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
)

// workerPromptMark is in every worker's first prompt (the templates' worker
// prompt heading) and in no main session's: model-sim's rule for the slow
// workers matches it.
const workerPromptMark = "## Your task:"

// cliResult is what the CLI host measured.
type cliResult struct {
	Version string
	DAG     modeResult
	// StartTimes are the host's Start calls of the DAG's workers: the
	// child started, the prompt written, its first event read.
	StartTimes []time.Duration
	// Chains split each run's wall time along the chain of tasks that
	// set it (chain.go).
	Chains []chainSplit
	// WarmStarts and ColdStarts count the DAG runs' new sessions that met
	// a warm CLI and those that started one (the main sessions among them);
	// ReadyStarts the warm ones whose CLI had answered its initialize
	// request.
	WarmStarts, ColdStarts, ReadyStarts int
	Workers                             cliWorkersResult
	// Memory is the memory cap's row (memory.go); nil when left out.
	Memory *memResult
}

// cliChild is what the -child-cli engine subprocess reports on stdout.
type cliChild struct {
	Workers  int             `json:"workers"`
	Wall     time.Duration   `json:"wall"`
	CPU      time.Duration   `json:"cpu"`
	MaxRSS   int64           `json:"maxRss"`
	Peak     int             `json:"peakRunning"`
	Samples  []cpuSample     `json:"samples"`
	Detect   []time.Duration `json:"detect"`
	Problems []string        `json:"problems,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// cliWorkersResult is the 20-worker run as the parent saw it.
type cliWorkersResult struct {
	Child                cliChild
	WindowFrom, WindowTo time.Time
	GoSteady, GoAll      float64
	// The CLI processes (the engine subprocess's descendants): peak
	// count, peak summed RSS and PSS, CPU in % of one core while all
	// workers ran.
	CLIProcs              int
	CLIPeakRSS, CLIPeakPS int64
	CLISteady             float64
	Load                  string
}

// cliTap is the Claude Code host with a tap: the time its Start calls
// return (the session's first event) and the time of each result notice
// (the result event read off the CLI's stdout) go to the recorder as the
// session's first and last entries, so the recorder's detection and agent
// times work as with the simulator.
type cliTap struct {
	*claudecode.Host
	rec     *recorder
	notices chan session.Notice

	mu     sync.Mutex
	starts []time.Duration
	called map[string]time.Time // each session's Start call
}

func newCLITap(ctx context.Context, h *claudecode.Host, rec *recorder) *cliTap {
	t := &cliTap{Host: h, rec: rec, notices: make(chan session.Notice, 256), called: map[string]time.Time{}}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case n := <-h.Notices():
				if n.Kind == session.NoticeResult {
					rec.onEntry(string(n.SessionID), time.Now())
				}
				select {
				case t.notices <- n:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	// Every permission prompt is allowed once, as a user would (the
	// bench measures the host, not the prompts).
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			pending, _ := h.Pending(ctx)
			for _, p := range pending {
				_ = h.RespondPermission(ctx, p.RequestID, session.AllowOnce, nil)
			}
		}
	}()
	return t
}

// Notices implements session.Host.
func (t *cliTap) Notices() <-chan session.Notice { return t.notices }

// Start implements session.Host.
func (t *cliTap) Start(ctx context.Context, opts session.StartOptions) (session.ID, error) {
	from := time.Now()
	id, err := t.Host.Start(ctx, opts)
	now := time.Now()
	if err == nil {
		t.rec.onEntry(string(id), now)
		t.mu.Lock()
		t.called[string(id)] = from
		t.starts = append(t.starts, now.Sub(from))
		t.mu.Unlock()
	}
	return id, err
}

// cliSetup is a model-sim and the environment of CLIs that use it.
type cliSetup struct {
	sim  *modelsim.Server
	env  []string
	home string
}

func startModelSim(slowWorkers bool) (*cliSetup, error) {
	sim, err := modelsim.New(modelsim.Options{Logger: quiet})
	if err != nil {
		return nil, err
	}
	if slowWorkers {
		if err := sim.SetScenario(workerPromptMark, "slow"); err != nil {
			return nil, err
		}
	}
	if err := sim.Start(); err != nil {
		return nil, err
	}
	home, err := tempDir("baton-bench-cli-home-")
	if err != nil {
		return nil, err
	}
	return &cliSetup{sim: sim, home: home, env: claudecodetest.Env(home, sim.URL(), "CLAUDE_CODE_MAX_RETRIES=1")}, nil
}

func (s *cliSetup) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.sim.Shutdown(ctx)
	_ = os.RemoveAll(s.home)
}

// measureCLIDAG measures the CLI host's timing rows: the 20-task DAG runs.
func measureCLIDAG(ctx context.Context, cfg config, step func(string, ...any)) (*cliResult, error) {
	if _, err := os.Stat(cfg.claude); err != nil {
		return nil, fmt.Errorf("the pinned Claude Code CLI is needed at %s (run make test-deps, or pass -claude, or -cli=false to leave its rows out)", cfg.claude)
	}
	res := &cliResult{}
	if out, err := exec.CommandContext(ctx, cfg.claude, "--version").Output(); err == nil {
		res.Version = strings.TrimSpace(string(out))
	}
	step("Claude Code CLI: 20-task DAG, %d runs", cfg.cliRuns)
	if err := runCLIDAGs(ctx, cfg, res); err != nil {
		return nil, fmt.Errorf("CLI DAG runs: %w", err)
	}
	return res, nil
}

// measureCLILoad measures the rest of the CLI host into res: 20 workers at
// once in an engine subprocess, and the memory cap's row.
func measureCLILoad(ctx context.Context, cfg config, res *cliResult, step func(string, ...any)) error {
	var err error
	if cfg.cliWorkers > 0 {
		step("Claude Code CLI: %d workers at once in an engine subprocess", cfg.cliWorkers)
		if res.Workers, err = runCLIWorkers(ctx, cfg); err != nil {
			return fmt.Errorf("CLI workers: %w", err)
		}
	}
	if cfg.cliMemWorkers > 0 {
		step("Claude Code CLI: %d workers requested in a %d MiB memory cgroup", cfg.cliMemWorkers, cfg.cliMemLimit)
		m, err := runCLIMemory(ctx, cfg, cfg.cliMemWorkers, cfg.cliMemLimit<<20)
		if err != nil {
			return fmt.Errorf("CLI memory cap: %w", err)
		}
		res.Memory = &m
	}
	return nil
}

// runCLIDAGs runs the 20-task DAG (4 layers of 5, maxWorkers 5) on the
// CLI host, cfg.cliRuns times, one after the other.
func runCLIDAGs(ctx context.Context, cfg config, out *cliResult) error {
	res := modeResult{Mode: "Claude Code CLI, push"}
	setup, err := startModelSim(false)
	if err != nil {
		return err
	}
	defer setup.close()
	dir, err := tempDir("baton-bench-cli-dag-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	host, err := claudecode.New(claudecode.Options{Path: cfg.claude, BaseEnv: setup.env, StateDir: filepath.Join(dir, "claude-code"), Logger: quiet})
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = host.Close(sctx)
	}()
	rec := newRecorder()
	tctx, tstop := context.WithCancel(ctx)
	defer tstop()
	h := newCLITap(tctx, host, rec)
	st, err := store.Open(filepath.Join(dir, "baton.db"), store.WithLogger(quiet))
	if err != nil {
		return err
	}
	defer st.Close()
	tmpls, err := newTemplates(filepath.Join(dir, "templates"), 5)
	if err != nil {
		return err
	}
	eng, err := engine.New(engine.Options{Store: st, Host: h, Templates: tmpls, Emitter: rec, Logger: quiet})
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = eng.Shutdown(sctx)
	}()
	dctx, stop := context.WithCancel(ctx)
	defer stop()
	drv := newDriver(dctx, eng, rec)
	for i := range cfg.cliRuns {
		proj := filepath.Join(dir, fmt.Sprintf("project-%d", i))
		folders, err := makeProject(proj, 4)
		if err != nil {
			return err
		}
		id, err := drv.start(ctx, "bench-5", proj, func(ts []store.Task) engine.Modifications {
			return layered(ts, 5, 20, folders)
		})
		if err != nil {
			return err
		}
		snap, err := drv.wait(ctx, id)
		if err != nil {
			return err
		}
		dr, err := measureDAG(rec, snap, drv.confirmedAt(id))
		if err != nil {
			return err
		}
		res.Runs = append(res.Runs, dr)
		h.mu.Lock()
		ch, err := splitChain(rec, snap, drv.confirmedAt(id), h.called)
		h.mu.Unlock()
		if err != nil {
			return err
		}
		out.Chains = append(out.Chains, ch)
	}
	rec.mu.Lock()
	res.Detect = append(res.Detect, rec.detect...)
	rec.mu.Unlock()
	h.mu.Lock()
	out.DAG, out.StartTimes = res, h.starts
	h.mu.Unlock()
	out.WarmStarts, out.ColdStarts = host.Starts()
	out.ReadyStarts = host.ReadyStarts()
	return nil
}

// runCLIWorkers starts a model-sim whose workers play the slow scenario (so
// all of them run at once for several seconds), re-executes this program
// as the engine subprocess with the CLI host and samples the CLI processes
// (the subprocess's descendants) meanwhile.
func runCLIWorkers(ctx context.Context, cfg config) (cliWorkersResult, error) {
	var out cliWorkersResult
	setup, err := startModelSim(true)
	if err != nil {
		return out, err
	}
	defer setup.close()
	exe, err := os.Executable()
	if err != nil {
		return out, err
	}
	cmd := exec.CommandContext(ctx, exe, "-child-cli", "-n", fmt.Sprint(cfg.cliWorkers), "-claude", cfg.claude, "-base-url", setup.sim.URL(), "-cli-home", setup.home)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return out, err
	}
	var samples []cliSample
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	var werr error
loop:
	for {
		samples = append(samples, sampleCLI(cmd.Process.Pid))
		select {
		case werr = <-done:
			break loop
		case <-t.C:
		}
	}
	out.Load = loadAvg()
	if err := json.Unmarshal(stdout.Bytes(), &out.Child); err != nil {
		return out, fmt.Errorf("engine subprocess for %d CLI workers: %v: %s", cfg.cliWorkers, werr, stderr.String())
	}
	if out.Child.Error != "" || werr != nil {
		return out, fmt.Errorf("engine subprocess for %d CLI workers: %v %s: %s", cfg.cliWorkers, werr, out.Child.Error, stderr.String())
	}
	c := out.Child
	out.GoAll = pct(c.CPU, c.Wall)
	i0, i1 := allRunning(c.Samples, c.Workers)
	if i0 >= 0 && i1 > i0 {
		a, b := c.Samples[i0], c.Samples[i1]
		out.WindowFrom, out.WindowTo = a.At, b.At
		out.GoSteady = pct(b.CPU-a.CPU, b.At.Sub(a.At))
	}
	a, b := -1, -1
	for i, s := range samples {
		out.CLIProcs = max(out.CLIProcs, s.procs)
		out.CLIPeakRSS = max(out.CLIPeakRSS, s.rss)
		out.CLIPeakPS = max(out.CLIPeakPS, s.pss)
		if !out.WindowFrom.IsZero() && !s.at.Before(out.WindowFrom) && !s.at.After(out.WindowTo) {
			if a < 0 {
				a = i
			}
			b = i
		}
	}
	if a >= 0 && b > a {
		out.CLISteady = pct(samples[b].cpu-samples[a].cpu, samples[b].at.Sub(samples[a].at))
	}
	return out, nil
}

// allRunning is the longest stretch of samples with at least n workers
// running (-1, -1 when none).
func allRunning(s []cpuSample, n int) (int, int) {
	i0, i1 := -1, -1
	for i := 0; i < len(s); {
		if s[i].Running < n {
			i++
			continue
		}
		j := i
		for j+1 < len(s) && s[j+1].Running >= n {
			j++
		}
		if i0 < 0 || s[j].At.Sub(s[i].At) > s[i1].At.Sub(s[i0].At) {
			i0, i1 = i, j
		}
		i = j + 1
	}
	return i0, i1
}

// cliSample is the CLI processes at one moment.
type cliSample struct {
	at       time.Time
	cpu      time.Duration
	rss, pss int64
	procs    int
}

// sampleCLI sums CPU, RSS and PSS over the descendants of root.
func sampleCLI(root int) cliSample {
	s := cliSample{at: time.Now()}
	parent, stats := procTable()
	for pid, st := range stats {
		in := false
		for p := st.ppid; p > 1; p = parent[p] {
			if p == root {
				in = true
				break
			}
		}
		if !in {
			continue
		}
		s.cpu += st.cpu
		s.rss += rss(pid)
		s.pss += pss(pid)
		s.procs++
	}
	return s
}

// rss is a process's resident set size in bytes (VmRSS of its status).
func rss(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// cliChildMain is the engine subprocess of the CLI workers run: one run
// whose plan is reshaped into n tasks without dependencies (maxWorkers
// n), on the CLI host whose children use the parent's model-sim. Only the
// engine, the host and SQLite live in this process; the CLIs are its
// children, which its getrusage leaves out.
func cliChildMain(n int, claude, baseURL, home string, stdout io.Writer) int {
	res := cliChild{Workers: n}
	err := cliChildRun(&res, claude, baseURL, home)
	if err != nil {
		res.Error = err.Error()
	}
	res.CPU = selfCPU()
	res.MaxRSS = selfMaxRSS()
	_ = json.NewEncoder(stdout).Encode(res)
	if err != nil {
		return 1
	}
	return 0
}

func cliChildRun(res *cliChild, claude, baseURL, home string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir, err := tempDir("baton-bench-cli-workers-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// The main session's child ends while it waits through the worker
	// phase, so the CLI figures are the workers'.
	ce, err := newCLIEngine(ctx, dir, claude, baseURL, home, res.Workers)
	if err != nil {
		return err
	}
	defer ce.close()
	eng, rec := ce.eng, ce.rec

	stopSampling := sampleEvery(250*time.Millisecond, func() {
		s := cpuSample{At: time.Now(), CPU: selfCPU(), Running: rec.runningNow()}
		res.Samples = append(res.Samples, s)
		res.Peak = max(res.Peak, s.Running)
	})
	start := time.Now()
	dctx, dstop := context.WithCancel(ctx)
	defer dstop()
	drv := newDriver(dctx, eng, rec)
	proj := filepath.Join(dir, "project")
	folders, err := makeProject(proj, min(8, res.Workers-1))
	if err != nil {
		return err
	}
	id, err := drv.start(ctx, fmt.Sprintf("bench-%d", res.Workers), proj, func(ts []store.Task) engine.Modifications {
		return layered(ts, res.Workers, res.Workers, folders)
	})
	if err != nil {
		return err
	}
	_, werr := drv.wait(ctx, id)
	res.Wall = time.Since(start)
	stopSampling()
	rec.mu.Lock()
	res.Problems = rec.problems
	res.Detect = rec.detect
	rec.mu.Unlock()
	return werr
}

// cliEngine is an engine on the CLI host in its own folder, for the
// engine subprocesses: a CLI's child ends after 2 s idle.
type cliEngine struct {
	host *claudecode.Host
	rec  *recorder
	eng  *engine.Engine
	undo []func() // in reverse order
}

// newCLIEngine starts an engine on a CLI host whose CLIs talk to the
// model-sim at baseURL, with the bench templates for width workers.
func newCLIEngine(ctx context.Context, dir, claude, baseURL, home string, width int) (ce *cliEngine, err error) {
	ce = &cliEngine{rec: newRecorder()}
	defer func() {
		if err != nil {
			ce.close()
		}
	}()
	ce.host, err = claudecode.New(claudecode.Options{Path: claude, BaseEnv: claudecodetest.Env(home, baseURL, "CLAUDE_CODE_MAX_RETRIES=1"),
		StateDir: filepath.Join(dir, "claude-code"), Logger: quiet, IdleStop: 2 * time.Second})
	if err != nil {
		return nil, err
	}
	ce.undo = append(ce.undo, func() {
		sctx, c := context.WithTimeout(context.Background(), 30*time.Second)
		defer c()
		_ = ce.host.Close(sctx)
	})
	tctx, tstop := context.WithCancel(ctx)
	ce.undo = append(ce.undo, tstop)
	h := newCLITap(tctx, ce.host, ce.rec)
	st, err := store.Open(filepath.Join(dir, "baton.db"), store.WithLogger(quiet))
	if err != nil {
		return nil, err
	}
	ce.undo = append(ce.undo, func() { _ = st.Close() })
	tmpls, err := newTemplates(filepath.Join(dir, "templates"), width)
	if err != nil {
		return nil, err
	}
	ce.eng, err = engine.New(engine.Options{Store: st, Host: h, Templates: tmpls, Emitter: ce.rec, Logger: quiet})
	if err != nil {
		return nil, err
	}
	ce.undo = append(ce.undo, func() {
		sctx, c := context.WithTimeout(context.Background(), 30*time.Second)
		defer c()
		_ = ce.eng.Shutdown(sctx)
	})
	return ce, nil
}

// close ends the engine, the store, the tap and the host.
func (ce *cliEngine) close() {
	for i := len(ce.undo) - 1; i >= 0; i-- {
		ce.undo[i]()
	}
	ce.undo = nil
}

// cliSummary adds the CLI host's rows to the summary table.
func (r *report) cliSummary(p func(string, ...any)) {
	c := r.cli
	if c == nil {
		return
	}
	over := overheads(c.DAG)
	p("| Claude Code CLI host: completion detection p50 / p99 (result event read → `worker:completed`, 20-task DAG, %d detections) | — | %s / %s | |\n",
		len(c.DAG.Detect), ms(percentile(c.DAG.Detect, .5)), ms(percentile(c.DAG.Detect, .99)))
	if len(over) > 0 {
		p("| Claude Code CLI host: scheduling overhead, 20-task DAG, maxWorkers 5 (median / worst of %d runs) | ≤ 1 s | %s / %s | %s |\n",
			len(over), ms(percentile(over, .5)), ms(maxDuration(over)), yesNo(maxDuration(over) <= time.Second))
	}
	w := c.Workers
	p("| Claude Code CLI host, %d workers at once: Baton's CPU (%% of one core) / peak RSS | — | %.1f %% / %s | |\n", w.Child.Workers, w.GoSteady, mib(w.Child.MaxRSS))
	p("| Claude Code CLI host, %d workers at once: the CLI processes' summed RSS (PSS) at peak | — | %s (%s) | |\n", w.Child.Workers, gib(w.CLIPeakRSS), gib(w.CLIPeakPS))
	if m := c.Memory; m != nil && m.Skipped == "" {
		c := m.Child
		p("| Claude Code CLI host, %d workers requested in a %s memory cgroup: CLIs at once (peak) / memory waits / completed / OOM kills | fewer at once, all completed, no OOM kill | %d / %d / %d of %d / %d | %s |\n",
			c.Requested, gib(m.Limit), c.PeakCLIs, c.Waits, c.Completed, c.Requested, m.OOMKills,
			yesNo(c.PeakCLIs < c.Requested && c.Waits > 0 && c.Completed == c.Requested && m.OOMKills == 0))
	}
}

// cliMarkdown is the report's section on the CLI host.
func (r *report) cliMarkdown(p func(string, ...any)) {
	c := r.cli
	if c == nil {
		return
	}
	p("## Claude Code CLI host\n\n")
	p("The same engine with the Claude Code host (`backend/claudecode`): every session is a child process of the pinned CLI (%s, `tools/claude-code`), talking stream-json over its stdin and stdout, its model an in-process model-sim (`backend/modelsim`, the Messages API stand-in with the simulator's scripted agent) on loopback. Every permission prompt is allowed once by a loop that polls the host's pending prompts every 100 ms. The CLI's own work (starting, building its requests, running tools) dominates every wall time here; these rows measure what Baton adds.\n\n", c.Version)
	p("**Completion detection** runs from the moment the host reads a worker's `result` event off the CLI's stdout (the host's result notice, sent as the line is read) to the moment the engine emits `worker:completed`, after the change is committed to SQLite: the engine hears of the notice, reads the session's new entries from the host's memory, parses the report and commits.\n\n")
	p("| Mode | Samples | p50 | p90 | p99 | max |\n|---|---|---|---|---|---|\n")
	row := func(mode string, d []time.Duration) {
		p("| %s | %d | %s | %s | %s | %s |\n", mode, len(d), ms(percentile(d, .5)), ms(percentile(d, .9)), ms(percentile(d, .99)), ms(maxDuration(d)))
	}
	row("CLI, 20-task DAG", c.DAG.Detect)
	row(fmt.Sprintf("CLI, %d workers at once (engine in its own process)", c.Workers.Child.Workers), c.Workers.Child.Detect)
	p("\n")
	p("**Scheduling overhead** on the same 20-task DAG as above (4 layers of 5, `maxWorkers` 5, the documentation template on a generated 4-folder project). Agent time of a task runs from the session's first event (the host's `Start` returns once the child has started, taken the prompt and written its first line) to its result event; wall time from `Confirm` to the last `worker:completed`. The overhead therefore holds, four times along the chain, starting a CLI process until its first event (p50 %s, p99 %s over %d starts), detecting the completion, SQLite commits and scheduling. The host starts a worker's CLI ahead (a warm start): while a task's dependencies run, the engine asks the host to start the CLI of each task that may start next (at most `maxWorkers` of them), with the session id, folder, model, permission mode and system prompt it will have, and sends it the `initialize` control request, so that the CLI sets its session up (commands, agents, skills, plugins, hooks, MCP servers) then rather than at the task's prompt; the task's `Start` writes the prompt to it. %d of the %d new sessions met a warm CLI (the main sessions of the runs, started with no task, never do), %d of them one that had answered its `initialize`. A CLI runs at nice %d from its first event on (its turns and tools), so that the CLIs taking their prompts as a layer starts (at Baton's own priority) come before the turns of the workers that started first.\n\n",
		ms(percentile(c.StartTimes, .5)), ms(percentile(c.StartTimes, .99)), len(c.StartTimes), c.WarmStarts, c.WarmStarts+c.ColdStarts, c.ReadyStarts, claudecode.WorkingNice)
	p("A task retried in a new session (its agent refused to rewrite a file that another worker of its layer changed after it read it: two tasks of a layer document the same folder) counts the agent time of each of its sessions; *Retried* counts those tasks, and the time from a failed attempt's result to its retry's `Start` call is overhead.\n\n")
	p("| Run | Wall | Critical path | Overhead | Mean agent time per task | Retried |\n|---|---|---|---|---|---|\n")
	for i, d := range c.DAG.Runs {
		p("| %d | %s | %s | %s | %s | %d |\n", i+1, ms(d.Wall), ms(d.Critical), ms(d.Overhead()), ms(d.MeanAgent), d.Retried)
	}
	p("\n")
	if len(c.Chains) > 0 {
		p("Where the time goes, along the chain of tasks that set each run's wall time (from the task completed last, back through each task's dependency completed last, to one of the first layer); the phases add up to the wall time, and their overhead is at least the run's overhead above (the chain's agent time is at most the critical path):\n\n")
		p("| Run | Tasks on the chain | Confirm → first `Start` call | `Start` call → first event (sum: each session's) | result → `worker:completed` (sum) | `worker:completed` → the next `Start` call (sum) | a failed attempt's result → its retry's `Start` call (sum, retries) | Overhead on the chain | Agent time on the chain |\n|---|---|---|---|---|---|---|---|---|\n")
		for i, ch := range c.Chains {
			each := make([]string, len(ch.Starts))
			for j, d := range ch.Starts {
				each[j] = ms(d)
			}
			p("| %d | %d | %s | %s (%s) | %s | %s | %s (%d) | %s | %s |\n", i+1, ch.Tasks, ms(ch.First), ms(ch.Start), strings.Join(each, " + "), ms(ch.Detect), ms(ch.Schedule), ms(ch.Retry), ch.Retries, ms(ch.Overhead()), ms(ch.Agent))
		}
		p("\n")
	}
	w := c.Workers
	window := "none"
	if !w.WindowFrom.IsZero() {
		window = ms(w.WindowTo.Sub(w.WindowFrom))
	}
	p("**CPU and memory with %d CLI workers at once.** One run whose plan is reshaped into %d tasks without dependencies (`maxWorkers` %d), its engine in its own subprocess (this program re-executed with `-child-cli`), so that its `getrusage` is Baton's alone: the CLI processes are its children, which `RUSAGE_SELF` leaves out. The workers' model-sim plays the `slow` scenario (a 400 ms pause before every stream event), so all of them run at once for a while; the main session's CLI ends while it waits through the worker phase. The CLI processes are sampled by the parent every 500 ms from `/proc` (every descendant of the engine process: the CLIs and the tools they run): RSS from `status` (which counts the pages the %d copies of the same binary share once per process) and PSS from `smaps_rollup` (which divides them). Load average at the end: %s.\n\n",
		w.Child.Workers, w.Child.Workers, w.Child.Workers, w.Child.Workers, w.Load)
	p("| Workers at once (peak) | Wall | Stretch with all running | Baton CPU, all running | Baton CPU, whole run | Baton CPU time | Baton peak RSS | CLI processes (peak) | CLI summed RSS, peak | CLI summed PSS, peak | CLI CPU, all running |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	p("| %d (%d) | %s | %s | %.1f %% | %.1f %% | %s | %s | %d | %s | %s | %.0f %% |\n\n", w.Child.Workers, w.Child.Peak, ms(w.Child.Wall), window,
		w.GoSteady, w.GoAll, ms(w.Child.CPU), mib(w.Child.MaxRSS), w.CLIProcs, gib(w.CLIPeakRSS), gib(w.CLIPeakPS), w.CLISteady)
	r.memoryMarkdown(p)
}

// memoryMarkdown is the memory cap's part of the CLI host's section.
func (r *report) memoryMarkdown(p func(string, ...any)) {
	m := r.cli.Memory
	if m == nil {
		return
	}
	p("**The memory-aware worker cap.** ")
	if m.Skipped != "" {
		p("Not measured: %s.\n\n", m.Skipped)
		return
	}
	c := m.Child
	p("%d CLI workers are requested at once (two runs of %d tasks without dependencies, `maxWorkers` %d each) by an engine subprocess (this program re-executed with `-child-cli-memory`) that first moves itself into a memory cgroup the bench makes under its own, limited to %s; the CLIs it starts are in that cgroup too. Before starting workers the engine asks the host how many more fit: the host reads the cgroup's limit and usage (less its inactive file cache) and the machine's `MemAvailable`, takes the smaller, holds back what its live CLIs may still grow to, and divides the rest, less a 256 MiB margin, by its running estimate of one CLI (the mean peak PSS of the CLIs it measured, 300 MiB before any). A worker that does not fit waits, pending, with \"%s\" (the first such message here) on its card and in the terminal. The workers' model is the fast model-sim (no slow scenario). Counts come from the host (its children, sampled every 100 ms) and the cgroup (`%s`, the OOM killer's count).\n\n",
		c.Requested, n2(c.Requested), n2(c.Requested), gib(m.Limit), c.FirstWait, m.files())
	p("| Requested | Limit | CLIs at once (peak) | Workers running at once (peak) | Memory waits (events) | Completed | Failed or cancelled | Cgroup peak usage | OOM kills | CLI summed RSS (PSS), peak | Wall |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	p("| %d | %s | %d | %d | %d | %d | %d | %s | %d | %s (%s) | %s |\n\n", c.Requested, gib(m.Limit), c.PeakCLIs, c.PeakRun, c.Waits, c.Completed,
		len(c.Problems), gib(m.Peak), m.OOMKills, gib(m.CLIRSS), gib(m.CLIPSS), ms(c.Wall))
}

func maxDuration(d []time.Duration) time.Duration {
	var m time.Duration
	for _, v := range d {
		m = max(m, v)
	}
	return m
}

func gib(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	}
	return mib(b)
}
