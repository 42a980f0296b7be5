package main

// The memory-aware worker cap on the Claude Code CLI host: an engine
// subprocess (this program re-executed with -child-cli-memory) asks for
// more CLI workers at once than a memory cgroup the bench makes for it
// holds. The host's Room (backend/claudecode, backend/memfree) reads the
// cgroup's limit and usage; workers that do not fit wait ("waiting for
// memory: N MB free") instead of starting. The row shows how many ran at
// once, how many waits there were, the cgroup's peak usage and its OOM
// kill count.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// memChild is what the -child-cli-memory subprocess reports on stdout.
type memChild struct {
	Requested int           `json:"requested"`
	Completed int           `json:"completed"`
	PeakCLIs  int           `json:"peakClis"` // the host's children at once
	PeakRun   int           `json:"peakRunning"`
	Waits     int           `json:"waits"` // worker:waitingMemory events
	FirstWait string        `json:"firstWait,omitempty"`
	Wall      time.Duration `json:"wall"`
	Problems  []string      `json:"problems,omitempty"`
	Error     string        `json:"error,omitempty"`
}

// memResult is the memory row as the parent saw it.
type memResult struct {
	Skipped  string // why the row did not run
	Limit    int64
	Child    memChild
	Peak     int64 // the cgroup's peak usage
	OOMKills int64
	CLIProcs int
	CLIRSS   int64
	CLIPSS   int64
	V2       bool // a cgroup v2 (else v1)
}

// files names the cgroup files the row reads.
func (m memResult) files() string {
	if m.V2 {
		return "memory.peak, memory.events"
	}
	return "memory.max_usage_in_bytes, memory.oom_control"
}

// cgroup is a memory cgroup the bench made under its own.
type cgroup struct {
	dir string
	v2  bool
}

// newCgroup makes a memory cgroup with limit under this process's own
// memory cgroup (v2, else v1).
func newCgroup(limit int64) (*cgroup, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("baton-bench-%d", os.Getpid())
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var cg *cgroup
		var limitFile string
		switch {
		case parts[0] == "0" && parts[1] == "":
			ctl, err := os.ReadFile(filepath.Join("/sys/fs/cgroup", parts[2], "cgroup.controllers"))
			if err != nil || !strings.Contains(string(ctl), "memory") {
				continue
			}
			cg, limitFile = &cgroup{dir: filepath.Join("/sys/fs/cgroup", parts[2], name), v2: true}, "memory.max"
		case strings.Contains(","+parts[1]+",", ",memory,"):
			cg, limitFile = &cgroup{dir: filepath.Join("/sys/fs/cgroup/memory", parts[2], name)}, "memory.limit_in_bytes"
		default:
			continue
		}
		if err := os.Mkdir(cg.dir, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(cg.dir, limitFile), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
			return nil, errors.Join(err, os.Remove(cg.dir))
		}
		return cg, nil
	}
	return nil, errors.New("no memory cgroup to make one under")
}

// join moves this process into the cgroup.
func (c *cgroup) join() error {
	return os.WriteFile(filepath.Join(c.dir, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0o644)
}

// peak is the highest usage the cgroup saw (0 when the kernel keeps none).
func (c *cgroup) peak() int64 {
	f := "memory.max_usage_in_bytes"
	if c.v2 {
		f = "memory.peak"
	}
	b, _ := os.ReadFile(filepath.Join(c.dir, f))
	v, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return v
}

// oomKills is how many processes the OOM killer ended in the cgroup.
func (c *cgroup) oomKills() int64 {
	f := "memory.oom_control"
	if c.v2 {
		f = "memory.events"
	}
	b, _ := os.ReadFile(filepath.Join(c.dir, f))
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "oom_kill "); ok {
			v, _ := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			return v
		}
	}
	return 0
}

func (c *cgroup) remove() error {
	var err error
	for range 50 { // the last children may take a moment to leave
		if err = os.Remove(c.dir); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// runCLIMemory runs n CLI workers (two runs of n/2 without dependencies)
// in an engine subprocess inside a memory cgroup of limit bytes.
func runCLIMemory(ctx context.Context, cfg config, n int, limit int64) (memResult, error) {
	out := memResult{Limit: limit}
	cg, err := newCgroup(limit)
	if err != nil {
		out.Skipped = "the bench could not make a memory cgroup (" + err.Error() + "); it needs to run as root or with a delegated cgroup"
		return out, nil
	}
	defer func() {
		if err := cg.remove(); err != nil {
			fmt.Fprintf(os.Stderr, "bench: remove %s: %v\n", cg.dir, err)
		}
	}()
	setup, err := startModelSim(false)
	if err != nil {
		return out, err
	}
	defer setup.close()
	exe, err := os.Executable()
	if err != nil {
		return out, err
	}
	cmd := exec.CommandContext(ctx, exe, "-child-cli-memory", "-n", fmt.Sprint(n), "-claude", cfg.claude,
		"-base-url", setup.sim.URL(), "-cli-home", setup.home, "-cgroup", cg.dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return out, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	var werr error
loop:
	for {
		s := sampleCLI(cmd.Process.Pid)
		out.CLIProcs = max(out.CLIProcs, s.procs)
		out.CLIRSS = max(out.CLIRSS, s.rss)
		out.CLIPSS = max(out.CLIPSS, s.pss)
		select {
		case werr = <-done:
			break loop
		case <-t.C:
		}
	}
	out.Peak, out.OOMKills, out.V2 = cg.peak(), cg.oomKills(), cg.v2
	if err := json.Unmarshal(stdout.Bytes(), &out.Child); err != nil {
		return out, fmt.Errorf("engine subprocess for %d CLI workers in %s: %v: %s", n, mib(limit), werr, stderr.String())
	}
	if out.Child.Error != "" || werr != nil {
		return out, fmt.Errorf("engine subprocess for %d CLI workers in %s: %v %s: %s", n, mib(limit), werr, out.Child.Error, stderr.String())
	}
	return out, nil
}

// cliMemoryChildMain is the engine subprocess of the memory row: it joins
// the cgroup, then runs two runs of n/2 workers each on the CLI host.
func cliMemoryChildMain(n int, claude, baseURL, home, cgroupDir string, stdout io.Writer) int {
	res := memChild{Requested: n}
	err := (&cgroup{dir: cgroupDir}).join()
	if err == nil {
		err = cliMemoryRun(&res, claude, baseURL, home)
	}
	if err != nil {
		res.Error = err.Error()
	}
	_ = json.NewEncoder(stdout).Encode(res)
	if err != nil {
		return 1
	}
	return 0
}

func cliMemoryRun(res *memChild, claude, baseURL, home string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir, err := tempDir("baton-bench-cli-memory-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	width := n2(res.Requested)
	ce, err := newCLIEngine(ctx, dir, claude, baseURL, home, width)
	if err != nil {
		return err
	}
	defer ce.close()
	host, eng, rec := ce.host, ce.eng, ce.rec
	stopSampling := sampleEvery(100*time.Millisecond, func() {
		res.PeakCLIs = max(res.PeakCLIs, len(host.Running()))
		res.PeakRun = max(res.PeakRun, rec.runningNow())
	})
	start := time.Now()
	dctx, dstop := context.WithCancel(ctx)
	defer dstop()
	drv := newDriver(dctx, eng, rec)
	ids, err := drv.startFlat(ctx, dir, []int{width, width})
	if err != nil {
		return err
	}
	errs := drv.waitAll(ctx, ids)
	res.Wall = time.Since(start)
	stopSampling()
	rec.mu.Lock()
	res.Problems = rec.problems
	res.Completed = len(rec.bySession)
	res.Waits = rec.memoryWaits
	res.FirstWait = rec.firstMemoryWait
	rec.mu.Unlock()
	return errors.Join(errs...)
}

// n2 is the width of each of the two runs of n workers.
func n2(n int) int { return max(1, n/2) }
