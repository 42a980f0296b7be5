package claudecode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLocalLower: Lower gives the child and the processes it started
// (its process group) nice 10, and leaves Baton's own priority alone.
func TestLocalLower(t *testing.T) {
	t.Parallel()
	p, err := Local{}.Start(context.Background(), Command{Path: "/bin/sh", Args: []string{"-c", "sleep 30 & sleep 30 & wait"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.End(true); _ = p.Wait() }()
	var group []int
	for deadline := time.Now().Add(10 * time.Second); len(group) < 3; {
		if time.Now().After(deadline) {
			t.Fatalf("the shell's group has %v, want the shell and its two sleeps", group)
		}
		time.Sleep(20 * time.Millisecond)
		group = groupOf(t, p.PID())
	}
	p.(Lowerer).Lower()
	for _, pid := range groupOf(t, p.PID()) {
		if n := niceOf(t, pid); n != endingNice {
			t.Errorf("process %d of the group has nice %d, want %d", pid, n, endingNice)
		}
	}
	if n := niceOf(t, os.Getpid()); n == endingNice {
		t.Errorf("Baton itself was lowered to nice %d", n)
	}
}

// statFields are the fields of /proc/PID/stat after the command name.
func statFields(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:]), nil
}

// groupOf lists the live processes of process group pgid.
func groupOf(t *testing.T, pgid int) []int {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []int
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		f, err := statFields(pid)
		if err != nil || len(f) < 17 || f[0] == "Z" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			out = append(out, pid)
		}
	}
	return out
}

func niceOf(t *testing.T, pid int) int {
	t.Helper()
	f, err := statFields(pid)
	if err != nil || len(f) < 17 {
		t.Fatalf("read the nice value of %d: %v", pid, err)
	}
	n, _ := strconv.Atoi(f[16])
	return n
}
