package hosts

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/baton-app/baton/backend/claudecode"
	"github.com/baton-app/baton/backend/doctor"
	"github.com/baton-app/baton/backend/settings"
)

// ClaudeCodeOptions configure the ClaudeCode kind.
type ClaudeCodeOptions struct {
	// StateDir is where the host keeps its sessions (required to open it).
	StateDir string
	// Env is added to the environment of every CLI it starts.
	Env []string
	// Launcher starts the CLI; claudecode.Local (this machine) when nil.
	Launcher claudecode.Launcher
}

// ClaudeCode is the Claude Code CLI kind: one claude process per session,
// started through a launcher.
func ClaudeCode(o ClaudeCodeOptions) Kind {
	if o.Launcher == nil {
		o.Launcher = claudecode.Local{}
	}
	return claudeCodeKind{o}
}

type claudeCodeKind struct{ opts ClaudeCodeOptions }

var _ Program = claudeCodeKind{}

func (claudeCodeKind) Info() Info {
	return Info{Name: settings.HostClaudeCode, Label: claudecode.Label,
		Description: "One claude process per session, with your own login and environment.",
		Fields:      []string{"claudePath"}, SystemPrompt: true}
}

// Open checks the CLI's version once; its children start with the
// sessions.
func (k claudeCodeKind) Open(ctx context.Context, cfg settings.Settings, env Env) (Conn, error) {
	if k.opts.StateDir == "" {
		return nil, errors.New("no folder for the Claude Code sessions was given")
	}
	version, err := k.Version(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if claudecode.CompareVersions(version, claudecode.MinVersion) < 0 {
		return nil, fmt.Errorf("Claude Code %s is older than %s, the oldest Baton supports: update it (claude update)", version, claudecode.MinVersion)
	}
	h, err := claudecode.New(claudecode.Options{Path: cfg.ClaudePath, Launcher: k.opts.Launcher, StateDir: k.opts.StateDir,
		Env: k.opts.Env, Notices: env.Notices, Logger: env.Logger})
	if err != nil {
		return nil, err
	}
	return cliConn{h, version}, nil
}

func (k claudeCodeKind) Diagnose(ctx context.Context, cfg settings.Settings, _ InUse) doctor.Report {
	return claudecode.Diagnose(ctx, claudecode.DoctorOptions{Path: cfg.ClaudePath, Env: k.opts.Env, Launcher: k.opts.Launcher})
}

// Describe names the CLI with its version and path.
func (claudeCodeKind) Describe(s Status) string {
	name := "Claude Code CLI"
	if v := strings.TrimSpace(strings.TrimPrefix(s.Page, "Claude Code")); v != "" {
		name += " " + v
	}
	if s.Endpoint != "" {
		name += " (" + s.Endpoint + ")"
	}
	return name
}

// Find implements Program.
func (k claudeCodeKind) Find(cfg settings.Settings) (string, error) {
	return k.opts.Launcher.Find(cfg.ClaudePath)
}

// Version implements Program.
func (k claudeCodeKind) Version(ctx context.Context, cfg settings.Settings) (string, error) {
	return claudecode.Version(ctx, k.opts.Launcher, cfg.ClaudePath)
}

// cliConn is the Claude Code host as a Conn.
type cliConn struct {
	*claudecode.Host
	version string
}

func (c cliConn) Where() (string, string) { return c.Path(), "Claude Code " + c.version }

// Version is the CLI's version.
func (c cliConn) Version() string { return c.version }
