package remote

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"image/png"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func newAccess(t *testing.T, dir string, headless bool) *Access {
	t.Helper()
	a, err := NewAccess(AccessOptions{Dir: dir, Assets: frontend, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Headless: headless})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBindings(&fakeApp{})
	if err != nil {
		t.Fatal(err)
	}
	a.Serve(b)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := a.Stop(ctx); err != nil {
			t.Error(err)
		}
	})
	return a
}

func stop(t *testing.T, a *Access) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.TurnOff(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestAccessOnLoopback: the first start makes the token and shows its link
// once (with a QR code); the next start keeps it; the window's choice is
// kept for its next start.
func TestAccessOnLoopback(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := newAccess(t, dir, false)
	link, err := a.Start("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	st := link.Status
	if !st.Running || st.TLS || st.Fingerprint != "" || !st.HasLink || !strings.HasPrefix(link.URL, st.URL+"login?token=") {
		t.Fatalf("first start: %+v", link)
	}
	if !strings.HasPrefix(link.QR, "data:image/png;base64,") {
		t.Fatalf("QR %.40q", link.QR)
	}
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(link.QR, "data:image/png;base64,"))
	if img, err := png.Decode(bytes.NewReader(raw)); err != nil || img.Bounds().Dx() != 320 {
		t.Errorf("the QR code is not a 320 px PNG: %v", err)
	}
	if _, err := a.Start("127.0.0.1:0", false); !errors.Is(err, ErrRunning) {
		t.Errorf("a second Start: %v", err)
	}
	// The link signs a browser in.
	resp, err := http.Get(link.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(resp.Cookies()) != 1 {
		t.Errorf("the link: %d %v", resp.StatusCode, resp.Cookies())
	}
	if serves, _, _ := a.Config().Window(); !serves {
		t.Error("the window's choice to serve was not kept")
	}
	stop(t, a)
	if serves, _, _ := a.Config().Window(); serves {
		t.Error("turned off, the window would still serve at its next start")
	}
	if _, err := http.Get(st.URL); err == nil {
		t.Error("still serving after TurnOff")
	}
	again, err := a.Start("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	if again.URL != "" || again.QR != "" || !again.Status.HasLink {
		t.Errorf("a later start showed a link again: %+v", again)
	}
	if _, err := a.NewLink(); err != nil {
		t.Fatal(err)
	}
}

// TestResumeAtTheWindowsStart: a window that served when it closed serves
// again, with the same token.
func TestResumeAtTheWindowsStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	port := freePort(t)
	first := newAccess(t, dir, false)
	link, err := first.Start(net.JoinHostPort("127.0.0.1", port), false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := first.Stop(ctx); err != nil { // the window closes
		t.Fatal(err)
	}
	second := newAccess(t, dir, false)
	if started, err := second.Resume(); !started || err != nil {
		t.Fatalf("Resume: %v %v", started, err)
	}
	resp, err := http.Get(link.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the link after a restart: %d", resp.StatusCode)
	}
	// A headless Access never resumes the window's choice.
	if started, _ := newAccess(t, dir, true).Resume(); started {
		t.Error("a headless Access resumed")
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// TestAccessBeyondLoopbackUsesTLS: on all addresses Baton serves HTTPS
// with a certificate made once, whose fingerprint is the one shown.
func TestAccessBeyondLoopbackUsesTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := newAccess(t, dir, true)
	link, err := a.Start("0.0.0.0:0", false)
	if err != nil {
		t.Fatal(err)
	}
	st := link.Status
	if !st.TLS || !strings.HasPrefix(st.URL, "https://") || len(st.Fingerprint) != 95 {
		t.Fatalf("status: %+v", st)
	}
	if st.Headless == false {
		t.Error("a headless Access says it is not")
	}
	info, err := os.Stat(filepath.Join(dir, KeyFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the key file: %v %v", info, err)
	}
	_, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(st.URL, "https://"), "/"))
	presented := func() string {
		conn, err := tls.Dial("tcp", net.JoinHostPort("127.0.0.1", port), &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return Fingerprint(conn.ConnectionState().PeerCertificates[0].Raw)
	}
	if got := presented(); got != st.Fingerprint {
		t.Errorf("the server presents %s, the status shows %s", got, st.Fingerprint)
	}
	// Plain HTTP is not answered with Baton.
	if resp, err := http.Get("http://127.0.0.1:" + port + "/"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("plain HTTP served the page")
		}
	}
	stop(t, a)
	again, err := a.Start("0.0.0.0:0", false)
	if err != nil {
		t.Fatal(err)
	}
	if again.Status.Fingerprint != st.Fingerprint {
		t.Error("a new certificate was made instead of the kept one")
	}
	// Behind a proxy: plain HTTP on every address.
	stop(t, a)
	proxied, err := a.Start("0.0.0.0:0", true)
	if err != nil {
		t.Fatal(err)
	}
	if proxied.Status.TLS || !strings.HasPrefix(proxied.Status.URL, "http://") {
		t.Errorf("behind a proxy: %+v", proxied.Status)
	}
}

func TestNewLinkNeedsTheServer(t *testing.T) {
	t.Parallel()
	a := newAccess(t, t.TempDir(), true)
	if _, err := a.NewLink(); !errors.Is(err, ErrNotRunning) {
		t.Errorf("NewLink while off: %v", err)
	}
	if _, err := a.Start("nonsense", false); !errors.Is(err, ErrBadListen) {
		t.Errorf("Start on nonsense: %v", err)
	}
}

func TestTerminalQR(t *testing.T) {
	t.Parallel()
	s, err := TerminalQR("http://127.0.0.1:8390/login?token=abc")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) < 10 || !strings.ContainsAny(s, "█▀▄") {
		t.Errorf("not a QR code:\n%s", s)
	}
	w := len([]rune(lines[0]))
	for _, l := range lines {
		if len([]rune(l)) != w {
			t.Fatalf("ragged lines:\n%s", s)
		}
	}
}
