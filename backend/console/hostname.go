package console

import (
	"strings"

	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/settings"
)

// hostName names the host a run uses truthfully, from its connection:
// the simulator Baton embeds, "baton sim" attached over CDP, Claude Desktop
// at its endpoint, or the Claude Code CLI with its version and path.
func hostName(s hosts.Status) string {
	switch s.Host {
	case settings.HostSimulator:
		return "the embedded simulator (no AI)"
	case settings.HostClaudeCode:
		name := "Claude Code CLI"
		if v := strings.TrimSpace(strings.TrimPrefix(s.Page, "Claude Code")); v != "" {
			name += " " + v
		}
		if s.Endpoint != "" {
			name += " (" + s.Endpoint + ")"
		}
		return name
	case settings.HostDesktop:
		if strings.Contains(s.Page, claude.SimulatorPattern) {
			return "the simulator (baton sim, no AI) at " + orUnknown(s.Endpoint)
		}
		return "Claude Desktop at " + orUnknown(s.Endpoint)
	}
	return s.Label
}

func orUnknown(s string) string {
	if s == "" {
		return "an endpoint not connected yet"
	}
	return s
}
