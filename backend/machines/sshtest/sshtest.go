//go:build linux

// Package sshtest gives tests "another machine": a real OpenSSH server
// (Debian's openssh-server, /usr/sbin/sshd) started on 127.0.0.1 on a free
// port with its own host key and sshd_config, a separate Unix user
// (baton-test-ssh, created when missing) whose key is authorized for this
// server only, a client ssh config and known_hosts for it, the pinned
// Claude Code CLI readable by that user, and a reverse forward (-R) so
// that the CLI there reaches a model-sim of the test through the ssh
// connection. No system sshd is started or touched.
//
// It needs root (to run sshd and create the user), as CI runs the tests.
// Under go test -short a missing sshd or root skips the test; otherwise it
// fails with a sentence that says what to install.
package sshtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/machines"
)

// User is the Unix user that plays the other machine.
const User = "baton-test-ssh"

// Alias is the ssh config alias of the server in ConfigFile.
const Alias = "baton-other"

// SSHD is the OpenSSH server the fixture runs.
const SSHD = "/usr/sbin/sshd"

// Options configure a Server.
type Options struct {
	// Forward is a local HTTP server (127.0.0.1:PORT, such as model-sim)
	// that the other machine reaches at ForwardURL through a reverse
	// forward of the ssh connection. Requests pass a small proxy on this
	// machine that gives them the Host header of Forward, as model-sim
	// accepts only requests addressed to its own port.
	Forward string
	// MaxSessions is sshd's MaxSessions (sessions on one connection); 10,
	// sshd's own default, when zero.
	MaxSessions int
}

// Server is a running sshd playing another machine.
type Server struct {
	t    testing.TB
	opts Options
	// Port is the server's port on 127.0.0.1.
	Port int
	// User, UID and Home are the other machine's user.
	User string
	UID  int
	Home string
	// Root is this server's folder in the user's home (owned by the user,
	// removed at the end of the test): it holds the authorized key, the
	// CLI's HOME and the workspace.
	Root string
	// Workspace is a folder for Baton on the other machine, not made yet.
	Workspace string
	// CLIHome is the HOME the CLI gets there (CLIEnv sets it).
	CLIHome string
	// ConfigFile is the client's ssh config (ssh -F): Alias is the server,
	// with the test's key, KnownHosts and the reverse forward.
	ConfigFile string
	// KnownHosts trusts the server's host key; Key is the client's
	// private key.
	KnownHosts string
	Key        string
	// ForwardPort is where Options.Forward is reached on the other
	// machine (0 without Forward).
	ForwardPort int

	proxy  string // the address the reverse forward goes to
	dir    string // root-only: sshd_config, the keys, the log
	marker string // BATON_SSHTEST=marker is in every session's environment

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Start starts the server; it is stopped, and every process its sessions
// left is killed, when the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	requireRoot(t)
	u := ensureUser(t)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	s := &Server{t: t, opts: opts, User: User, UID: uid, Home: u.HomeDir, dir: t.TempDir(), marker: token()}
	root, err := os.MkdirTemp(u.HomeDir, "fixture-")
	if err != nil {
		t.Fatalf("make the other machine's folder: %v", err)
	}
	s.Root = root
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	s.Workspace = filepath.Join(root, "workspace")
	s.CLIHome = filepath.Join(root, "home")
	if err := os.Mkdir(s.CLIHome, 0o700); err != nil {
		t.Fatal(err)
	}

	s.Key = filepath.Join(s.dir, "id_ed25519")
	hostKey := filepath.Join(s.dir, "ssh_host_ed25519_key")
	for _, k := range []string{s.Key, hostKey} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "baton-sshtest", "-f", k).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub, err := os.ReadFile(s.Key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{root, s.CLIHome, filepath.Join(root, "authorized_keys")} {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	hostPub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatalf("make sshd's privilege separation folder: %v", err)
	}

	var startErr error
	for range 5 {
		s.Port = freePort(t)
		s.writeSSHDConfig(hostKey)
		if startErr = s.start(); startErr == nil {
			break
		}
	}
	if startErr != nil {
		t.Fatal(startErr)
	}
	t.Cleanup(s.cleanup)

	fields := strings.Fields(string(hostPub))
	s.KnownHosts = filepath.Join(s.dir, "known_hosts")
	if err := os.WriteFile(s.KnownHosts, []byte(fmt.Sprintf("[127.0.0.1]:%d %s %s\n", s.Port, fields[0], fields[1])), 0o600); err != nil {
		t.Fatal(err)
	}
	if opts.Forward != "" {
		s.ForwardPort = freePort(t)
		s.proxy = startProxy(t, opts.Forward)
	}
	s.ConfigFile = s.Config(s.KnownHosts)
	return s
}

func requireRoot(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(SSHD); err != nil {
		msg := "the SSH tests start a real OpenSSH server and " + SSHD + " is missing: install openssh-server (make test-deps does)"
		if testing.Short() {
			t.Skip(msg + " (skipped under -short)")
		}
		t.Fatal(msg)
	}
	if os.Geteuid() != 0 {
		msg := "the SSH tests run sshd and create the user " + User + ", which needs root: run them as root (CI does)"
		if testing.Short() {
			t.Skip(msg + " (skipped under -short)")
		}
		t.Fatal(msg)
	}
	if _, err := exec.LookPath("useradd"); err != nil {
		t.Fatal("the SSH tests create the user " + User + " with useradd, which is missing: install the passwd package")
	}
}

var userMu sync.Mutex

// ensureUser creates the other machine's user unless it exists, with a
// home, /bin/sh, and no password (but not a locked account, which sshd
// refuses).
func ensureUser(t testing.TB) *user.User {
	t.Helper()
	userMu.Lock()
	defer userMu.Unlock()
	if u, err := user.Lookup(User); err == nil {
		return u
	}
	out, err := exec.Command("useradd", "--create-home", "--home-dir", "/home/"+User, "--shell", "/bin/sh", "--password", "*", User).CombinedOutput()
	if u, lerr := user.Lookup(User); lerr == nil {
		return u // made here, or by another test binary at the same time
	}
	t.Fatalf("create the user %s: %v: %s", User, err, out)
	return nil
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func token() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *Server) writeSSHDConfig(hostKey string) {
	maxSessions := s.opts.MaxSessions
	if maxSessions <= 0 {
		maxSessions = 10
	}
	cfg := fmt.Sprintf(`# sshd of a Baton test: the other machine
Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile none
AuthorizedKeysFile %s
AuthenticationMethods publickey
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin no
AllowUsers %s
AllowTcpForwarding yes
GatewayPorts no
X11Forwarding no
PrintMotd no
MaxSessions %d
SetEnv BATON_SSHTEST=%s
`, s.Port, hostKey, filepath.Join(s.Root, "authorized_keys"), s.User, maxSessions, s.marker)
	if err := os.WriteFile(filepath.Join(s.dir, "sshd_config"), []byte(cfg), 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// Config writes a client ssh config for the server that trusts the host
// keys in knownHosts, and returns its path.
func (s *Server) Config(knownHosts string) string {
	cfg := fmt.Sprintf(`Host %s
  HostName 127.0.0.1
  Port %d
  User %s
Host *
  IdentityFile %s
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile %s
  GlobalKnownHostsFile /dev/null
  UpdateHostKeys no
`, Alias, s.Port, s.User, s.Key, knownHosts)
	if s.opts.Forward != "" {
		cfg = strings.Replace(cfg, "Host *", fmt.Sprintf("  RemoteForward 127.0.0.1:%d %s\nHost *", s.ForwardPort, s.proxy), 1)
	}
	f, err := os.CreateTemp(s.dir, "ssh_config-")
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(cfg); err != nil {
		s.t.Fatal(err)
	}
	return f.Name()
}

// startProxy serves HTTP on a loopback port until the test ends, passing
// every request on to addr with addr as its Host, and returns the port's
// address.
func startProxy(t testing.TB, addr string) string {
	t.Helper()
	target, err := url.Parse("http://" + addr)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) }, FlushInterval: -1,
		ErrorLog: log.New(io.Discard, "", 0)} // a CLI that goes away mid-stream is no error
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: proxy, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close(); <-done })
	return ln.Addr().String()
}

// start runs sshd and waits until it accepts connections.
func (s *Server) start() error {
	logf, err := os.OpenFile(filepath.Join(s.dir, "sshd.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(SSHD, "-D", "-e", "-f", filepath.Join(s.dir, "sshd_config"))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start sshd: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(done) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.Port), time.Second)
		if err == nil {
			// The listener answers with its banner.
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			banner := make([]byte, 4)
			_, rerr := io.ReadFull(conn, banner)
			conn.Close()
			if rerr == nil && string(banner) == "SSH-" {
				break
			}
		}
		select {
		case <-done:
			return fmt.Errorf("sshd exited at once: %s", s.Log())
		default:
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-done
			return fmt.Errorf("sshd did not listen on 127.0.0.1:%d within 10s: %s", s.Port, s.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	return nil
}

// Log is what sshd wrote.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "sshd.log"))
	return string(b)
}

// Stop kills the server and the sshd processes of its connections, as if
// the machine dropped off the network: the user's processes there run on
// (reading the end of their input).
func (s *Server) Stop() {
	s.t.Helper()
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	procs := scanProcs()
	for _, p := range procs.descendants(cmd.Process.Pid) {
		if procs[p].comm == "sshd" {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
	_ = cmd.Process.Kill()
	<-done
}

// Restart starts the server again on the same port after Stop.
func (s *Server) Restart() {
	s.t.Helper()
	if err := s.start(); err != nil {
		s.t.Fatal(err)
	}
}

// Proc is a process on the other machine.
type Proc struct {
	PID  int
	Comm string
	Args string
}

func (p Proc) String() string { return fmt.Sprintf("%d %s", p.PID, p.Args) }

// Processes lists the live processes this server's sessions started (the
// sshd processes themselves not included), found by the marker sshd puts
// in every session's environment.
func (s *Server) Processes() []Proc {
	var out []Proc
	want := []byte("BATON_SSHTEST=" + s.marker + "\x00")
	for pid, p := range scanProcs() {
		if p.state == "Z" || p.uid != s.UID {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, want...)) {
			continue
		}
		args, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		out = append(out, Proc{PID: pid, Comm: p.comm, Args: strings.TrimSpace(strings.ReplaceAll(string(args), "\x00", " "))})
	}
	return out
}

func (s *Server) cleanup() {
	s.Stop()
	for range 3 {
		left := s.Processes()
		if len(left) == 0 {
			return
		}
		for _, p := range left {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Target is a machine target for the server, called name, with the
// workspace of the other machine (its ClaudePath is for the test to set,
// with Claude).
func (s *Server) Target(name string) machines.Target {
	return machines.Target{Name: name, Host: Alias, Workspace: s.Workspace, MaxWorkers: 2}
}

// ClientOptions make a machines client use the server's ssh config.
func (s *Server) ClientOptions() machines.ClientOptions {
	return machines.ClientOptions{ConfigFile: s.ConfigFile}
}

// ForwardURL is the http URL of Options.Forward on the other machine.
func (s *Server) ForwardURL() string {
	if s.ForwardPort == 0 {
		return ""
	}
	return fmt.Sprintf("http://127.0.0.1:%d", s.ForwardPort)
}

// CLIEnv is the environment the CLI gets on the other machine in a test:
// its own HOME, no non-essential traffic, and its model at ForwardURL.
func (s *Server) CLIEnv() []string {
	env := []string{"HOME=" + s.CLIHome, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
		"ANTHROPIC_API_KEY=" + claudecodetest.APIKey, "CLAUDE_CODE_MAX_RETRIES=1"}
	if u := s.ForwardURL(); u != "" {
		env = append(env, "ANTHROPIC_BASE_URL="+u)
	}
	return env
}

var (
	claudeMu   sync.Mutex
	claudePath string
)

// Claude is the pinned CLI as the other machine's user can run it: the
// pinned binary itself when every folder on its path lets the user in,
// else a copy in the user's home (made once, kept for later tests).
func (s *Server) Claude(t testing.TB) string {
	t.Helper()
	claudeMu.Lock()
	defer claudeMu.Unlock()
	if claudePath != "" {
		return claudePath
	}
	bin, err := filepath.EvalSymlinks(claudecodetest.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	if othersCanRun(bin) {
		claudePath = bin
		return bin
	}
	dir := filepath.Join(s.Home, ".cache", "baton-claude-"+claudecodetest.Version)
	copyPath := filepath.Join(dir, "claude")
	if st, err := os.Stat(copyPath); err == nil && st.Mode()&0o005 == 0o005 {
		claudePath = copyPath
		return copyPath
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(bin, copyPath); err != nil {
		t.Fatalf("copy the pinned CLI where %s can run it: %v", User, err)
	}
	claudePath = copyPath
	return copyPath
}

// othersCanRun reports whether a user who owns none of the path's folders
// can reach and run the file at path.
func othersCanRun(path string) bool {
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm()&0o005 != 0o005 {
		return false
	}
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if filepath.Dir(d) == d {
			return true
		}
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(to), ".claude-*")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, in)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o755)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), to)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// Run runs a shell command on the other machine as its user, over a
// connection of its own, and returns its output.
func (s *Server) Run(ctx context.Context, command string) (string, error) {
	cmd := exec.CommandContext(ctx, "ssh", "-F", s.ConfigFile, "-o", "BatchMode=yes", "-o", "ControlPath=none", "-T", Alias, command)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("ssh %s %q: %w: %s", Alias, command, err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// procs is a snapshot of /proc.
type procs map[int]procInfo

type procInfo struct {
	ppid  int
	uid   int
	comm  string
	state string
}

func scanProcs() procs {
	out := procs{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		open, closing := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if open < 0 || closing < open {
			continue
		}
		f := strings.Fields(string(stat[closing+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		info := procInfo{ppid: ppid, comm: string(stat[open+1 : closing]), state: f[0], uid: -1}
		if st, err := os.Stat(filepath.Join("/proc", d.Name())); err == nil {
			if sys, ok := st.Sys().(*syscall.Stat_t); ok {
				info.uid = int(sys.Uid)
			}
		}
		out[pid] = info
	}
	return out
}

// descendants are the processes below pid.
func (p procs) descendants(pid int) []int {
	children := map[int][]int{}
	for c, info := range p {
		children[info.ppid] = append(children[info.ppid], c)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, c := range children[n] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
