package claude

import (
	"strings"
	"testing"
)

func TestStartAdvice(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"darwin":  "open -a Claude --args --remote-debugging-port=9333",
		"windows": "claude.exe --remote-debugging-port=9333",
		"linux":   "--remote-debugging-port=9333",
	}
	for goos, want := range tests {
		got := StartAdvice(goos, "9333")
		if !strings.Contains(got, want) {
			t.Errorf("StartAdvice(%s) = %q, want it to contain %q", goos, got, want)
		}
		// One paragraph, both routes: the flag and the main process debugger.
		if strings.Contains(got, "\n") || !strings.Contains(got, "Enable Main Process Debugger") || !strings.Contains(got, "http://127.0.0.1:9229") {
			t.Errorf("StartAdvice(%s) = %q, want one paragraph with the Developer menu route to port 9229", goos, got)
		}
	}
}
