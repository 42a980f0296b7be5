package claudecode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Local is the Launcher of this machine: children of Baton in their own
// process group (a Job object on Windows) that die with Baton (on Linux
// even when Baton is killed), found on PATH, with the CLI's conversations
// under $CLAUDE_CONFIG_DIR or $HOME/.claude of their environment.
type Local struct {
	// Logger hears what could not be set up; slog.Default when nil.
	Logger *slog.Logger
}

var _ Launcher = Local{}

// Find implements Launcher.
func (Local) Find(path string) (string, error) { return FindBinary(path) }

// FindBinary returns the path of the claude binary on this machine: path
// itself when it is given (it must exist), else "claude" on PATH.
func FindBinary(path string) (string, error) {
	if path == "" {
		p, err := exec.LookPath("claude")
		if err != nil {
			return "", errors.New("the Claude Code CLI (claude) is not on PATH: install it (npm install -g @anthropic-ai/claude-code) or give its path")
		}
		return p, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("the Claude Code CLI is not at %s: install it there or give the right path", path)
	}
	if st.IsDir() {
		return "", fmt.Errorf("%s is a folder, not the Claude Code CLI: give the path of the claude binary", path)
	}
	return path, nil
}

// Start implements Launcher.
func (l Local) Start(ctx context.Context, c Command) (Process, error) {
	cmd := exec.CommandContext(ctx, c.Path, c.Args...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.SysProcAttr = childAttr()
	cmd.Stderr = c.Stderr
	p := &localProcess{cmd: cmd}
	cmd.Cancel = func() error { p.End(true); return nil }
	// Output a grandchild keeps open does not hold Wait for ever.
	cmd.WaitDelay = 5 * time.Second
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	} else if p.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run %s: %w", c.Path, err)
	}
	if err := p.attach(); err != nil {
		log := l.Logger
		if log == nil {
			log = slog.Default()
		}
		log.Warn("the tools claude starts may outlive it", "component", "claudecode", "pid", cmd.Process.Pid, "err", err)
	}
	return p, nil
}

// HasConversation implements Launcher: the CLI keeps conversation u as
// projects/*/u.jsonl under CLAUDE_CONFIG_DIR, else $HOME/.claude, of env.
func (Local) HasConversation(env []string, u string) bool {
	home, config := ConfigEnv(env)
	if config == "" {
		if home == "" {
			return false
		}
		config = filepath.Join(home, ".claude")
	}
	m, _ := filepath.Glob(filepath.Join(config, "projects", "*", u+".jsonl"))
	return len(m) > 0
}

// CheckDir implements Launcher.
func (Local) CheckDir(_ context.Context, dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	return nil
}

// ConfigEnv returns HOME and CLAUDE_CONFIG_DIR of env (the last of each,
// "" when missing): the CLI keeps its conversations under the second, else
// under .claude in the first.
func ConfigEnv(env []string) (home, config string) {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME":
			home = v
		case "CLAUDE_CONFIG_DIR":
			config = v
		}
	}
	return home, config
}

// localProcess is a child of Baton.
type localProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	group  // the child and what it starts: a process group, or a Job object
}

func (p *localProcess) Stdin() io.WriteCloser { return p.stdin }
func (p *localProcess) Stdout() io.Reader     { return p.stdout }
func (p *localProcess) Wait() error           { return p.cmd.Wait() }
func (p *localProcess) PID() int              { return p.cmd.Process.Pid }
