package console

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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

// Without consent, "baton probe" records nothing.
func TestProbeNeedsConsent(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "probe.json")
	var stdout, stderr bytes.Buffer
	code := ProbeCLI([]string{"--out", out, "--cdp", "http://127.0.0.1:1"}, strings.NewReader("n\n"), &stdout, &stderr)
	if code != 1 || !strings.Contains(stdout.String(), "Record? [y/N]") || !strings.Contains(stdout.String(), "Nothing was recorded") {
		t.Fatalf("exit %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a file was written without consent: %v", err)
	}
	if code := ProbeCLI(nil, strings.NewReader(""), &stdout, &stderr); code != 2 {
		t.Fatalf("no --out: exit %d, want 2", code)
	}
}
