package console

import (
	"testing"

	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/settings"
)

// The header names the host as it is, not as the setting is called: the
// simulator attached over CDP is not Claude Desktop.
func TestHostNameIsTruthful(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    hosts.Status
		want string
	}{
		{hosts.Status{Host: settings.HostSimulator, Label: "Simulator — no AI"}, "the embedded simulator (no AI)"},
		{hosts.Status{Host: settings.HostDesktop, Label: "Claude Desktop", Endpoint: "http://127.0.0.1:9222",
			Page: "http://127.0.0.1:41234/baton-simulator/"}, "the simulator (baton sim, no AI) at http://127.0.0.1:9222"},
		{hosts.Status{Host: settings.HostDesktop, Label: "Claude Desktop", Endpoint: "http://127.0.0.1:9222",
			Page: "https://claude.ai/new"}, "Claude Desktop at http://127.0.0.1:9222"},
		{hosts.Status{Host: settings.HostClaudeCode, Label: "Claude Code (CLI)", Endpoint: "/usr/bin/claude",
			Page: "Claude Code 2.0.1"}, "Claude Code CLI 2.0.1 (/usr/bin/claude)"},
	} {
		if got := hostName(tc.s); got != tc.want {
			t.Errorf("hostName(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
