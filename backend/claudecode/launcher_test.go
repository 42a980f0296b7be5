package claudecode

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/session"
)

// fakeLauncher starts no process: each Start is a scripted CLI that
// speaks stream-json over in-memory pipes. A host that ran anything
// outside its launcher would find no binary (Find names one that does not
// exist) and no conversation.
type fakeLauncher struct {
	mu            sync.Mutex
	starts        []Command
	procs         []*fakeProc
	conversations map[string]bool
	dirs          []string // the folders CheckDir was asked about
	// lateInit > 0: the scripted CLI answers an initialize request that
	// long after it, from a goroutine of its own (nothing orders the
	// answer after what the host did meanwhile), and a user line waits
	// for the answer.
	lateInit time.Duration
}

const fakeBinary = "/nonexistent/fake/claude"

func (f *fakeLauncher) Find(path string) (string, error) {
	if path == "" {
		return fakeBinary, nil
	}
	return path, nil
}

func (f *fakeLauncher) HasConversation(env []string, uuid string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conversations[uuid]
}

func (f *fakeLauncher) CheckDir(_ context.Context, dir string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dirs = append(f.dirs, dir)
	return nil
}

func (f *fakeLauncher) Start(ctx context.Context, c Command) (Process, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := &fakeProc{pid: 900001 + len(f.procs), exited: make(chan struct{})}
	var stdin io.Reader
	stdin, p.stdin = io.Pipe()
	out := c.Stdout
	if out == nil {
		pr, pw := io.Pipe()
		p.stdout, out = pr, pw
	}
	f.starts = append(f.starts, c)
	f.procs = append(f.procs, p)
	go p.serve(c, stdin, out, f.lateInit)
	go func() {
		select {
		case <-ctx.Done():
			p.End(true)
		case <-p.exited:
		}
	}()
	return p, nil
}

func (f *fakeLauncher) started() ([]Command, []*fakeProc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.starts), slices.Clone(f.procs)
}

type fakeProc struct {
	pid    int
	stdin  *io.PipeWriter
	stdout io.Reader

	mu   sync.Mutex
	ends []bool // the End calls: false asks, true kills
	// lowered: Lower(EndingNice) was called while the input was open and
	// before any End (as the host ends a child).
	lowered bool
	nices   []int // the Lower calls' nice values, in order
	err     error
	exited  chan struct{}
	once    sync.Once
}

func (p *fakeProc) Stdin() io.WriteCloser { return p.stdin }
func (p *fakeProc) Stdout() io.Reader     { return p.stdout }
func (p *fakeProc) PID() int              { return p.pid }

func (p *fakeProc) Wait() error {
	<-p.exited
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// End exits the scripted CLI as a signal ends the real one.
func (p *fakeProc) End(kill bool) {
	p.mu.Lock()
	p.ends = append(p.ends, kill)
	p.mu.Unlock()
	p.exit(errors.New("signal: terminated"))
	_ = p.stdin.CloseWithError(io.ErrClosedPipe)
}

// Lower implements Lowerer.
func (p *fakeProc) Lower(nice int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nices = append(p.nices, nice)
	select {
	case <-p.exited:
	default:
		if nice == EndingNice {
			p.lowered = len(p.ends) == 0
		}
	}
}

func (p *fakeProc) niceCalls() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.nices)
}

func (p *fakeProc) wasLowered() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lowered
}

func (p *fakeProc) exit(err error) {
	p.once.Do(func() {
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(p.exited)
	})
}

func (p *fakeProc) endCalls() []bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.ends)
}

// serve plays the CLI: --version, one -p request in JSON, or a stream-json
// session that answers each user line with an assistant text and a result,
// and each interrupt with its control_response.
func (p *fakeProc) serve(c Command, stdin io.Reader, stdout io.Writer, lateInit time.Duration) {
	defer func() {
		if w, ok := stdout.(*io.PipeWriter); ok {
			w.Close()
		}
		p.exit(nil)
	}()
	write := func(v any) bool {
		b, _ := json.Marshal(v)
		_, err := stdout.Write(append(b, '\n'))
		return err == nil
	}
	switch {
	case slices.Contains(c.Args, "--version"):
		fmt.Fprintln(stdout, MinVersion+" (Claude Code)")
		return
	case slices.Contains(c.Args, "json"):
		write(map[string]any{"type": "result", "is_error": false, "result": "OK", "total_cost_usd": 0.0001,
			"modelUsage": map[string]any{"fake-model": map[string]any{}}})
		return
	}
	sid := c.Args[slices.Index(c.Args, "--session-id")+1]
	if i := slices.Index(c.Args, "--resume"); i >= 0 {
		sid = c.Args[i+1]
	}
	var answered chan struct{} // a late answer to initialize is written
	sc := bufio.NewScanner(stdin)
	for n := 0; sc.Scan(); n++ {
		var in struct {
			Type      string `json:"type"`
			RequestID string `json:"request_id"`
			Request   struct {
				Subtype string `json:"subtype"`
			} `json:"request"`
		}
		if json.Unmarshal(sc.Bytes(), &in) != nil {
			continue
		}
		answer := map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": in.RequestID}}
		switch {
		case in.Type == "control_request" && in.Request.Subtype == "initialize" && lateInit > 0:
			done := make(chan struct{})
			answered = done
			go func() {
				defer close(done)
				time.Sleep(lateInit)
				write(answer)
			}()
		case in.Type == "control_request":
			write(answer)
		case in.Type == "user":
			if answered != nil {
				<-answered
			}
			ok := write(map[string]any{"type": "system", "subtype": "init", "session_id": sid, "uuid": newUUID()}) &&
				write(map[string]any{"type": "assistant", "session_id": sid, "uuid": newUUID(),
					"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "OK"}}}}) &&
				write(map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": "OK", "session_id": sid, "uuid": newUUID()})
			if !ok {
				return
			}
		}
	}
}

// TestTheHostStartsProcessesOnlyThroughItsLauncher: with a launcher that
// starts no process, the host finds its binary, starts, resumes, stops and
// closes every child, and the doctor runs every check, all through the
// launcher, with the folder and environment the session asks for.
func TestTheHostStartsProcessesOnlyThroughItsLauncher(t *testing.T) {
	t.Parallel()
	f := &fakeLauncher{conversations: map[string]bool{}}
	logger := slog.New(slog.DiscardHandler)
	h, err := New(Options{Launcher: f, StateDir: t.TempDir(), BaseEnv: []string{"HOME=/nonexistent"}, Env: []string{"BATON_FAKE=1"},
		Logger: logger, StopGrace: time.Second, IdleStop: -1})
	if err != nil {
		t.Fatal(err)
	}
	if h.Path() != fakeBinary {
		t.Fatalf("the host runs %q, not the binary its launcher found", h.Path())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The folder is on the launcher's machine, not necessarily on this one.
	dir := "/nonexistent/folder/on/the/cli/machine"
	id, err := h.Start(ctx, session.StartOptions{Cwd: dir, Message: "Say OK.", PermissionMode: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	asked := slices.Clone(f.dirs)
	f.mu.Unlock()
	if !slices.Equal(asked, []string{dir}) {
		t.Fatalf("the host asked its launcher about the folders %q, want the session's %q", asked, dir)
	}
	idle := func(want int) { t.Helper(); waitResults(t, ctx, h, id, want) }
	idle(1)
	starts, procs := f.started()
	if len(starts) != 1 {
		t.Fatalf("%d starts for one session, want 1", len(starts))
	}
	first := starts[0]
	u := uuidFor(id)
	if first.Path != fakeBinary || first.Dir != dir || !slices.Contains(first.Env, "BATON_FAKE=1") || !slices.Contains(first.Env, "HOME=/nonexistent") ||
		!containsRun(first.Args, "--session-id", u) || !containsRun(first.Args, "--permission-mode", "plan") || !slices.Contains(first.Args, "stream-json") {
		t.Fatalf("first start = %+v", first)
	}
	if got := h.PID(id); got != procs[0].PID() || !slices.Equal(h.Running(), []int{procs[0].PID()}) {
		t.Fatalf("the host names pid %d (running %v), not its launcher's process %d", got, h.Running(), procs[0].PID())
	}
	if err := h.Interrupt(ctx, id); err != nil {
		t.Fatal(err)
	}

	// Stopped, the child is asked to end through its launcher.
	if err := h.Stop(ctx, id); err != nil {
		t.Fatal(err)
	}
	// (The reader's End(true) after the exit may come first: the fake
	// exits as soon as Stop closes its input.)
	if ends := procs[0].endCalls(); !slices.Contains(ends, false) {
		t.Fatalf("stop: End calls %v, want a request to end", ends)
	}
	if !procs[0].wasLowered() {
		t.Error("stop: the child was not lowered before its input closed and it was asked to end")
	}
	// Lowered to the working priority at its first event, then to the
	// ending one.
	if n := procs[0].niceCalls(); !slices.Equal(n, []int{WorkingNice, EndingNice}) {
		t.Errorf("the child's Lower calls: %v, want [%d %d]", n, WorkingNice, EndingNice)
	}
	// The launcher keeps the conversation: the next message resumes it.
	f.mu.Lock()
	f.conversations[u] = true
	f.mu.Unlock()
	if err := h.Send(ctx, id, "Again."); err != nil {
		t.Fatal(err)
	}
	idle(2)
	starts, procs = f.started()
	if len(starts) != 2 || !containsRun(starts[1].Args, "--resume", u) || starts[1].Dir != dir {
		t.Fatalf("after a stop, starts = %+v", starts)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if ends := procs[1].endCalls(); len(ends) == 0 {
		t.Fatal("Close did not end the child through its launcher")
	}
	for i, p := range procs {
		select {
		case <-p.exited:
		default:
			t.Errorf("process %d still runs after Close", i)
		}
	}

	// The doctor and the version check go through the launcher too.
	r := Diagnose(ctx, DoctorOptions{Launcher: f, BaseEnv: []string{"HOME=/nonexistent"}})
	if !r.OK || r.Target != fakeBinary || r.Version != MinVersion || len(r.Checks) != 3 {
		t.Fatalf("Diagnose through the launcher: %+v", r)
	}
	if v, err := Version(ctx, f, ""); err != nil || v != MinVersion {
		t.Fatalf("Version through the launcher = %q, %v", v, err)
	}
	starts, _ = f.started()
	var doctor []string
	for _, c := range starts[2:] {
		doctor = append(doctor, strings.Join(c.Args, " "))
	}
	if len(doctor) != 3 || doctor[0] != "--version" || !strings.HasPrefix(doctor[1], "-p ") || doctor[2] != "--version" {
		t.Fatalf("the doctor and Version started %q", doctor)
	}
	// The tiny request runs in the folder given on the launcher's machine.
	const scratch = "/nonexistent/scratch/on/the/cli/machine"
	if r := Diagnose(ctx, DoctorOptions{Launcher: f, BaseEnv: []string{"HOME=/nonexistent"}, Dir: scratch}); !r.OK {
		t.Fatalf("Diagnose in a folder of the launcher's machine: %+v", r)
	}
	starts, _ = f.started()
	if last := starts[len(starts)-1]; !slices.Contains(last.Args, "-p") || last.Dir != scratch {
		t.Fatalf("the tiny request ran as %+v, want it in %s", last, scratch)
	}
}

// TestWarmAnsweredAfterItsStart: a warm CLI that answers its initialize
// request only after a Start took it (a loaded machine) runs the session
// as one that answered first; the start counts as warm but not ready. The
// answer's reader and Start (which names the child's session) share no
// order but the host's lock: under -race, this test fails if the reader
// reads the session without it.
func TestWarmAnsweredAfterItsStart(t *testing.T) {
	t.Parallel()
	f := &fakeLauncher{conversations: map[string]bool{}, lateInit: 300 * time.Millisecond}
	h, err := New(Options{Launcher: f, StateDir: t.TempDir(), BaseEnv: []string{"HOME=/nonexistent"},
		Logger: slog.New(slog.DiscardHandler), StopGrace: time.Second, IdleStop: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A few sessions: the race detector may miss one pair of accesses.
	const n = 4
	for i := range n {
		opts := session.StartOptions{Cwd: "/nonexistent/folder", ID: session.ID(fmt.Sprintf("local___orch_run1_worker_task_%03d", i+1)), PermissionMode: "plan"}
		if id, err := h.Warm(ctx, opts); err != nil || id != opts.ID {
			t.Fatalf("Warm = %q, %v", id, err)
		}
		opts.Message = "Say OK."
		if _, err := h.Start(ctx, opts); err != nil {
			t.Fatal(err)
		}
		waitResults(t, ctx, h, opts.ID, 1)
	}
	if w, c := h.Starts(); w != n || c != 0 || h.ReadyStarts() != 0 {
		t.Errorf("starts: %d warm (%d ready), %d cold; want %d warm, none ready", w, h.ReadyStarts(), c, n)
	}
	if _, procs := f.started(); len(procs) != n {
		t.Errorf("%d children, want the %d warm ones only", len(procs), n)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// waitResults waits until session id has want results and no turn runs.
func waitResults(t *testing.T, ctx context.Context, h *Host, id session.ID, want int) {
	t.Helper()
	for {
		info, err := h.Session(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := h.Read(ctx, id, session.Cursor{})
		results := 0
		for _, e := range b.Entries {
			if strings.Contains(string(e), `"type":"result"`) {
				results++
			}
		}
		if results >= want && !info.TurnRunning {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no result %d: %+v", want, info)
		case <-h.Notices():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func containsRun(args []string, flag, value string) bool {
	i := slices.Index(args, flag)
	return i >= 0 && i+1 < len(args) && args[i+1] == value
}

// The seam holds in the source: only the local launcher's files start
// processes (os/exec) or send signals (syscall) themselves.
func TestOnlyTheLocalLauncherStartsProcesses(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "local") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); p == "os/exec" || p == "syscall" || strings.HasPrefix(p, "golang.org/x/sys") {
				t.Errorf("%s imports %s: processes start and end only through a Launcher (local*.go is the local one)", name, p)
			}
		}
	}
}
