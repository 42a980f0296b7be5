package machines

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ClientOptions configure a Client.
type ClientOptions struct {
	// SSH is the ssh binary; "ssh" on PATH when empty.
	SSH string
	// ConfigFile is given to ssh as -F; the user's own ssh configuration
	// when empty.
	ConfigFile string
	// SocketDir holds the shared connection's socket; a new private
	// (0700) folder under the temporary folder when empty, removed by
	// Close.
	SocketDir string
	// Persist is how long the shared connection outlives its last command
	// (ControlPersist); 10 minutes when zero.
	Persist time.Duration
	// ConnectTimeout bounds making the connection; 15 seconds when zero.
	ConnectTimeout time.Duration
	// AliveInterval is how often ssh checks that the machine answers
	// (ServerAliveInterval); a connection that misses three is lost. 5
	// seconds when zero.
	AliveInterval time.Duration
	// Logger; slog.Default when nil.
	Logger *slog.Logger
}

// Client runs commands on one machine through the system OpenSSH client,
// all over one shared connection (ControlMaster, its socket in a private
// folder). ssh never prompts (BatchMode) and checks the machine's host key
// against the user's known_hosts (StrictHostKeyChecking=yes): an unknown
// key is refused with the command that trusts it. It is safe for
// concurrent use.
type Client struct {
	target Target
	dest   Destination
	opts   ClientOptions
	dir    string
	ownDir bool
	log    *slog.Logger

	connect sync.Mutex // one connection attempt at a time

	mu        sync.Mutex
	config    map[string]string // ssh -G, once read
	workspace string            // the absolute workspace, once resolved
	closed    bool
}

// NewClient makes a Client for t; nothing connects until a command runs.
func NewClient(t Target, opts ClientOptions) (*Client, error) {
	t = t.Normalized()
	if err := t.Validate(); err != nil {
		return nil, err
	}
	dest, _ := ParseDestination(t.Host)
	if opts.SSH == "" {
		opts.SSH = "ssh"
	}
	if opts.Persist <= 0 {
		opts.Persist = 10 * time.Minute
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 15 * time.Second
	}
	if opts.AliveInterval <= 0 {
		opts.AliveInterval = 5 * time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	c := &Client{target: t, dest: dest, opts: opts, dir: opts.SocketDir, log: log.With("component", "machines", "machine", t.Name)}
	if c.dir == "" {
		dir, err := os.MkdirTemp("", "baton-ssh-")
		if err != nil {
			return nil, fmt.Errorf("make the folder of the ssh connection's socket: %w", err)
		}
		c.dir, c.ownDir = dir, true
	} else if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return nil, fmt.Errorf("make the folder of the ssh connection's socket: %w", err)
	}
	if err := os.Chmod(c.dir, 0o700); err != nil {
		return nil, fmt.Errorf("make the folder of the ssh connection's socket private: %w", err)
	}
	return c, nil
}

// Target is the machine the client reaches.
func (c *Client) Target() Target { return c.target }

// Destination is the parsed Target.Host.
func (c *Client) Destination() Destination { return c.dest }

// options are the ssh options of every command; only a master command
// makes the shared connection.
func (c *Client) options(master bool) []string {
	var o []string
	if c.opts.ConfigFile != "" {
		o = append(o, "-F", c.opts.ConfigFile)
	}
	if master {
		o = append(o, "-o", "ControlMaster=auto")
	} else {
		// Only the shared connection holds the forwards of the user's
		// config.
		o = append(o, "-o", "ControlMaster=no", "-o", "ClearAllForwardings=yes")
	}
	return append(o,
		"-o", "ControlPath="+filepath.Join(c.dir, "%C"),
		"-o", "ControlPersist="+strconv.Itoa(int(c.opts.Persist.Seconds())),
		"-o", "BatchMode=yes",
		"-o", "StrictHostKeyChecking=yes",
		"-o", "ConnectTimeout="+strconv.Itoa(int(c.opts.ConnectTimeout.Seconds())),
		"-o", "ServerAliveInterval="+strconv.Itoa(int(c.opts.AliveInterval.Seconds())),
		"-o", "ServerAliveCountMax=3",
	)
}

// command is ssh running remote (a command line for the machine's login
// shell) without a terminal, over the shared connection (or, when that is
// down or full, one of its own). It never makes the shared connection
// itself (Connect does), so that ending it never ends the others'.
func (c *Client) command(ctx context.Context, remote string) *exec.Cmd {
	args := append(c.options(false), "-T", "--", c.dest.SSH(), remote)
	cmd := exec.CommandContext(ctx, c.opts.SSH, args...)
	cmd.Env = sshEnv()
	return cmd
}

// sshEnv is Baton's environment for ssh, in the C locale so that its
// messages can be read.
func sshEnv() []string {
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "LC_ALL" || k == "LANG" || k == "LANGUAGE" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C")
}

// GitSSHCommand is the GIT_SSH_COMMAND that makes git use the shared
// connection with the same checks.
func (c *Client) GitSSHCommand() string {
	return shellJoin(append([]string{c.opts.SSH}, c.options(false)...))
}

// Connect makes the shared connection unless it is up. Its errors are
// *SSHError: the machine could not be reached, its host key is unknown or
// changed, or the login was refused.
func (c *Client) Connect(ctx context.Context) error {
	c.connect.Lock()
	defer c.connect.Unlock()
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return fmt.Errorf("the connection to %s is closed", c.target.Name)
	}
	if c.check(ctx) {
		return nil
	}
	// The first command makes the shared connection, which stays in the
	// background (ControlPersist) after it; ssh sends the background
	// connection's output to /dev/null.
	args := append(c.options(true), "-T", "--", c.dest.SSH(), "true")
	cmd := exec.CommandContext(ctx, c.opts.SSH, args...)
	cmd.Env = sshEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if err == nil {
		c.log.Debug("connected", "destination", c.dest.String())
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("connect to %s: %w", c.target.Name, ctx.Err())
	}
	if errors.Is(err, exec.ErrNotFound) {
		return errors.New("the OpenSSH client (ssh) is not installed or not on PATH: install it (apt install openssh-client) to use other machines")
	}
	return c.classify(ctx, stderr.String())
}

// check reports whether the shared connection is up.
func (c *Client) check(ctx context.Context) bool {
	args := append(c.options(false), "-O", "check", "--", c.dest.SSH())
	cmd := exec.CommandContext(ctx, c.opts.SSH, args...)
	cmd.Env = sshEnv()
	return cmd.Run() == nil
}

// Run runs script with /bin/sh on the machine, its arguments as $1, $2,
// …, over the shared connection (made first when needed), and returns what
// it wrote to its standard output. A connection that fails is an
// *SSHError, a script that fails a *CommandError (what says what it was
// for).
func (c *Client) Run(ctx context.Context, what, script string, args ...string) (string, error) {
	if err := c.Connect(ctx); err != nil {
		return "", err
	}
	cmd := c.command(ctx, shellScript(script, args...))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.String(), nil
	}
	if ctx.Err() != nil {
		return stdout.String(), fmt.Errorf("%s on %s: %w", what, c.target.Name, ctx.Err())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() != 255 {
		return stdout.String(), &CommandError{Machine: c.target.Name, What: what, Code: exit.ExitCode(), Said: lastLines(stderr.String(), 3)}
	}
	return stdout.String(), c.classify(ctx, stderr.String())
}

// classify turns what ssh said when it exited with status 255 into an
// *SSHError with the sentence for the user.
func (c *Client) classify(ctx context.Context, said string) *SSHError {
	e := &SSHError{Machine: c.target.Name, Problem: ProblemLost, Said: lastLines(said, 3)}
	low := strings.ToLower(said)
	host, port, user, known := c.resolved(ctx)
	where := host
	if port != "22" {
		where += " port " + port
	}
	switch {
	case strings.Contains(low, "remote host identification has changed"), strings.Contains(low, "host key for") && strings.Contains(low, "has changed"):
		e.Problem = ProblemChangedHostKey
		name := host
		if port != "22" {
			name = "[" + host + "]:" + port
		}
		e.Fix = fmt.Sprintf("The SSH host key of %s has changed since you trusted it, so Baton refuses to connect to %s: someone may be intercepting the connection, or the machine was reinstalled. If you know why it changed, remove the old key with `ssh-keygen -f %s -R %s` and trust the new one.",
			where, c.target.Name, known, shellQuote(name))
	case strings.Contains(low, "host key verification failed"), strings.Contains(low, "host key is known for"):
		e.Problem = ProblemUnknownHostKey
		scan := "ssh-keyscan"
		if port != "22" {
			scan += " -p " + port
		}
		scan += " " + shellQuote(host) + " >> " + shellQuote(known)
		accept := []string{"ssh"}
		if c.opts.ConfigFile != "" {
			accept = append(accept, "-F", c.opts.ConfigFile)
		}
		accept = append(accept, "-o", "StrictHostKeyChecking=accept-new", c.dest.SSH(), "true")
		e.Fix = fmt.Sprintf("The SSH host key of %s is not in your known hosts (%s), so Baton refuses to connect to %s: check the key's fingerprint with the machine's owner, then trust it with `%s` or by connecting once with `%s`.",
			where, known, c.target.Name, scan, shellJoin(accept))
	case strings.Contains(low, "permission denied"), strings.Contains(low, "too many authentication failures"), strings.Contains(low, "no supported authentication methods"):
		e.Problem = ProblemLogin
		copyID := "ssh-copy-id " + shellQuote(c.dest.Alias)
		if c.dest.Alias == "" {
			copyID = "ssh-copy-id"
			if c.dest.Port != 0 {
				copyID += " -p " + strconv.Itoa(c.dest.Port)
			}
			copyID += " " + shellQuote(user+"@"+c.dest.Host)
		}
		e.Fix = fmt.Sprintf("%s (%s) refused the login as %s: Baton uses your SSH keys and agent and never asks for a password; add your public key to ~/.ssh/authorized_keys there (`%s`) or load it into your agent (`ssh-add`), then test again.",
			c.target.Name, where, user, copyID)
	case strings.Contains(low, "could not resolve hostname"), strings.Contains(low, "connection refused"), strings.Contains(low, "connection timed out"),
		strings.Contains(low, "operation timed out"), strings.Contains(low, "no route to host"), strings.Contains(low, "network is unreachable"):
		e.Problem = ProblemUnreachable
		e.Fix = fmt.Sprintf("Baton cannot reach %s (%s): ssh said %q. Check that the machine is on and its SSH server runs, then test again.", c.target.Name, where, e.Said)
	default:
		said := e.Said
		if said == "" {
			said = "the connection closed"
		}
		e.Fix = fmt.Sprintf("The SSH connection to %s (%s) is lost: %s.", c.target.Name, where, strings.TrimSuffix(said, "."))
	}
	return e
}

// resolved is the host name, port, user and known_hosts file ssh uses for
// the destination (ssh -G, which connects nowhere), for sentences.
func (c *Client) resolved(ctx context.Context) (host, port, user, known string) {
	c.mu.Lock()
	cfg := c.config
	c.mu.Unlock()
	if cfg == nil {
		cfg = map[string]string{}
		args := append(c.options(false), "-G", "--", c.dest.SSH())
		cmd := exec.CommandContext(ctx, c.opts.SSH, args...)
		cmd.Env = sshEnv()
		if out, err := cmd.Output(); err == nil {
			for _, l := range strings.Split(string(out), "\n") {
				k, v, _ := strings.Cut(l, " ")
				if _, ok := cfg[k]; !ok {
					cfg[k] = v
				}
			}
			c.mu.Lock()
			c.config = cfg
			c.mu.Unlock()
		}
	}
	host, port, user = cfg["hostname"], cfg["port"], cfg["user"]
	known, _, _ = strings.Cut(cfg["userknownhostsfile"], " ")
	if host == "" {
		host = c.dest.Host
		if host == "" {
			host = c.dest.Alias
		}
	}
	if port == "" {
		port = "22"
		if c.dest.Port != 0 {
			port = strconv.Itoa(c.dest.Port)
		}
	}
	if user == "" {
		user = c.dest.User
	}
	if known == "" {
		known = "~/.ssh/known_hosts"
	}
	return host, port, user, known
}

// Where names the machine for a report: user@host port N.
func (c *Client) Where(ctx context.Context) string {
	host, port, user, _ := c.resolved(ctx)
	s := host
	if user != "" {
		s = user + "@" + s
	}
	if port != "22" {
		s += " port " + port
	}
	return s
}

// Workspace returns the target's workspace as an absolute path on the
// machine, making the folder (mode 0700) when it is missing; its parent
// must exist (Baton writes nothing outside the workspace).
func (c *Client) Workspace(ctx context.Context) (string, error) {
	c.mu.Lock()
	ws := c.workspace
	c.mu.Unlock()
	if ws != "" {
		return ws, nil
	}
	out, err := c.Run(ctx, "make the workspace "+c.target.Workspace, `w=$1
case $w in "~") w=$HOME ;; "~/"*) w=$HOME/${w#"~/"} ;; esac
if [ ! -d "$w" ]; then
  p=$(dirname -- "$w")
  [ -d "$p" ] || { echo "the folder $p, which would hold the workspace, does not exist" >&2; exit 3; }
  mkdir -m 700 -- "$w" || exit 3
fi
cd -- "$w" && pwd -P`, c.target.Workspace)
	if err != nil {
		return "", err
	}
	ws = strings.TrimSpace(out)
	if !strings.HasPrefix(ws, "/") {
		return "", fmt.Errorf("the workspace of %s resolved to %q, not an absolute path", c.target.Name, ws)
	}
	c.mu.Lock()
	c.workspace = ws
	c.mu.Unlock()
	return ws, nil
}

// Close ends the shared connection and removes the socket's folder when
// the client made it. Commands started earlier fail.
func (c *Client) Close(ctx context.Context) error {
	c.connect.Lock()
	defer c.connect.Unlock()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	var errs []error
	if c.check(ctx) {
		args := append(c.options(false), "-O", "exit", "--", c.dest.SSH())
		cmd := exec.CommandContext(ctx, c.opts.SSH, args...)
		cmd.Env = sshEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("end the ssh connection to %s: %v: %s", c.target.Name, err, lastLines(string(out), 2)))
		}
	}
	if c.ownDir {
		if err := os.RemoveAll(c.dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// shellScript is the command line that runs script with /bin/sh on the
// machine with args as its $1, $2, …, whatever the login shell is.
func shellScript(script string, args ...string) string {
	return "exec /bin/sh -c " + shellQuote(script) + " baton " + shellJoin(args)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

var _ io.Writer = (*tail)(nil)

// tail keeps the last max bytes written to it, and passes them on to w
// when w is set.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
	w   io.Writer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	t.mu.Unlock()
	if t.w != nil {
		_, _ = t.w.Write(p)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
