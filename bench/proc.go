package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is the unit of utime and stime in /proc/PID/stat (USER_HZ,
// 100 on every Linux build this program targets).
const clockTick = 10 * time.Millisecond

// selfCPU returns the CPU time (user plus system) of this process so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// selfMaxRSS returns the peak resident set size of this process in bytes
// (getrusage ru_maxrss, which Linux gives in KiB).
func selfMaxRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss * 1024
}

// procStat is what this program reads from /proc/PID/stat.
type procStat struct {
	pid, ppid int
	comm      string
	state     string        // R, S, D, Z, …
	cpu       time.Duration // utime + stime
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	// The command name is in parentheses and may hold spaces; the fields
	// after the last ')' are positional.
	open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || close < open {
		return procStat{}, fmt.Errorf("read /proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(string(b[close+1:]))
	if len(f) < 13 {
		return procStat{}, fmt.Errorf("read /proc/%d/stat: too few fields", pid)
	}
	ppid, _ := strconv.Atoi(f[1])
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return procStat{pid: pid, ppid: ppid, comm: string(b[open+1 : close]), state: f[0], cpu: time.Duration(utime+stime) * clockTick}, nil
}

// pss returns the proportional set size of a process in bytes (shared
// pages divided among the processes sharing them, so a sum over a process
// tree does not count them twice).
func pss(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Pss:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// treeSample is the CPU and memory of a process tree at one moment.
type treeSample struct {
	At    time.Time
	CPU   time.Duration
	PSS   int64
	Procs int
}

// sampleTree sums CPU time and PSS over the descendants of root, leaving
// out the subtree of exclude (the engine subprocess).
func sampleTree(root, exclude int) treeSample {
	s := treeSample{At: time.Now()}
	parent, stats := procTable()
	for pid, st := range stats {
		if pid == root || pid == exclude {
			continue
		}
		in := false
		for p := st.ppid; p > 1; p = parent[p] {
			if p == exclude {
				break
			}
			if p == root {
				in = true
				break
			}
		}
		if !in {
			continue
		}
		s.CPU += st.cpu
		s.PSS += pss(pid)
		s.Procs++
	}
	return s
}

// loadAvg returns the first three fields of /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// procTable reads every process's stat: its parent and its figures, by pid.
func procTable() (parent map[int]int, stats map[int]procStat) {
	parent, stats = map[int]int{}, map[int]procStat{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		st, err := readStat(pid)
		if err != nil {
			continue
		}
		parent[pid] = st.ppid
		stats[pid] = st
	}
	return parent, stats
}

// settle waits until no process that an earlier row started is left (this
// program's descendants: Chromium, the CLIs and the tools they ran), for at
// most 20 seconds, so that the next row does not share the cores with them
// as they exit.
func (r *report) settle(step func(string, ...any)) {
	from := time.Now()
	left := descendants(os.Getpid())
	for left > 0 && time.Since(from) < 20*time.Second {
		time.Sleep(100 * time.Millisecond)
		left = descendants(os.Getpid())
	}
	if waited := time.Since(from); waited >= 100*time.Millisecond || left > 0 {
		step("waited %s for the processes of the rows before to end (%d left)", waited.Round(100*time.Millisecond), left)
	}
}

// descendants counts the live processes under root (not zombies).
func descendants(root int) int {
	parent, stats := procTable()
	n := 0
	for pid, st := range stats {
		if pid == root || st.state == "Z" {
			continue
		}
		for p := st.ppid; p > 1; p = parent[p] {
			if p == root {
				n++
				break
			}
		}
	}
	return n
}

// sampleEvery calls f at once and then every d, on a goroutine of its own,
// until the returned stop is called; stop returns after f's last call, so
// what f wrote may be read without a lock from then on.
func sampleEvery(d time.Duration, f func()) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			f()
			select {
			case <-quit:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(quit); <-done }
}
