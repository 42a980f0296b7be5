package notify

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMain starts a private D-Bus session daemon for the package's tests, so
// they need no desktop and touch no bus of the user's.
func TestMain(m *testing.M) {
	os.Exit(runWithBus(m))
}

func runWithBus(m *testing.M) int {
	if isShort() {
		return m.Run()
	}
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		fmt.Fprintln(os.Stderr, "the notify tests need dbus-daemon (Debian package dbus); \"make test-deps\" installs it, or run with -short to skip them")
		return 1
	}
	cmd := exec.Command(daemon, "--session", "--nofork", "--nopidfile", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start dbus-daemon:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "start dbus-daemon:", err)
		return 1
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	select {
	case a := <-addr:
		if a == "" {
			fmt.Fprintln(os.Stderr, "dbus-daemon printed no address")
			return 1
		}
		os.Setenv("DBUS_SESSION_BUS_ADDRESS", a)
	case <-time.After(20 * time.Second):
		fmt.Fprintln(os.Stderr, "dbus-daemon did not print its address within 20 seconds")
		return 1
	}
	return m.Run()
}

// isShort reads -test.short before flag.Parse has run in m.Run.
func isShort() bool {
	for _, a := range os.Args[1:] {
		if a == "-test.short" || a == "-test.short=true" {
			return true
		}
	}
	return false
}

func needBus(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a D-Bus session daemon; skipped under -short")
	}
}
