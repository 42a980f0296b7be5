package claude

import (
	"bufio"
	"context"
	"errors"
	"log/slog"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/session"
)

// fakeMain starts testdata/fakemain/main.js under a real Node inspector:
// a process that imitates Claude Desktop's main process (electron's
// webContents, a window whose LocalSessions runs in a separate VM context).
// It returns the inspector's http endpoint.
func fakeMain(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs node; skipped with -short")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed for the Node inspector test: %v", err)
	}
	main, _ := filepath.Abs("testdata/fakemain/main.js")
	cmd := exec.Command(node, "--inspect=127.0.0.1:0", main)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	re := regexp.MustCompile(`ws://(127\.0\.0\.1:\d+)/`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "ready" {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	var addr string
	select {
	case addr = <-found:
	case <-time.After(20 * time.Second):
		t.Fatal("the Node inspector did not say where it listens")
	}
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatal("the imitation of the main process did not start")
	}
	return "http://" + addr
}

// The Node inspector route: the endpoint is detected as an inspector (a
// target of type "node"), and every call reaches the window's LocalSessions
// through the main process, with values passed as data.
func TestInspectorRoute(t *testing.T) {
	t.Parallel()
	endpoint := fakeMain(t)
	ctx := testCtx(t)
	u, _ := chrome.ParseEndpoint(endpoint, false)
	if node, err := chrome.IsInspector(ctx, u); err != nil || !node {
		t.Fatalf("IsInspector = %v, %v", node, err)
	}
	h, err := Dial(ctx, chrome.Config{Endpoint: endpoint, Logger: slog.New(slog.DiscardHandler)}, Options{PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatalf("Dial through the inspector: %v", err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Close(cctx)
	})
	if h.Route() != EndpointInspector || h.Probe().Version != "fake-main/1" || !h.Probe().Has("getTranscript") {
		t.Fatalf("route %s, probe %+v", h.Route(), h.Probe())
	}
	// Text that would break code if it were pasted into it.
	msg := "it's \"quoted\" `tick` ${x} \\ '); throw new Error('pasted'); ('\n\u2028end"
	id, err := h.Start(ctx, session.StartOptions{Cwd: "/tmp", Message: msg})
	if err != nil {
		t.Fatalf("Start through the inspector: %v", err)
	}
	if !strings.Contains(h.Page(), "claude.ai") {
		t.Errorf("the calls ran in %q, not the app's window", h.Page())
	}
	var entries []map[string]any
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := h.Read(ctx, id, session.Cursor{})
		if err != nil {
			t.Fatal(err)
		}
		entries = nil
		for _, raw := range b.Entries {
			entries = append(entries, decodeEntry(t, raw))
		}
		if len(entries) == 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(entries) != 3 || entries[0]["message"].(map[string]any)["content"] != msg {
		t.Fatalf("transcript through the inspector: %v", entries)
	}
	si, err := h.Session(ctx, id)
	if err != nil || si.LastActivityAt.IsZero() || si.TurnRunning {
		t.Fatalf("session: %+v, %v", si, err)
	}
	// The window's events cannot reach Baton through the inspector: it polls.
	if err := h.Send(ctx, id, "again"); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-h.Notices():
		if n.SessionID != id {
			t.Errorf("notice for %s", n.SessionID)
		}
	case <-ctx.Done():
		t.Fatal("no notice from the poll")
	}
	// A page error keeps its message across executeJavaScript.
	if _, err := h.Read(ctx, id, session.Cursor{}); err != nil {
		t.Fatal(err)
	}
	err = h.SetModel(ctx, id, "x")
	var missing *MissingMethodError
	if !errors.As(err, &missing) || missing.Method != "setModel" {
		t.Errorf("a missing method through the inspector: %v", err)
	}

	r := Diagnose(ctx, DoctorOptions{Endpoint: endpoint, ChromePath: chromiumPath})
	inspectorNamed := false
	for _, c := range r.Checks {
		inspectorNamed = inspectorNamed || (c.Name == "page" && strings.Contains(c.Detail, "Node inspector"))
	}
	if !r.OK || r.Version != "fake-main/1" || !inspectorNamed {
		t.Errorf("doctor through the inspector: %+v", r.Checks)
	}
	// Asked for a page endpoint, the inspector is not one.
	if _, err := Dial(ctx, chrome.Config{Endpoint: endpoint}, Options{EndpointKind: EndpointPage}); err == nil {
		t.Error("a page connection to a Node inspector succeeded")
	}
}
