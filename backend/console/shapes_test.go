package console

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A port that never opens: the fix is one paragraph with both routes.
func TestDoctorClosedPortOneParagraph(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	dead := srv.URL
	srv.Close()
	var out, errOut bytes.Buffer
	if code := DoctorCLI([]string{"--cdp", dead}, &out, &errOut); code != 1 {
		t.Fatalf("doctor exit %d, want 1", code)
	}
	var fix string
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "fix: Nothing answers at") {
			fix = line
		}
	}
	if fix == "" || !strings.Contains(fix, "--remote-debugging-port=") || !strings.Contains(fix, "Enable Main Process Debugger") || !strings.Contains(fix, "127.0.0.1:9229") {
		t.Fatalf("the fix is not one paragraph with both routes:\n%s", out.String())
	}
}

func TestSimRejectsUnknownShape(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := SimCLI([]string{"--shapes", "wrapped-results,bogus"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), `unknown shape "bogus"`) {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
}
