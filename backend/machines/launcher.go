package machines

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/baton-app/baton/backend/claudecode"
)

// Launcher is claudecode's Launcher for a machine: it runs the claude CLI
// there with `ssh -T` over the client's shared connection, so a
// claudecode.Host built with it runs every session on that machine with
// all of its own code (permission channel, questions, resume).
//
// A process starts in its folder on the machine with the machine's own
// login environment, plus the variables of Forward whose values the
// command's environment holds, plus Env; nothing else of Baton's
// environment goes there. The values travel on the process's input, not
// on a command line. The process runs in the process group of its ssh
// session (sshd makes each session a process group); End signals that
// group over the shared connection, because closing the session does not
// end it. A process whose connection is lost ends with an *SSHError that
// matches session.ErrHostLost; the process group it leaves running there
// is ended by the next Start that reaches the machine again.
type Launcher struct {
	client *Client
	// Forward are the names of the variables taken from a command's
	// environment (the target's Env).
	Forward []string
	// Env is set on the machine for every process, after Forward's
	// (KEY=VALUE): what the host kind itself sets there, such as
	// ANTHROPIC_BASE_URL in tests.
	Env []string

	mu      sync.Mutex
	orphans []remoteGroup // groups left running by a lost connection
}

var _ claudecode.Launcher = (*Launcher)(nil)

// NewLauncher returns the launcher of the client's machine, forwarding the
// target's Env names and setting env there.
func NewLauncher(c *Client, env []string) *Launcher {
	return &Launcher{client: c, Forward: slices.Clone(c.target.Env), Env: slices.Clone(env)}
}

// Client is the connection the launcher uses.
func (l *Launcher) Client() *Client { return l.client }

// remoteGroup is a process group on the machine and the token its leader
// carries, so that a group id that was reused is never signalled.
type remoteGroup struct {
	pgid  int
	token string
}

const findTimeout = 30 * time.Second

// Find implements claudecode.Launcher: path (or the target's ClaudePath)
// when it is an executable file on the machine, else claude on the PATH
// of a non-interactive ssh command, else ~/.local/bin/claude (where
// Claude Code's installer puts it).
func (l *Launcher) Find(path string) (string, error) {
	if path == "" {
		path = l.client.target.ClaudePath
	}
	ctx, cancel := context.WithTimeout(context.Background(), findTimeout)
	defer cancel()
	out, err := l.client.Run(ctx, "find the Claude Code CLI", `p=$1
case $p in "~/"*) p=$HOME/${p#"~/"} ;; esac
if [ -n "$p" ]; then
  [ -f "$p" ] && [ -x "$p" ] && { printf '%s\n' "$p"; exit 0; }
  exit 4
fi
command -v claude 2>/dev/null && exit 0
for c in "$HOME/.local/bin/claude" "$HOME/.claude/local/claude"; do
  [ -f "$c" ] && [ -x "$c" ] && { printf '%s\n' "$c"; exit 0; }
done
exit 5`, path)
	var ce *CommandError
	switch {
	case errors.As(err, &ce) && ce.Code == 4:
		return "", fmt.Errorf("the Claude Code CLI is not at %s on %s: install it there or give the right claude path for the machine", path, l.client.target.Name)
	case errors.As(err, &ce) && ce.Code == 5:
		return "", fmt.Errorf("the Claude Code CLI (claude) is not on the PATH of ssh commands on %s, nor in ~/.local/bin: install it there (curl -fsSL https://claude.ai/install.sh | bash) or give its path as the machine's claude path", l.client.target.Name)
	case err != nil:
		return "", err
	}
	found := strings.TrimSpace(out)
	if !strings.HasPrefix(found, "/") {
		return "", fmt.Errorf("claude on %s is %q, not a program file: give its path as the machine's claude path", l.client.target.Name, found)
	}
	return found, nil
}

// CheckDir implements claudecode.Launcher: dir must be a folder on the
// machine.
func (l *Launcher) CheckDir(ctx context.Context, dir string) error {
	_, err := l.client.Run(ctx, "check the folder "+dir, `[ -d "$1" ] || { echo "$1 is not a folder there" >&2; exit 1; }`, dir)
	return err
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F-]{1,64}$`)

// HasConversation implements claudecode.Launcher: the CLI keeps
// conversation u as projects/*/u.jsonl under CLAUDE_CONFIG_DIR, else
// $HOME/.claude, on the machine, as the process's environment would set
// them there.
func (l *Launcher) HasConversation(env []string, u string) bool {
	if !uuidRE.MatchString(u) {
		return false
	}
	vars, err := l.environment(env)
	if err != nil {
		return false
	}
	home, config := claudecode.ConfigEnv(vars)
	ctx, cancel := context.WithTimeout(context.Background(), findTimeout)
	defer cancel()
	// A CLI an earlier Baton left running may still write the
	// conversation: end it first, so that the answer holds.
	l.endStale(ctx, []string{"--resume", u})
	_, err = l.client.Run(ctx, "look for a conversation", `h=${1:-$HOME}
c=${2:-$h/.claude}
for f in "$c"/projects/*/"$3".jsonl; do [ -f "$f" ] && exit 0; done
exit 1`, home, config, u)
	return err == nil
}

// environment is what goes to the machine for a command with env: the
// forwarded variables env has, then the launcher's Env.
func (l *Launcher) environment(env []string) ([]string, error) {
	var out []string
	set := func(kv string) error {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !envNameRE.MatchString(k) {
			return fmt.Errorf("%q is not a variable (NAME=value)", kv)
		}
		if strings.ContainsAny(v, "\n\x00") {
			return fmt.Errorf("the value of %s holds a line break, which Baton cannot send to %s", k, l.client.target.Name)
		}
		out = slices.DeleteFunc(out, func(e string) bool { return strings.HasPrefix(e, k+"=") })
		out = append(out, kv)
		return nil
	}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(l.Forward, k) {
			if err := set(kv); err != nil {
				return nil, err
			}
		}
	}
	for _, kv := range l.Env {
		if err := set(kv); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// startScript runs on the machine for every process: it takes the
// environment from its input up to an empty line, enters the folder, says
// its process group (the session's, which sshd made) and runs the
// program. It stays the group's leader while the program runs (its
// arguments carry the token End checks), and a TERM it gets only ends its
// wait.
const startScript = `while IFS= read -r l; do
  [ -z "$l" ] && break
  export "$l" || exit 125
done
d=$2 p=$3
shift 3
if [ -n "$d" ]; then cd -- "$d" 2>/dev/null || { echo "$d is not a folder on this machine" >&2; exit 125; }; fi
printf 'baton-pgid %s\n' "$$"
trap : TERM INT HUP
"$p" "$@"
exit $?`

// leaderArgs sets a to the arguments of process $g, "" when it is gone.
const leaderArgs = `a=
if [ -r "/proc/$g/cmdline" ]; then
  a=$(tr '\000' ' ' < "/proc/$g/cmdline")
elif command -v ps >/dev/null 2>&1; then
  a=$(ps -o args= -p "$g" 2>/dev/null)
fi
`

// endScript signals a process group unless its id now belongs to a
// process that is not the one Baton started (its token differs).
const endScript = `g=$1 tok=$2 sig=$3
` + leaderArgs + `if [ -n "$a" ]; then case $a in *"$tok"*) ;; *) exit 0 ;; esac; fi
kill -s "$sig" -- "-$g" 2>/dev/null
exit 0`

// stateScript says what is left of a process group: its leader (Baton's
// starter), only other processes of the group, or nothing.
const stateScript = `g=$1 tok=$2
` + leaderArgs + `case $a in *"$tok"*) echo leader; exit 0 ;; esac
if [ -z "$a" ] && kill -s 0 -- "-$g" 2>/dev/null; then echo group; exit 0; fi
echo gone`

// Start implements claudecode.Launcher. It returns once the process runs
// on the machine. When ctx is done the process and what it started are
// killed. (Beyond the sessions sshd allows on one connection, MaxSessions,
// 10 by default, ssh gives a process a connection of its own.)
func (l *Launcher) Start(ctx context.Context, c claudecode.Command) (claudecode.Process, error) {
	vars, err := l.environment(c.Env)
	if err != nil {
		return nil, err
	}
	if err := l.client.Connect(ctx); err != nil {
		return nil, err
	}
	l.endOrphans(ctx)
	l.endStale(ctx, c.Args)
	p, err := l.spawn(ctx, c, vars)
	if err != nil {
		return nil, err
	}
	go func() {
		select {
		case <-ctx.Done():
			p.End(true)
		case <-p.done:
		}
	}()
	return p, nil
}

// spawn starts c's ssh, sends the environment, and waits for the machine
// to say which process group runs it.
func (l *Launcher) spawn(ctx context.Context, c claudecode.Command, vars []string) (*remoteProcess, error) {
	token := newToken()
	remote := shellScript(startScript, append([]string{"baton-" + token, c.Dir, c.Path}, c.Args...)...)
	cmd := l.client.command(context.Background(), remote)
	cmd.SysProcAttr = sshAttr()
	p := &remoteProcess{l: l, cmd: cmd, token: token, done: make(chan struct{}), stderr: &tail{max: 8 << 10, w: c.Stderr}}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("run ssh: %w", err)
	}
	var block strings.Builder
	for _, kv := range vars {
		block.WriteString(kv + "\n")
	}
	block.WriteString("\n")
	r := bufio.NewReader(out)
	first := make(chan error, 1)
	go func() {
		// The pipe holds the block until the script reads it.
		if _, err := io.WriteString(p.stdin, block.String()); err != nil {
			first <- err
			return
		}
		line, err := r.ReadString('\n')
		if err == nil {
			p.pgid, err = strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "baton-pgid "))
		}
		first <- err
	}()
	select {
	case err = <-first:
	case <-ctx.Done():
		p.kill()
		<-first
		_ = p.wait()
		return nil, fmt.Errorf("start %s on %s: %w", c.Path, l.client.target.Name, ctx.Err())
	}
	if err != nil {
		// The output ended first: ssh exits, and says why.
		werr := p.wait()
		var se *SSHError
		if errors.As(werr, &se) {
			return nil, werr
		}
		if werr != nil {
			return nil, fmt.Errorf("start %s on %s: %w (%s)", c.Path, l.client.target.Name, werr, lastLines(p.stderr.String(), 2))
		}
		return nil, fmt.Errorf("start %s on %s: the machine did not say which process runs it", c.Path, l.client.target.Name)
	}
	if p.pgid <= 1 {
		p.kill()
		_ = p.wait()
		return nil, fmt.Errorf("start %s on %s: the machine did not say which process runs it", c.Path, l.client.target.Name)
	}
	if c.Stdout != nil {
		p.copied = make(chan struct{})
		go func() {
			defer close(p.copied)
			_, _ = io.Copy(c.Stdout, r)
		}()
	} else {
		p.stdout = r
	}
	return p, nil
}

// endOrphans ends the process groups a lost connection left running.
func (l *Launcher) endOrphans(ctx context.Context) {
	l.mu.Lock()
	orphans := l.orphans
	l.orphans = nil
	l.mu.Unlock()
	for i, g := range orphans {
		if err := l.signal(ctx, g, "KILL"); err != nil {
			for _, o := range orphans[i:] {
				l.orphan(o)
			}
			return
		}
	}
}

// signal sends sig to the group over the shared connection.
func (l *Launcher) signal(ctx context.Context, g remoteGroup, sig string) error {
	ctx, cancel := context.WithTimeout(ctx, l.client.opts.ConnectTimeout+5*time.Second)
	defer cancel()
	_, err := l.client.Run(ctx, "signal a process", endScript, strconv.Itoa(g.pgid), "baton-"+g.token, sig)
	return err
}

// state says what is left of the group on the machine: "leader"
// (Baton's starter runs, waiting for the program), "group" (the starter is
// gone, other processes of the group run), "gone", or "" when the machine
// cannot be reached.
func (l *Launcher) state(g remoteGroup) string {
	ctx, cancel := context.WithTimeout(context.Background(), l.client.opts.ConnectTimeout+5*time.Second)
	defer cancel()
	out, err := l.client.Run(ctx, "look for a process", stateScript, strconv.Itoa(g.pgid), "baton-"+g.token)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// orphan keeps g to be ended once the machine can be reached again.
func (l *Launcher) orphan(g remoteGroup) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.orphans = append(l.orphans, g)
}

func newToken() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// remoteProcess is one process on the machine and the local ssh that
// carries its input and output.
type remoteProcess struct {
	l      *Launcher
	cmd    *exec.Cmd
	token  string
	pgid   int
	stdin  io.WriteCloser
	stdout io.Reader
	stderr *tail
	copied chan struct{} // closed when Command.Stdout has all the output

	ending   sync.Mutex  // one End at a time
	endedBy  atomic.Bool // Baton ended it on purpose
	waitOnce sync.Once
	waitErr  error
	done     chan struct{} // closed when Wait returned
}

func (p *remoteProcess) Stdin() io.WriteCloser { return p.stdin }
func (p *remoteProcess) Stdout() io.Reader     { return p.stdout }

// PID implements claudecode.Process: the local ssh's process id.
func (p *remoteProcess) PID() int { return p.cmd.Process.Pid }

// End implements claudecode.Process: SIGTERM (or SIGKILL when kill) to
// the process group on the machine, over the shared connection; with kill
// the local ssh is killed too, so that Wait returns even when the machine
// cannot be reached.
func (p *remoteProcess) End(kill bool) {
	p.ending.Lock()
	defer p.ending.Unlock()
	select {
	case <-p.done:
		return
	default:
	}
	p.endedBy.Store(true)
	sig := "TERM"
	if kill {
		sig = "KILL"
	}
	if p.pgid > 1 {
		if err := p.l.signal(context.Background(), remoteGroup{p.pgid, p.token}, sig); err != nil {
			p.l.client.log.Debug("signal the process group", "pgid", p.pgid, "err", err)
		}
	}
	if kill {
		p.kill()
	}
}

// kill kills the local ssh.
func (p *remoteProcess) kill() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
}

// Wait implements claudecode.Process. A process whose connection was lost
// (ssh's own exit status 255, the process not ended by Baton) returns an
// *SSHError matching session.ErrHostLost; the process group it may have
// left running on the machine is ended once the connection is back.
func (p *remoteProcess) Wait() error {
	p.waitOnce.Do(func() {
		if p.copied != nil {
			<-p.copied
		}
		p.waitErr = p.wait()
		close(p.done)
	})
	return p.waitErr
}

func (p *remoteProcess) wait() error {
	err := p.cmd.Wait()
	var exit *exec.ExitError
	if err == nil || !errors.As(err, &exit) || exit.ExitCode() != 255 {
		return err
	}
	if p.endedBy.Load() {
		return err
	}
	if p.pgid <= 1 {
		// It never started: what ssh said is why.
		return p.l.client.classify(context.Background(), p.stderr.String())
	}
	// ssh's own 255, or the starter killed by a signal: ask the machine.
	g := remoteGroup{p.pgid, p.token}
	switch p.l.state(g) {
	case "":
		p.l.orphan(g)
		return p.l.client.classify(context.Background(), p.stderr.String())
	case "leader":
		// The session dropped while the process ran on, cut off.
		if err := p.l.signal(context.Background(), g, "KILL"); err != nil {
			p.l.orphan(g)
		}
		e := p.l.client.classify(context.Background(), p.stderr.String())
		e.Problem = ProblemLost
		e.Fix = fmt.Sprintf("The SSH session of a process on %s was lost while it ran; Baton ended the process there.", p.l.client.target.Name)
		return e
	case "group":
		// What it started ends with it.
		if err := p.l.signal(context.Background(), g, "KILL"); err != nil {
			p.l.orphan(g)
		}
	}
	return fmt.Errorf("the process on %s ended without an exit status (killed by a signal?): %w", p.l.client.target.Name, err)
}

// staleScript kills the process groups Baton's starter leads on the
// machine whose arguments carry conversation $1: what an earlier Baton
// left running there (it was killed, so nothing ended them).
const staleScript = `u=$1
[ -d /proc ] || exit 0
for d in /proc/[0-9]*; do
  p=${d#/proc/}
  [ "$p" = "$$" ] && continue
  a=$(tr '\000' ' ' < "$d/cmdline" 2>/dev/null) || continue
  case $a in *" baton baton-"*" $u"*) kill -s KILL -- "-$p" 2>/dev/null ;; esac
done
exit 0`

// endStale ends what an earlier Baton left running on the machine for the
// conversation the command starts or resumes (--session-id or --resume):
// a conversation has one CLI at a time, and the host starts one only when
// it has none.
func (l *Launcher) endStale(ctx context.Context, args []string) {
	u := ""
	for i, a := range args[:max(len(args)-1, 0)] {
		if a == "--session-id" || a == "--resume" {
			u = args[i+1]
		}
	}
	if !uuidRE.MatchString(u) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, l.client.opts.ConnectTimeout+5*time.Second)
	defer cancel()
	if _, err := l.client.Run(ctx, "end what an earlier Baton left running", staleScript, u); err != nil {
		l.client.log.Debug("end stale processes", "err", err)
	}
}
