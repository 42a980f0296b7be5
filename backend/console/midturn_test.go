package console

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/modelsim"
	"github.com/baton-app/baton/backend/testsupport"
)

// A resume in the middle of a worker's turn does not redo its work, on the
// real CLI with model-sim in a worktree run: "baton run" is killed with
// SIGKILL right after a worker wrote its first file (its turn goes on,
// slowed down); "baton run --resume" tells the worker what it already did
// and the worker goes on from the tool results in its conversation. No
// write the CLI ran is run again, no task's part appears twice, and the
// task branches merge without a conflict.
func TestResumeMidTurnDoesNotRedoWork(t *testing.T) {
	cli := claudecodetest.Binary(t)
	bin := buildBaton(t)
	logPath := filepath.Join(t.TempDir(), "model-sim.jsonl")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	sim, err := modelsim.New(modelsim.Options{Logger: quietLogger(io.Discard), Log: logFile})
	if err != nil {
		t.Fatal(err)
	}
	// The workers' turns are slow enough to be cut after their first write.
	if err := sim.SetScenario("task_0", "slow delay=40"); err != nil {
		t.Fatal(err)
	}
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	defer sim.Shutdown(context.Background())
	config, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := append(claudecodetest.Env(t.TempDir(), sim.URL()), "BATON_CONFIG_DIR="+config)
	dir, err := filepath.EvalSymlinks(pyRepo(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	first, out := startBaton(t, ctx, bin, env, "run", "--host", "claude-code", "--claude", cli, "--template", "documentation",
		"--isolation", "worktree", "--cwd", dir, "--message", "Document this project", "--yes")
	ids := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := runIDPattern.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case ids <- m[1]:
				default:
				}
			}
		}
	}()
	var runID string
	select {
	case runID = <-ids:
	case <-ctx.Done():
		t.Fatal("baton run printed no run id")
	}
	// Kill as soon as a worker's first page is in its task's worktree.
	tasks := filepath.Join(config, "worktrees", runID, "tasks")
	var written string
	for written == "" && ctx.Err() == nil {
		_ = filepath.WalkDir(tasks, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && strings.Contains(p, string(filepath.Separator)+"docs"+string(filepath.Separator)) {
				written = p
				return fs.SkipAll
			}
			return nil
		})
		time.Sleep(10 * time.Millisecond)
	}
	_ = first.Process.Signal(syscall.SIGKILL)
	_ = first.Wait()
	if written == "" {
		t.Fatal("no worker wrote a page before the deadline")
	}
	t.Logf("killed after %s was written", written)

	resume := exec.CommandContext(ctx, bin, "run", "--resume", runID, "--host", "claude-code", "--claude", cli, "--yes")
	resume.Env = env
	text, err := resume.CombinedOutput()
	res := string(text)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("resume: %v\n%s", err, res)
	}
	if err != nil || !strings.Contains(res, "completed: ") || strings.Contains(res, "conflict") {
		t.Fatalf("resume %s: %v\n%s", runID, err, res)
	}

	// What model-sim was asked and answered: the worker cut in its turn was
	// told what it had done, and no write was made twice. A write is made
	// when the CLI ran its tool call (a later request holds its
	// tool_result); a call served just before the kill and never run may
	// be served again.
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	type block struct {
		Type      string         `json:"type"`
		ID        string         `json:"id"`
		Name      string         `json:"name"`
		Input     map[string]any `json:"input"`
		ToolUseID string         `json:"tool_use_id"`
		IsError   bool           `json:"is_error"`
	}
	calls := map[string]string{} // tool_use id → the write it asks for
	ran := map[string]bool{}     // tool_use ids whose result the CLI sent
	toldDone := false
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ex struct {
			Request struct {
				Messages []struct {
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
			} `json:"request"`
			Reply struct {
				Content []block `json:"content"`
			} `json:"reply"`
		}
		if json.Unmarshal([]byte(line), &ex) != nil {
			continue
		}
		for _, m := range ex.Request.Messages {
			if strings.Contains(string(m.Content), "What you already did in this session, in order:") &&
				strings.Contains(string(m.Content), "These steps are done: do not do them again") {
				toldDone = true
			}
			var blocks []block
			if json.Unmarshal(m.Content, &blocks) == nil {
				for _, c := range blocks {
					if c.Type == "tool_result" && !c.IsError {
						ran[c.ToolUseID] = true
					}
				}
			}
		}
		for _, c := range ex.Reply.Content {
			if c.Type == "tool_use" && (c.Name == "Write" || c.Name == "Edit") {
				key, _ := json.Marshal(c.Input)
				calls[c.ID] = c.Name + " " + string(key)
			}
		}
	}
	if !toldDone {
		t.Error("no re-prompt after the resume told a worker what it already did")
	}
	made := map[string]int{}
	for id, w := range calls {
		if ran[id] {
			made[w]++
		}
	}
	if len(made) == 0 {
		t.Fatal("the CLI made no write at all")
	}
	for w, n := range made {
		if n > 1 {
			t.Errorf("the same write was made %d times: %.200s", n, w)
		}
	}
	// Each task's part is on the run branch once.
	m := branchLine.FindStringSubmatch(res)
	if m == nil {
		t.Fatalf("the resumed run names no branch:\n%s", res)
	}
	for _, f := range strings.Fields(testsupport.Git(t, dir, "ls-tree", "-r", "--name-only", m[1])) {
		body := testsupport.Git(t, dir, "show", m[1]+":"+f)
		for _, l := range strings.Split(body, "\n") {
			if strings.HasPrefix(l, "<!-- baton:begin ") && strings.Count(body, l) > 1 {
				t.Errorf("%s holds %q %d times", f, l, strings.Count(body, l))
			}
		}
	}
}
