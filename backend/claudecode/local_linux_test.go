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

	"github.com/baton-app/baton/backend/session"
)

// TestLocalLower: Lower gives the child and the processes it started
// (its process group) the nice value asked for, only ever a higher one, and
// leaves Baton's own priority alone.
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
	for _, step := range []struct{ lower, want int }{{WorkingNice, WorkingNice}, {EndingNice, EndingNice}, {WorkingNice, EndingNice}} {
		p.(Lowerer).Lower(step.lower)
		for _, pid := range groupOf(t, p.PID()) {
			if n := niceOf(t, pid); n != step.want {
				t.Errorf("after Lower(%d): process %d of the group has nice %d, want %d", step.lower, pid, n, step.want)
			}
		}
	}
	if n := niceOf(t, os.Getpid()); n == EndingNice {
		t.Errorf("Baton itself was lowered to nice %d", n)
	}
}

// TestWorkingNice: a session's CLI (the real one) runs at Baton's own
// priority until its first event and at WorkingNice from then on; Baton's
// own priority stays. (Lower sets the whole process group, the tools it
// runs too: TestLocalLower. The CLI's own tools are not checked here: one
// it forks as it is lowered may keep the nice value it was forked with.)
func TestWorkingNice(t *testing.T) {
	r := newRig(t, "happy")
	ctx := context.Background()
	own := niceOf(t, os.Getpid())
	id, err := r.host.Start(ctx, session.StartOptions{Cwd: project(t), Message: "Look at this project.", PermissionMode: "acceptEdits"})
	if err != nil {
		t.Fatal(err)
	}
	pid := r.host.PID(id)
	if pid == 0 {
		t.Fatal("no child runs the session after its Start")
	}
	if n := niceOf(t, pid); n != WorkingNice {
		t.Errorf("the session's CLI has nice %d after its first event, want %d", n, WorkingNice)
	}
	if n := niceOf(t, os.Getpid()); n != own {
		t.Errorf("Baton itself went from nice %d to %d", own, n)
	}
	waitFor(t, r.host, id, time.Minute, "first turn", turnDone(1))
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
