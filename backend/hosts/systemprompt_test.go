package hosts

import (
	"testing"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/settings"
)

// The Manager takes a system prompt apart only while the settings choose
// the Claude Code CLI, whose sessions get it with --append-system-prompt;
// Claude Desktop and the simulator keep it in the first message.
func TestManagerTakesSystemPromptForClaudeCodeOnly(t *testing.T) {
	for host, want := range map[settings.Host]bool{
		settings.HostClaudeCode: true, settings.HostDesktop: false, settings.HostSimulator: false,
	} {
		cfg := settings.Defaults()
		cfg.Host = host
		if got := session.TakesSystemPrompt(New(cfg, Options{Kinds: testKinds(t, 1)})); got != want {
			t.Errorf("host %s: TakesSystemPrompt %v, want %v", host, got, want)
		}
	}
}
