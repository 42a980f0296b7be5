package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/simulator"
	"github.com/baton-app/baton/backend/store"
)

// maxPerRun is the most workers one run may have at once (the template
// schema limits config.maxWorkers to 1–20).
const maxPerRun = 20

// cpuSample is one sample of the engine subprocess.
type cpuSample struct {
	At      time.Time     `json:"at"`
	CPU     time.Duration `json:"cpu"`
	Running int           `json:"running"`
}

// childResult is what the engine subprocess reports on stdout.
type childResult struct {
	Workers  int           `json:"workers"`
	Runs     []int         `json:"runs"` // maxWorkers of each run
	Wall     time.Duration `json:"wall"`
	CPU      time.Duration `json:"cpu"`
	MaxRSS   int64         `json:"maxRss"`
	Peak     int           `json:"peakRunning"`
	Samples  []cpuSample   `json:"samples"`
	Problems []string      `json:"problems,omitempty"`
	// Completed is when worker:completed was emitted, per session (wall
	// clock, compared with the simulator's entry times in the parent).
	Completed map[string]time.Time `json:"completed"`
	Error     string               `json:"error,omitempty"`
}

// splitWorkers splits n concurrent workers into runs of at most maxPerRun.
func splitWorkers(n int) []int {
	var runs []int
	for n > 0 {
		k := min(n, maxPerRun)
		runs = append(runs, k)
		n -= k
	}
	return runs
}

// childMain is the engine subprocess: it attaches to the simulator the
// parent started (as Baton attaches to Claude Desktop), runs enough runs
// for n workers at once and prints a childResult. Only the engine, the
// adapter and SQLite live in this process, so its rusage is Baton's alone.
func childMain(n int, endpoint, page string, stdout io.Writer) int {
	res := childResult{Workers: n, Runs: splitWorkers(n)}
	err := childRun(&res, endpoint, page)
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

func childRun(res *childResult, endpoint, page string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir, err := tempDir("baton-bench-workers-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	host, err := claude.Dial(ctx, chrome.Config{Endpoint: endpoint, PagePatterns: []string{page}, Logger: quiet}, claude.Options{Logger: quiet})
	if err != nil {
		return fmt.Errorf("attach to the simulator: %w", err)
	}
	defer func() {
		sctx, c := context.WithTimeout(context.Background(), 20*time.Second)
		defer c()
		_ = host.Close(sctx)
	}()
	st, err := store.Open(filepath.Join(dir, "baton.db"), store.WithLogger(quiet))
	if err != nil {
		return err
	}
	defer st.Close()
	tmpls, err := newTemplates(filepath.Join(dir, "templates"), res.Runs...)
	if err != nil {
		return err
	}
	rec := newRecorder()
	eng, err := engine.New(engine.Options{Store: st, Host: host, Templates: tmpls, Emitter: rec, Logger: quiet})
	if err != nil {
		return err
	}
	defer func() {
		sctx, c := context.WithTimeout(context.Background(), 20*time.Second)
		defer c()
		_ = eng.Shutdown(sctx)
	}()

	// Sample this process's CPU time and the number of running workers.
	stopSampling := sampleEvery(250*time.Millisecond, func() {
		s := cpuSample{At: time.Now(), CPU: selfCPU(), Running: rec.runningNow()}
		res.Samples = append(res.Samples, s)
		res.Peak = max(res.Peak, s.Running)
	})

	start := time.Now()
	dctx, dstop := context.WithCancel(ctx)
	defer dstop()
	drv := newDriver(dctx, eng, rec)
	ids, err := drv.startFlat(ctx, dir, res.Runs)
	if err != nil {
		return err
	}
	errs := drv.waitAll(ctx, ids)
	res.Wall = time.Since(start)
	stopSampling()
	rec.mu.Lock()
	res.Problems = rec.problems
	res.Completed = rec.bySession
	rec.mu.Unlock()
	if len(errs) > 0 {
		return fmt.Errorf("%v", errs)
	}
	return nil
}

// workersResult is one configuration as the parent saw it.
type workersResult struct {
	Child childResult
	// Window is the longest stretch in which all Workers ran at once.
	WindowFrom, WindowTo time.Time
	// GoSteady and GoAll are the engine process's CPU in % of one core,
	// in the window and over the whole run.
	GoSteady, GoAll float64
	// Chromium: CPU in % of one core in the window and over the run, peak
	// PSS summed over its process tree.
	ChromeSteady, ChromeAll float64
	ChromePeakPSS           int64
	ChromeProcs             int
	// Sim is the simulator's server (and this program's sampler), which
	// stands in for Claude Desktop's backend.
	SimSteady float64
	Load      string
	// Detect is the completion-detection latency of every worker: the
	// simulator's result entry (in this process) to worker:completed in
	// the engine subprocess, both on the wall clock.
	Detect []time.Duration
}

// runWorkers starts a simulator whose workers run the slow scenario (so n
// of them stay busy at once for several seconds), re-executes this program
// as the engine subprocess and samples Chromium's process tree meanwhile.
func runWorkers(ctx context.Context, cfg config, n int) (workersResult, error) {
	var out workersResult
	rec := newRecorder()
	in, err := simulator.Launch(ctx, simulator.InstanceOptions{ChromePath: cfg.chrome,
		Rules:     map[string]string{"_worker_": "slow"},
		Simulator: simulator.Options{Speed: cfg.workerSpeed, Logger: quiet, OnEntry: rec.onEntry}})
	if err != nil {
		return out, fmt.Errorf("start the simulator: %w", err)
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = in.Shutdown(sctx)
	}()
	exe, err := os.Executable()
	if err != nil {
		return out, err
	}
	cmd := exec.CommandContext(ctx, exe, "-child", "-n", fmt.Sprint(n), "-endpoint", in.Endpoint(), "-page", in.PagePattern())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return out, err
	}
	type simSample struct {
		at  time.Time
		cpu time.Duration
	}
	var chrome []treeSample
	var sim []simSample
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	var werr error
loop:
	for {
		chrome = append(chrome, sampleTree(os.Getpid(), cmd.Process.Pid))
		sim = append(sim, simSample{time.Now(), selfCPU()})
		select {
		case werr = <-done:
			break loop
		case <-t.C:
		}
	}
	out.Load = loadAvg()
	if err := json.Unmarshal(stdout.Bytes(), &out.Child); err != nil {
		return out, fmt.Errorf("engine subprocess for %d workers: %v: %s", n, werr, stderr.String())
	}
	if out.Child.Error != "" || werr != nil {
		return out, fmt.Errorf("engine subprocess for %d workers: %v %s: %s", n, werr, out.Child.Error, stderr.String())
	}
	c := out.Child
	rec.mu.Lock()
	for sid, at := range c.Completed {
		if last, ok := rec.last[sid]; ok {
			out.Detect = append(out.Detect, at.Sub(last))
		}
	}
	rec.mu.Unlock()
	out.GoAll = pct(c.CPU, c.Wall)
	// The window: the longest stretch of samples with all n workers running.
	i0, i1 := -1, -1
	for i := 0; i < len(c.Samples); {
		if c.Samples[i].Running < n {
			i++
			continue
		}
		j := i
		for j+1 < len(c.Samples) && c.Samples[j+1].Running >= n {
			j++
		}
		if i0 < 0 || c.Samples[j].At.Sub(c.Samples[i].At) > c.Samples[i1].At.Sub(c.Samples[i0].At) {
			i0, i1 = i, j
		}
		i = j + 1
	}
	if i0 >= 0 && i1 > i0 {
		a, b := c.Samples[i0], c.Samples[i1]
		out.WindowFrom, out.WindowTo = a.At, b.At
		out.GoSteady = pct(b.CPU-a.CPU, b.At.Sub(a.At))
	}
	if len(chrome) > 1 {
		first, last := chrome[0], chrome[len(chrome)-1]
		out.ChromeAll = pct(last.CPU-first.CPU, last.At.Sub(first.At))
		out.SimSteady = pct(sim[len(sim)-1].cpu-sim[0].cpu, sim[len(sim)-1].at.Sub(sim[0].at))
		var a, b = -1, -1
		for i, s := range chrome {
			out.ChromePeakPSS = max(out.ChromePeakPSS, s.PSS)
			out.ChromeProcs = max(out.ChromeProcs, s.Procs)
			if !out.WindowFrom.IsZero() && !s.At.Before(out.WindowFrom) && !s.At.After(out.WindowTo) {
				if a < 0 {
					a = i
				}
				b = i
			}
		}
		if a >= 0 && b > a {
			out.ChromeSteady = pct(chrome[b].CPU-chrome[a].CPU, chrome[b].At.Sub(chrome[a].At))
			out.SimSteady = pct(sim[b].cpu-sim[a].cpu, sim[b].at.Sub(sim[a].at))
		}
	}
	return out, nil
}

func pct(cpu, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return 100 * cpu.Seconds() / wall.Seconds()
}
