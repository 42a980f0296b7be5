package console

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/testsupport"
)

// A worker's question left without an answer (no input: the run pauses and
// the command ends) is listed by "baton show" and asked again by "baton run
// --resume", whose answer lets the run finish.
func TestUnansweredQuestionIsAskedAgainOnResume(t *testing.T) {
	testsupport.NeedChromium(t)
	bin := buildBaton(t)
	endpoint := startSim(t, bin, "--scenario-for", "_worker_=clarification")
	env := append(os.Environ(), "BATON_CONFIG_DIR="+t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	first := exec.CommandContext(ctx, bin, "run", "--host", "desktop", "--cdp", endpoint, "--template", "sparc",
		"--cwd", sample(t), "--message", "Specify the health endpoint", "--yes")
	first.Env, first.Stdin, first.Stderr = env, strings.NewReader(""), io.Discard
	out, err := first.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	var runID string
	var all strings.Builder
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		all.WriteString(sc.Text() + "\n")
		if m := runIDPattern.FindStringSubmatch(sc.Text()); m != nil && runID == "" {
			runID = m[1]
		}
	}
	var exit *exec.ExitError
	if err := first.Wait(); !errors.As(err, &exit) || exit.ExitCode() != ExitWaiting || runID == "" ||
		!strings.Contains(all.String(), "Nobody is here to answer: ") {
		t.Fatalf("%v, want exit %d; output:\n%s", err, ExitWaiting, all.String())
	}

	var shown bytes.Buffer
	show := exec.Command(bin, "show", runID)
	show.Env, show.Stdout = env, &shown
	if err := show.Run(); err != nil || !strings.Contains(shown.String(), "Questions still unanswered:\n  - CODE-") ||
		!strings.Contains(shown.String(), "Answer them with: baton run --resume "+runID) {
		t.Fatalf("show does not list the open question (%v):\n%s", err, shown.String())
	}

	resume := exec.CommandContext(ctx, bin, "run", "--resume", runID, "--host", "desktop", "--cdp", endpoint, "--yes")
	resume.Env, resume.Stdin = env, strings.NewReader(strings.Repeat("Markdown, like the README\n", 20))
	res, err := resume.CombinedOutput()
	if err != nil || !strings.Contains(string(res), " asks:\n  - ") || !strings.Contains(string(res), "Your answer") ||
		!strings.Contains(string(res), "completed: ") {
		t.Fatalf("resume %s: %v\n%s", runID, err, res)
	}
}
