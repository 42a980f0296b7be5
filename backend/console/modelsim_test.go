package console

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/modelsim"
)

func TestModelSimHelpListsEveryScenario(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := runModelSim(context.Background(), []string{"--help"}, &out, &errb); code != 0 {
		t.Fatalf("--help: exit %d, %s", code, errb.String())
	}
	for _, s := range modelsim.Scenarios {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(s.Name) + ` +\S`).MatchString(out.String()) {
			t.Errorf("--help does not document %s:\n%s", s.Name, out.String())
		}
	}
	for _, flag := range []string{"-listen", "-scenario", "-scenario-for", "-log"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("--help lacks %s", flag)
		}
	}
}

func TestModelSimRefusesNonLoopback(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--listen", "0.0.0.0:0"}, {"--listen", "10.1.2.3:4000"}} {
		var out, errb bytes.Buffer
		code := runModelSim(context.Background(), args, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), "is not a loopback address") || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := runModelSim(context.Background(), []string{"--scenario-for", "x=nope"}, &out, &errb); code != 2 {
		t.Errorf("an unknown scenario: exit %d", code)
	}
}

// lockedBuffer is stdout written by the command while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestModelSimServesUntilStopped(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &lockedBuffer{}
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- runModelSim(ctx, []string{"--listen", "127.0.0.1:0", "--scenario", "overloaded"}, out, &errb)
	}()
	url := regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)
	var base string
	for deadline := time.Now().Add(5 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := url.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		t.Fatalf("no URL printed: %q", out.String())
	}
	resp, err := http.Post(base+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 529 {
		t.Errorf("the --scenario default: %d, want 529", resp.StatusCode)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d: %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("model-sim did not stop")
	}
}
