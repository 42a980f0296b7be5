package owner

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

func TestSelfIsAliveAndSame(t *testing.T) {
	t.Parallel()
	me := Self(Terminal)
	if me.PID != os.Getpid() || !me.Alive() || !me.Same(Self(Window)) {
		t.Fatalf("Self = %+v, alive %v", me, me.Alive())
	}
	if runtime.GOOS == "linux" && me.Start == "" {
		t.Error("no start time on Linux")
	}
	if s := me.String(); !strings.HasPrefix(s, "baton run (process ") {
		t.Errorf("String = %q", s)
	}
	if s := (Owner{PID: 7, Face: Window}).String(); s != "Baton's window (process 7)" {
		t.Errorf("String = %q", s)
	}
	if s := (Owner{PID: 8, Face: Serve}).String(); s != "baton serve (process 8)" {
		t.Errorf("a serve owner: %q", s)
	}
}

// A process that ended is not alive; an id reused by a process that
// started later is not the same process; one on another machine cannot be
// told and counts as alive.
func TestGoneReusedAndElsewhere(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	gone := Owner{PID: cmd.Process.Pid, Machine: Self("").Machine}
	if gone.Alive() {
		t.Errorf("an ended process (%d) is alive", gone.PID)
	}
	me := Self(Terminal)
	if me.Start != "" {
		reused := me
		reused.Start = me.Start + "1"
		if reused.Alive() || reused.Same(me) {
			t.Error("another start of the same id counts as this process")
		}
	}
	elsewhere := Owner{PID: 1 << 22, Machine: me.Machine + "-other"}
	if !elsewhere.Alive() || !strings.Contains(elsewhere.String(), " on "+elsewhere.Machine) {
		t.Errorf("an owner on another machine: alive %v, %q", elsewhere.Alive(), elsewhere.String())
	}
}
