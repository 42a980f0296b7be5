// Package memfree says how much memory this process and its children may
// still take, and how much one process takes. Its one rule: the answer is
// the smaller of what the process's memory cgroup leaves (cgroup v2
// memory.max − memory.current, or v1 memory.limit_in_bytes −
// memory.usage_in_bytes, the inactive file cache counted as free in both)
// and the machine's MemAvailable from /proc/meminfo. It reads Linux's /proc
// and /sys only; elsewhere it reports ErrUnsupported.
package memfree

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ErrUnsupported is returned where /proc/meminfo cannot be read.
var ErrUnsupported = errors.New("memfree: no /proc/meminfo on this system")

// FS reads the files under Root ("/" for this machine; a test gives a
// folder laid out the same way).
type FS struct {
	Root string
	// Self is the /proc entry of the process whose cgroup counts
	// ("self" when empty).
	Self string
	// ReadFile reads a file (its path under Root); os.ReadFile when nil.
	// Another machine's files come through it (backend/machines reads
	// them over SSH).
	ReadFile func(path string) ([]byte, error)
}

func (f FS) read(p string) ([]byte, error) {
	if f.ReadFile != nil {
		return f.ReadFile(p)
	}
	return os.ReadFile(p)
}

// Machine is the FS of this machine.
var Machine = FS{Root: "/"}

func (f FS) path(p string) string { return filepath.Join(f.Root, p) }

// Available returns the bytes that may still be taken, and where the
// figure came from ("cgroup" or "meminfo").
func (f FS) Available() (int64, string, error) {
	info, err := f.read(f.path("proc/meminfo"))
	if err != nil {
		return 0, "", ErrUnsupported
	}
	avail, ok := field(info, "MemAvailable:")
	if !ok {
		return 0, "", fmt.Errorf("memfree: no MemAvailable in /proc/meminfo")
	}
	avail *= 1024
	if left, ok := f.cgroupLeft(); ok && left < avail {
		return left, "cgroup", nil
	}
	return avail, "meminfo", nil
}

// cgroupLeft is what the process's memory cgroup leaves, when it has a
// limit.
func (f FS) cgroupLeft() (int64, bool) {
	self := f.Self
	if self == "" {
		self = "self"
	}
	data, err := f.read(f.path(filepath.Join("proc", self, "cgroup")))
	if err != nil {
		return 0, false
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[1] == "" && parts[0] == "0": // v2
			dir := f.path(filepath.Join("sys/fs/cgroup", parts[2]))
			if left, ok := f.left(dir, "memory.max", "memory.current", "inactive_file"); ok {
				return left, true
			}
		case slices.Contains(strings.Split(parts[1], ","), "memory"): // v1
			for _, dir := range []string{filepath.Join("sys/fs/cgroup/memory", parts[2]), "sys/fs/cgroup/memory"} {
				if left, ok := f.left(f.path(dir), "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"); ok {
					return left, true
				}
			}
		}
	}
	return 0, false
}

// left reads a cgroup's limit and usage; a limit of "max" or one beyond
// any machine (v1 writes 2^63 rounded to a page) is no limit.
func (f FS) left(dir, limitFile, usageFile, inactive string) (int64, bool) {
	lb, err := f.read(filepath.Join(dir, limitFile))
	if err != nil {
		return 0, false
	}
	limit, err := strconv.ParseInt(strings.TrimSpace(string(lb)), 10, 64)
	if err != nil || limit >= 1<<62 {
		return 0, false
	}
	ub, err := f.read(filepath.Join(dir, usageFile))
	if err != nil {
		return 0, false
	}
	usage, err := strconv.ParseInt(strings.TrimSpace(string(ub)), 10, 64)
	if err != nil {
		return 0, false
	}
	if st, err := f.read(filepath.Join(dir, "memory.stat")); err == nil {
		if v, ok := field(st, inactive+" "); ok && v <= usage {
			usage -= v
		}
	}
	return max(0, limit-usage), true
}

// Footprint returns what process pid takes: its proportional set size
// (shared pages divided among the processes that map them), else its
// resident set size.
func (f FS) Footprint(pid int) (int64, error) {
	dir := f.path(filepath.Join("proc", strconv.Itoa(pid)))
	if b, err := f.read(filepath.Join(dir, "smaps_rollup")); err == nil {
		if v, ok := field(b, "Pss:"); ok {
			return v * 1024, nil
		}
	}
	b, err := f.read(filepath.Join(dir, "status"))
	if err != nil {
		return 0, err
	}
	if v, ok := field(b, "VmRSS:"); ok {
		return v * 1024, nil
	}
	return 0, fmt.Errorf("memfree: no VmRSS for process %d", pid)
}

// field returns the number after the line prefix name ("MemAvailable:",
// "Pss:", "inactive_file ").
func field(data []byte, name string) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name) {
			continue
		}
		f := strings.Fields(strings.TrimPrefix(line, name))
		if len(f) == 0 {
			return 0, false
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		return v, err == nil
	}
	return 0, false
}
