//go:build smoke

package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/remote"
)

// TestDesktopServesBrowsers: a window that served browsers when it closed
// serves them again at its start (remote.json), with the window's own
// bindings: a browser signs in with the link, calls bindings, and a binding
// that needs the native window answers with a sentence instead of ending
// the window's process.
func TestDesktopServesBrowsers(t *testing.T) {
	bin := os.Getenv("BATON_BINARY")
	if bin == "" {
		t.Fatal("BATON_BINARY must name the built desktop binary; run this test with \"make smoke\"")
	}
	config := t.TempDir()
	cfg, err := remote.OpenConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	token, err := cfg.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	if err := cfg.SetWindow(true, "127.0.0.1:"+port, false); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xvfb-run", "-a", "-s", "-screen 0 1280x800x24", "dbus-run-session", "--", bin)
	cmd.Env = append(os.Environ(), "BATON_CONFIG_DIR="+config)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}()

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	base := "http://127.0.0.1:" + port + "/"
	deadline := time.Now().Add(90 * time.Second)
	for {
		resp, err := c.Get(base + "login?token=" + token)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
			t.Fatalf("the link: HTTP %d", resp.StatusCode)
		}
		select {
		case err := <-exited:
			t.Fatalf("the window exited (%v) before serving browsers:\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the window did not serve browsers on %s:\n%s", base, out.String())
		}
		time.Sleep(300 * time.Millisecond)
	}
	call := func(name string, args ...any) map[string]json.RawMessage {
		t.Helper()
		body, _ := json.Marshal(args)
		if args == nil {
			body = []byte("[]")
		}
		req, _ := http.NewRequest(http.MethodPost, base+"api/call/"+name, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out.String())
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %s", name, data)
		}
		return m
	}
	if m := call("RemoteAccessStatus"); !strings.Contains(string(m["result"]), `"running":true`) || !strings.Contains(string(m["result"]), `"fromBrowser":true`) {
		t.Errorf("RemoteAccessStatus: %s", m)
	}
	if m := call("ChooseFolder", ""); !strings.Contains(string(m["error"]), "type the folder") {
		t.Errorf("ChooseFolder from a browser: %s", m)
	}
	if m := call("ListTemplates"); !strings.Contains(string(m["result"]), `"documentation"`) {
		t.Errorf("ListTemplates: %.200s", m["result"])
	}
	if m := call("StopRemoteAccess"); m["error"] == nil {
		t.Errorf("a browser turned remote access off: %s", m)
	}
	select {
	case err := <-exited:
		t.Fatalf("the window exited (%v) while serving:\n%s", err, out.String())
	default:
	}
}
