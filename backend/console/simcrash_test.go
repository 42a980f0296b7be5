package console

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/testsupport"
)

// TestSimulatorRunSurvivesAKill: on the default host, the simulator runs
// inside "baton run". It keeps its sessions in Baton's data folder, as
// Claude Desktop keeps its own, so after kill -9 at the first worker
// --resume re-attaches to them and the run completes every task, instead of
// ending in error with "no session local_…".
func TestSimulatorRunSurvivesAKill(t *testing.T) {
	testsupport.NeedChromium(t)
	bin := buildBaton(t)
	config := t.TempDir()
	env := append(os.Environ(), "BATON_CONFIG_DIR="+config)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	first := exec.CommandContext(ctx, bin, "run", "--host", "sim", "--sim-speed", "3", "--template", "documentation",
		"--cwd", sample(t), "--message", "Document the sample project", "--yes")
	first.Env = env
	runID, killed := killAtFirstWorker(t, first)
	if runID == "" || !killed {
		t.Fatalf("the run did not reach the worker phase before it ended (run %q)", runID)
	}
	if files, _ := filepath.Glob(filepath.Join(config, "simulator", "local_*.jsonl")); len(files) == 0 {
		t.Fatalf("the simulator kept no session in %s", filepath.Join(config, "simulator"))
	}

	resume := exec.CommandContext(ctx, bin, "run", "--resume", runID, "--host", "sim", "--sim-speed", "3", "--yes")
	resume.Env = env
	res, err := resume.CombinedOutput()
	if err != nil || !strings.Contains(string(res), "completed: ") || strings.Contains(string(res), "no session") {
		t.Fatalf("resume %s: %v\n%s", runID, err, res)
	}
	var out bytes.Buffer
	show := exec.Command(bin, "show", runID)
	show.Env, show.Stdout = env, &out
	if err := show.Run(); err != nil {
		t.Fatalf("show %s: %v", runID, err)
	}
	var tasks, completed int
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[0], "task_") {
			tasks++
			if f[1] == "completed" {
				completed++
			}
		}
	}
	if tasks == 0 || completed != tasks {
		t.Errorf("after the resume %d of %d tasks completed:\n%s", completed, tasks, out.String())
	}
}
