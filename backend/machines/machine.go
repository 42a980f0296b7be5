// Package machines runs Baton's workers on other machines over SSH: the
// targets the user keeps (machines.json beside settings.json), one shared
// OpenSSH connection per target, git moving a run's commits out to a copy
// of the repository in the target's workspace and each task's branch back,
// and a claudecode.Launcher that runs the Claude Code CLI there, so that a
// claudecode.Host built with it is a worker host on that machine.
//
// Its one rule: everything goes through the system's ssh with the user's
// own keys, agent, config and known_hosts; ssh never prompts, never
// trusts an unknown host key, and Baton stores no password and no value of
// a variable. It imports no engine, store or host registry.
package machines

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/claudecode"
	"github.com/baton-app/baton/backend/doctor"
	"github.com/baton-app/baton/backend/worktree"
)

// Options configure a Machine.
type Options struct {
	ClientOptions
	// Env is set on the machine for every CLI (KEY=VALUE), besides the
	// target's forwarded variables: what the host kind itself sets there.
	Env []string
	// TestTimeout bounds the doctor's tiny request; 90 seconds when zero.
	TestTimeout time.Duration
}

// Machine is a target in use: its shared connection and the launcher of
// its CLI.
type Machine struct {
	Client   *Client
	Launcher *Launcher
	opts     Options
}

// Open makes the Machine of target t; nothing connects until it is used.
func Open(t Target, opts Options) (*Machine, error) {
	c, err := NewClient(t, opts.ClientOptions)
	if err != nil {
		return nil, err
	}
	return &Machine{Client: c, Launcher: NewLauncher(c, opts.Env), opts: opts}, nil
}

// Target is the machine's target.
func (m *Machine) Target() Target { return m.Client.Target() }

// Repo returns the copy on the machine of the repository local is in.
func (m *Machine) Repo(ctx context.Context, local string) (*Repo, error) {
	return OpenRepo(ctx, m.Client, local)
}

// Close ends the shared connection; close the hosts that use its
// launcher first (their processes would end as lost).
func (m *Machine) Close(ctx context.Context) error { return m.Client.Close(ctx) }

// HostKind is the name of a machine's report, as a host kind's.
const HostKind = "machine"

var gitVersionRE = regexp.MustCompile(`git version (\d+\.\d+(?:\.\d+)?)`)

// Test is the machine's doctor: the SSH connection, git (at least
// worktree.MinVersion), a writable workspace, then claudecode's checks of
// the CLI run there (found, its version, one tiny request in a scratch
// folder of the workspace). It never fails: every problem is a failed
// check with a fix.
func (m *Machine) Test(ctx context.Context) doctor.Report {
	c, t := m.Client, m.Client.Target()
	r := doctor.Report{Host: HostKind, Label: "Machine " + t.Name, Target: t.Host}
	check := func(ch doctor.Check) { r.Checks = append(r.Checks, ch) }
	finish := func() doctor.Report {
		r.OK = len(r.Checks) > 0
		for _, ch := range r.Checks {
			r.OK = r.OK && ch.OK
		}
		if r.OK {
			r.Verdict = fmt.Sprintf("Baton can run up to %d workers on %s with Claude Code %s.", t.MaxWorkers, t.Name, r.Version)
		}
		return r
	}

	if err := c.Connect(ctx); err != nil {
		ch := doctor.Check{Name: "SSH connection", Detail: err.Error(), Fix: err.Error()}
		var se *SSHError
		if errors.As(err, &se) {
			ch.Detail = se.Problem.String()
			if se.Said != "" {
				ch.Detail += ": " + se.Said
			}
		}
		check(ch)
		return finish()
	}
	r.Target = c.Where(ctx)
	check(doctor.Check{Name: "SSH connection", OK: true, Detail: r.Target + " (one shared connection)"})

	out, err := c.Run(ctx, "run git --version", `git --version`)
	v := ""
	if m := gitVersionRE.FindStringSubmatch(out); m != nil {
		v = m[1]
	}
	switch {
	case err != nil:
		check(doctor.Check{Name: "Git", Detail: err.Error(), Fix: fmt.Sprintf("Install git %s or newer on %s (on the PATH of ssh commands).", worktree.MinVersion, t.Name)})
	case v == "":
		check(doctor.Check{Name: "Git", Detail: fmt.Sprintf("git --version printed %q", strings.TrimSpace(out)), Fix: fmt.Sprintf("Install git %s or newer on %s.", worktree.MinVersion, t.Name)})
	case !worktree.AtLeast(v, worktree.MinVersion):
		check(doctor.Check{Name: "Git", Detail: "git " + v, Fix: fmt.Sprintf("Update git on %s to %s or newer: Baton makes worktrees there.", t.Name, worktree.MinVersion)})
	default:
		check(doctor.Check{Name: "Git", OK: true, Detail: "git " + v})
	}

	ws, err := c.Workspace(ctx)
	scratch := ""
	if err == nil {
		scratch = path.Join(ws, ".baton-doctor-"+newToken())
		_, err = c.Run(ctx, "write in the workspace", `mkdir -m 700 -- "$1" && : > "$1/probe" && rm -f -- "$1/probe"`, scratch)
	}
	if err != nil {
		check(doctor.Check{Name: "Workspace", Detail: err.Error(), Fix: fmt.Sprintf("Make %s on %s a folder its user can write in (its parent must exist), or choose another workspace.", t.Workspace, t.Name)})
		return finish()
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := c.Run(cctx, "remove the doctor's folder", `rm -rf -- "$1"`, scratch); err != nil {
			c.log.Warn("the doctor's folder stays on the machine", "folder", scratch, "err", err)
		}
	}()
	check(doctor.Check{Name: "Workspace", OK: true, Detail: ws + " is writable"})

	cli := claudecode.Diagnose(ctx, claudecode.DoctorOptions{Launcher: m.Launcher, Path: t.ClaudePath, Dir: scratch, Timeout: m.opts.TestTimeout})
	for _, ch := range cli.Checks {
		if !ch.OK && ch.Fix != "" {
			ch.Fix = "On " + t.Name + ": " + ch.Fix
		}
		if ch.Name == "Claude Code CLI" && !ch.OK {
			ch.Fix = fmt.Sprintf("Install Claude Code on %s (curl -fsSL https://claude.ai/install.sh | bash) or give its path as the machine's claude path.", t.Name)
		}
		check(ch)
	}
	r.Version = cli.Version
	return finish()
}
