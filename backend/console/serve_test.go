package console

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/baton-app/baton/backend/remote"
	"github.com/baton-app/baton/backend/service"
)

// serveApp stands for the window's bindings over the services.
type serveApp struct{ svc *service.Services }

func (a serveApp) TemplateCount() (int, error) {
	list, err := a.svc.Templates.List()
	return len(list), err
}

var serveBuild = Build{
	Version:  "test",
	Frontend: fstest.MapFS{"index.html": {Data: []byte("<!doctype html><html><head></head><body>Baton</body></html>")}},
	Bindings: func(svc *service.Services, _ *remote.Access) any { return serveApp{svc} },
}

var (
	servingAt = regexp.MustCompile(`Baton serves its window at (\S+)`)
	linkLine  = regexp.MustCompile(`(?m)^  (https?://\S+/login\?token=\S+)$`)
)

// startServe runs "baton serve args" until the test ends; it returns the
// output once Baton says where it serves, and a function that stops it and
// returns its exit code.
func startServe(t *testing.T, args ...string) (*lockedBuffer, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, errOut := &lockedBuffer{}, &lockedBuffer{}
	done := make(chan int, 1)
	go func() { done <- serve(ctx, serveBuild, args, out, errOut) }()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "Ctrl-C") {
		select {
		case code := <-done:
			cancel()
			t.Fatalf("baton serve ended (%d)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("baton serve did not start\nstdout:\n%s\nstderr:\n%s", out, errOut)
		}
		time.Sleep(20 * time.Millisecond)
	}
	stopped := false
	var code int
	stop := func() int {
		if !stopped {
			stopped = true
			cancel()
			code = <-done
		}
		return code
	}
	t.Cleanup(func() { stop() })
	return out, stop
}

func browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
}

func callTemplateCount(t *testing.T, c *http.Client, base string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"api/call/TemplateCount", strings.NewReader("[]"))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestServe is "baton serve": the first start shows the link once, which
// signs a browser in to call the bindings; a restart keeps it; --new-link
// signs every browser out.
func TestServe(t *testing.T) {
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	out, stop := startServe(t, "--listen", "127.0.0.1:0")
	m, l := servingAt.FindStringSubmatch(out.String()), linkLine.FindStringSubmatch(out.String())
	if m == nil || l == nil || !strings.HasPrefix(m[1], "http://127.0.0.1:") {
		t.Fatalf("output:\n%s", out)
	}
	base, link := m[1], l[1]
	if strings.Contains(out.String(), "fingerprint") {
		t.Errorf("a fingerprint on loopback:\n%s", out)
	}
	c := browser()
	if n, body := callTemplateCount(t, c, base); n != http.StatusUnauthorized {
		t.Errorf("before signing in: %d %s", n, body)
	}
	resp, err := c.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n, body := callTemplateCount(t, c, base); n != http.StatusOK || !regexp.MustCompile(`^\{"result":[1-9]\d*\}$`).MatchString(body) {
		t.Errorf("TemplateCount: %d %s", n, body)
	}
	if code := stop(); code != ExitOK {
		t.Fatalf("exit %d", code)
	}

	// Again on the same port: the browser is still signed in; no link is shown.
	port := base[strings.LastIndex(base, ":")+1 : len(base)-1]
	out, stop = startServe(t, "--listen", "127.0.0.1:"+port)
	if linkLine.MatchString(out.String()) || !strings.Contains(out.String(), "--new-link") {
		t.Errorf("a restart showed a link:\n%s", out)
	}
	if n, _ := callTemplateCount(t, c, base); n != http.StatusOK {
		t.Errorf("after a restart: %d", n)
	}
	stop()

	out, _ = startServe(t, "--listen", "127.0.0.1:"+port, "--new-link")
	l = linkLine.FindStringSubmatch(out.String())
	if l == nil || l[1] == link {
		t.Fatalf("--new-link:\n%s", out)
	}
	if n, _ := callTemplateCount(t, c, base); n != http.StatusUnauthorized {
		t.Errorf("the old cookie after --new-link: %d", n)
	}
}

// TestServeBeyondLoopback: on every address Baton serves HTTPS and shows
// the certificate's fingerprint.
func TestServeBeyondLoopback(t *testing.T) {
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	out, _ := startServe(t, "--listen", "0.0.0.0:0")
	m := servingAt.FindStringSubmatch(out.String())
	fp := regexp.MustCompile(`(?m)^  ((?:[0-9A-F]{2}:){31}[0-9A-F]{2})$`).FindStringSubmatch(out.String())
	if m == nil || !strings.HasPrefix(m[1], "https://") || fp == nil {
		t.Fatalf("output:\n%s", out)
	}
	_, port, _ := strings.Cut(strings.TrimPrefix(strings.TrimSuffix(m[1], "/"), "https://"), ":")
	conn, err := tls.Dial("tcp", "127.0.0.1:"+port, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if got := remote.Fingerprint(conn.ConnectionState().PeerCertificates[0].Raw); got != fp[1] {
		t.Errorf("the certificate's fingerprint is %s, the output says %s", got, fp[1])
	}
}

func TestServeBadUsage(t *testing.T) {
	t.Setenv("BATON_CONFIG_DIR", t.TempDir())
	for _, args := range [][]string{{"extra"}, {"--listen", "nonsense"}, {"--nope"}} {
		var out, errOut bytes.Buffer
		if code := serve(context.Background(), serveBuild, args, &out, &errOut); code != ExitUsage || errOut.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut.String())
		}
	}
	var errOut bytes.Buffer
	if code := serve(context.Background(), Build{}, nil, io.Discard, &errOut); code != ExitError || !strings.Contains(errOut.String(), "no window") {
		t.Errorf("a build without a window: %d %q", code, errOut.String())
	}
}
