package hosts

import (
	"context"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/doctor"
	"github.com/baton-app/baton/backend/settings"
)

// Desktop is the Claude Desktop kind: the LocalSessions adapter attached
// to the app's DevTools endpoint (or its main process's Node inspector).
func Desktop() Kind { return desktopKind{} }

type desktopKind struct{}

func (desktopKind) Info() Info {
	return Info{Name: settings.HostDesktop, Label: "Claude Desktop",
		Description: "Your Claude Desktop app, reached over its DevTools port.",
		Fields:      []string{"cdpEndpoint", "pagePattern", "allowRemoteCdp", "pollIntervalMs"}}
}

func (desktopKind) Open(ctx context.Context, cfg settings.Settings, env Env) (Conn, error) {
	h, err := claude.Dial(ctx, chrome.Config{
		Endpoint:     cfg.CDPEndpoint,
		AllowRemote:  cfg.AllowRemoteCDP,
		PagePatterns: pagePatterns(cfg),
		Logger:       env.Logger,
	}, adapterOptions(cfg, env))
	if err != nil {
		return nil, err
	}
	return cdpConn{h}, nil
}

// Diagnose probes cfg's endpoint; it needs no connection of the Manager's.
func (desktopKind) Diagnose(ctx context.Context, cfg settings.Settings, _ InUse) doctor.Report {
	return claude.Diagnose(ctx, claude.DoctorOptions{
		Endpoint:     cfg.CDPEndpoint,
		AllowRemote:  cfg.AllowRemoteCDP,
		PagePatterns: pagePatterns(cfg),
		ChromePath:   cfg.ChromePath,
	})
}

// Describe tells "baton sim" attached over CDP from Claude Desktop.
func (desktopKind) Describe(s Status) string {
	if strings.Contains(s.Page, claude.SimulatorPattern) {
		return "the simulator (baton sim, no AI) at " + orUnknown(s.Endpoint)
	}
	return "Claude Desktop at " + orUnknown(s.Endpoint)
}

func orUnknown(s string) string {
	if s == "" {
		return "an endpoint not connected yet"
	}
	return s
}

// pagePatterns is the user's page pattern, or nil for the usual ones.
func pagePatterns(cfg settings.Settings) []string {
	if p := strings.TrimSpace(cfg.PagePattern); p != "" {
		return []string{p}
	}
	return nil
}

// adapterOptions are the LocalSessions adapter's options of the kinds
// that use it: its notices go to the Manager, and the CDP connection's own
// status changes (reconnects) are reported.
func adapterOptions(cfg settings.Settings, env Env) claude.Options {
	opts := claude.Options{
		Logger:       env.Logger,
		Notices:      env.Notices,
		PollInterval: time.Duration(cfg.PollIntervalMs) * time.Millisecond,
	}
	if env.Report != nil {
		opts.OnStatus = func(s chrome.Status) { env.Report(cdpStatus(s)) }
	}
	return opts
}

// cdpStatus is a CDP connection's status as the Manager's.
func cdpStatus(s chrome.Status) Status {
	state := StateDisconnected
	switch s.State {
	case chrome.Connected:
		state = StateConnected
	case chrome.Reconnecting:
		state = StateReconnecting
	}
	return Status{State: state, Reason: s.Reason, Page: s.Page}
}

// cdpConn is the LocalSessions adapter as a Conn.
type cdpConn struct{ *claude.Host }

func (c cdpConn) Where() (string, string) { return c.Endpoint(), c.Page() }
