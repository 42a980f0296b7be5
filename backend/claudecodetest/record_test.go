package claudecodetest_test

import (
	"encoding/json"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/modelsim"
	"github.com/baton-app/baton/backend/template"
)

var update = flag.Bool("update", false, "re-record testdata/recordings from the pinned Claude Code CLI and model-sim")

// recCase is one recording: a Baton prompt sent to the real CLI, whose
// model is model-sim playing a scenario.
type recCase struct {
	name, about string
	tmpl        string
	phase       template.Phase
	scenario    string // a model-sim scenario for this session ("" = happy)
	marker      string // a [[sim:…]] marker added to the message (scenario parameters)
	env         []string
	mode        string // --permission-mode ("" = the template's)
	// print runs `claude -p PROMPT` with no host on stdin (permission
	// prompts are then denied by the CLI). Otherwise the CLI runs as the
	// Claude Code host runs it: --input-format stream-json with the host
	// permission channel (--permission-prompt-tool stdio); answer answers
	// its control requests (allow when nil) and next are further phases
	// sent after each result.
	print  bool
	next   []template.Phase
	answer func(req *claudecodetest.ControlRequest, id string) map[string]any
	// wantError: the run ends with an error result (or exit code).
	wantError bool
}

func allow(req *claudecodetest.ControlRequest, id string) map[string]any {
	return claudecodetest.Allow(id, req.Input)
}

func deny(_ *claudecodetest.ControlRequest, id string) map[string]any {
	return claudecodetest.Deny(id, "The user denied this: Baton's tests do not let agents run this command.")
}

// answerQuestions answers an AskUserQuestion with the first option of each
// question: the input as asked plus "answers" (question text → label). It
// allows any other tool.
func answerQuestions(req *claudecodetest.ControlRequest, id string) map[string]any {
	if req.ToolName != "AskUserQuestion" {
		return allow(req, id)
	}
	var in map[string]any
	_ = json.Unmarshal(req.Input, &in)
	answers := map[string]string{}
	qs, _ := in["questions"].([]any)
	for _, q := range qs {
		qm, _ := q.(map[string]any)
		text, _ := qm["question"].(string)
		opts, _ := qm["options"].([]any)
		if len(opts) > 0 {
			label, _ := opts[0].(map[string]any)["label"].(string)
			answers[text] = label
		}
	}
	in["answers"] = answers
	b, _ := json.Marshal(in)
	return claudecodetest.Allow(id, b)
}

var fastFail = []string{"CLAUDE_CODE_MAX_RETRIES=0", "API_TIMEOUT_MS=3000"}

var recCases = []recCase{
	{name: "orchestrator-analysis", about: "the analysis prompt of the _default template (seed 000 dialect): Glob and Read, then the analysis block", tmpl: "_default", phase: template.PhaseAnalysis},
	{name: "orchestrator-planning", about: "the task planning prompt of _default: a task_list block", tmpl: "_default", phase: template.PhaseTaskPlanning},
	{name: "orchestrator-worker", about: "the worker prompt of _default: reads its scope, adds its part to the page the task names (an Edit of docs/usage.md), runs the tests, ends with a completion block", tmpl: "_default", phase: template.PhaseWorkerExecution},
	{name: "orchestrator-aggregation", about: "the aggregation prompt of _default with two worker reports", tmpl: "_default", phase: template.PhaseAggregation},
	{name: "orchestrator-verification", about: "the verification prompt of _default", tmpl: "_default", phase: template.PhaseVerification},
	{name: "delegation-planning", about: "the task planning prompt of sparc (seed 003 dialect): new_task objects", tmpl: "sparc", phase: template.PhaseTaskPlanning},
	{name: "delegation-worker", about: "the worker prompt of sparc: an attempt_completion object", tmpl: "sparc", phase: template.PhaseWorkerExecution},
	{name: "main-session-two-turns", about: "one CLI process: the analysis prompt, then the planning prompt after the first result (two result events; total_cost_usd and modelUsage add up over the process, model_usage_since_last_result is the turn's)",
		tmpl: "_default", phase: template.PhaseAnalysis, next: []template.Phase{template.PhaseTaskPlanning}},
	{name: "print-worker-no-host", about: "claude -p PROMPT with nobody on the permission channel: the worker's go test needs approval and is denied (system/permission_denied), so the worker reports failed",
		tmpl: "_default", phase: template.PhaseWorkerExecution, print: true},
	{name: "permission-allowed", about: "a Bash command that needs permission, asked through the host permission channel (control_request can_use_tool) and allowed (control_response behavior allow, updatedInput)",
		tmpl: "_default", phase: template.PhaseWorkerExecution, scenario: "needs-permission", mode: "default", answer: allow},
	{name: "permission-denied", about: "the same command, denied (control_response behavior deny, message)",
		tmpl: "_default", phase: template.PhaseWorkerExecution, scenario: "needs-permission", mode: "default", answer: deny},
	{name: "ask-user-question", about: "an AskUserQuestion call through the host permission channel, answered with updatedInput.answers",
		tmpl: "_default", phase: template.PhaseWorkerExecution, scenario: "asks-question", answer: answerQuestions},
	{name: "fault-slow", about: "a slow stream (20 ms between events)", tmpl: "_default", phase: template.PhaseAnalysis, marker: "[[sim:scenario=slow delay=20]]"},
	{name: "fault-overloaded-once", about: "HTTP 529 on the first request; the CLI retries and goes on", tmpl: "_default", phase: template.PhaseAnalysis, marker: "[[sim:scenario=overloaded times=1]]"},
	{name: "fault-overloaded", about: "HTTP 529 on every request (CLAUDE_CODE_MAX_RETRIES=0): the CLI gives up with an error result", tmpl: "_default", phase: template.PhaseAnalysis, scenario: "overloaded", env: fastFail, wantError: true},
	{name: "fault-rate-limited-once", about: "HTTP 429 with retry-after on the first request; the CLI waits and goes on", tmpl: "_default", phase: template.PhaseAnalysis, marker: "[[sim:scenario=rate-limited times=1 after=1]]"},
	{name: "fault-rate-limited-retries", about: "HTTP 429 with retry-after 2 s on the first two requests, the CLI's default retries: a system/api_retry event before each wait (attempt, max_retries, retry_delay_ms as the CLI waits it: retry-after and jitter, error_status 429, error rate_limit), then the answer", tmpl: "_default", phase: template.PhaseAnalysis, marker: "[[sim:scenario=rate-limited times=2 after=2]]"},
	{name: "fault-rate-limited-gives-up", about: "HTTP 429 with retry-after 1 s on every request, CLAUDE_CODE_MAX_RETRIES=2: two system/api_retry events, then the CLI gives up with an error result that no longer names the retry-after", tmpl: "_default", phase: template.PhaseAnalysis, scenario: "rate-limited",
		env: []string{"CLAUDE_CODE_MAX_RETRIES=2"}, wantError: true},
	{name: "fault-server-error-once", about: "HTTP 500 on the first request: system/api_retry with error_status 500 and error server_error, then the answer", tmpl: "_default", phase: template.PhaseAnalysis, marker: "[[sim:scenario=server-error times=1]]"},
	{name: "fault-unreachable", about: "nothing listens at the model's address (ANTHROPIC_BASE_URL=http://127.0.0.1:9), CLAUDE_CODE_MAX_RETRIES=2: system/api_retry events with error_status null and error unknown, then an error result with api_error connection_failed (ECONNREFUSED)", tmpl: "_default", phase: template.PhaseAnalysis,
		env: []string{"ANTHROPIC_BASE_URL=http://127.0.0.1:9", "CLAUDE_CODE_MAX_RETRIES=2"}, wantError: true},
	{name: "fault-usage-limit", about: "a subscription's usage limit (HTTP 429 with the unified rate-limit headers), the CLI logged in with a subscription token (CLAUDE_CODE_OAUTH_TOKEN): its limit message with the reset time", tmpl: "_default", phase: template.PhaseAnalysis, scenario: "usage-limit",
		env: append([]string{"CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-baton-test", "ANTHROPIC_API_KEY="}, fastFail...), wantError: true},
	{name: "fault-rate-limit-api-key", about: "the same 429 for a CLI logged in with an API key: the API key's rate-limit message", tmpl: "_default", phase: template.PhaseAnalysis, scenario: "usage-limit", env: fastFail, wantError: true},
	{name: "fault-cut-stream", about: "every stream stops in the middle of a text block (no retries): an error result", tmpl: "_default", phase: template.PhaseAnalysis, scenario: "cut-stream", env: fastFail, wantError: true},
	{name: "fault-garbage", about: "HTTP 200 with an event stream that is not the Messages API", tmpl: "_default", phase: template.PhaseAnalysis, scenario: "garbage", env: fastFail, wantError: true},
	{name: "fault-no-answer", about: "requests never answered (API_TIMEOUT_MS=3000, no retry)", tmpl: "_default", phase: template.PhaseAnalysis, scenario: "no-answer", env: fastFail, wantError: true},
	{name: "fault-worker-hangs", about: "a worker that explores, then never answers", tmpl: "_default", phase: template.PhaseWorkerExecution, scenario: "worker-hangs", env: fastFail, wantError: true},
	{name: "fault-worker-fails", about: "a worker whose command fails and who reports status failed", tmpl: "_default", phase: template.PhaseWorkerExecution, scenario: "worker-fails"},
	{name: "fault-out-of-scope", about: "a worker that also writes a file outside its scope", tmpl: "_default", phase: template.PhaseWorkerExecution, scenario: "out-of-scope"},
	{name: "fault-malformed-json", about: "an analysis block with broken JSON", tmpl: "_default", phase: template.PhaseAnalysis, scenario: "malformed-json"},
	{name: "fault-missing-fields", about: "an analysis block without its required fields", tmpl: "_default", phase: template.PhaseAnalysis, scenario: "missing-fields"},
	{name: "fault-no-delimiters", about: "an analysis block without delimiters", tmpl: "_default", phase: template.PhaseAnalysis, scenario: "no-delimiters"},
}

// TestRecordings runs every recording's prompt through the pinned CLI and
// model-sim. With -update it writes the recordings; without, it checks that
// the CLI still produces what was recorded, event by event (types, subtypes,
// content blocks and tools), so the recordings cannot silently go stale.
func TestRecordings(t *testing.T) {
	srv := startModelSim(t)
	for _, rc := range recCases {
		t.Run(rc.name, func(t *testing.T) {
			t.Parallel()
			got := record(t, srv, rc)
			if *update {
				if err := got.Save(claudecodetest.RecordingsDir()); err != nil {
					t.Fatal(err)
				}
				return
			}
			want := claudecodetest.LoadRecording(t, rc.name)
			compareShapes(t, "stream.jsonl", got.Stream, want.Stream)
			compareShapes(t, "transcript.jsonl", got.Transcript, want.Transcript)
			compareShapes(t, "input.jsonl", got.Input, want.Input)
		})
	}
	if *update {
		t.Cleanup(func() {
			// Remove recordings of cases that no longer exist.
			dirs, _ := os.ReadDir(claudecodetest.RecordingsDir())
			for _, d := range dirs {
				if d.IsDir() && !slices.ContainsFunc(recCases, func(rc recCase) bool { return rc.name == d.Name() }) {
					_ = os.RemoveAll(claudecodetest.RecordingsDir() + "/" + d.Name())
				}
			}
		})
	}
}

// record runs one case and returns its normalised recording.
func record(t *testing.T, srv *modelsim.Server, rc recCase) claudecodetest.Recording {
	t.Helper()
	dir := fixture(t)
	tmpl := systemTemplate(t, rc.tmpl)
	system, user := prompt(t, tmpl, rc.phase, dir)
	if rc.marker != "" {
		user += "\n\n" + rc.marker
	}
	session := sessionUUID(rc.name)
	scenario := rc.scenario
	if scenario != "" {
		if err := srv.SetScenario(session, scenario); err != nil {
			t.Fatal(err)
		}
	} else if rc.marker != "" {
		scenario = strings.TrimPrefix(strings.Fields(rc.marker)[0], "[[sim:scenario=")
	} else {
		scenario = "happy"
	}
	mode := rc.mode
	if mode == "" {
		mode = tmpl.Config.PermissionMode
	}
	cli := claudecodetest.New(t, srv.URL())
	cli.Env = rc.env
	args := []string{"--session-id", session, "--permission-mode", mode, "--model", tmpl.Config.Models.Main}
	if system != "" {
		args = append(args, "--append-system-prompt", system)
	}
	var res *claudecodetest.Result
	turns := 1
	if rc.print {
		res = cli.Print(dir, user, args...)
	} else {
		var follow []string
		for _, ph := range rc.next {
			_, u := prompt(t, tmpl, ph, dir)
			follow = append(follow, u)
		}
		turns += len(follow)
		var s *claudecodetest.Session
		res, s = converse(t, cli, dir, args, append([]string{user}, follow...), rc.answer)
		rec := finish(t, cli, dir, rc, res, scenario, turns)
		// Normalise all three together, so ids match across them.
		n := claudecodetest.Normalize(dir, cli.Home, cli.BaseURL, res.Stdout, res.Transcript, s.Input())
		rec.Stream, rec.Transcript, rec.Input = n[0], n[1], n[2]
		return rec
	}
	rec := finish(t, cli, dir, rc, res, scenario, turns)
	n := claudecodetest.Normalize(dir, cli.Home, cli.BaseURL, res.Stdout, res.Transcript)
	rec.Stream, rec.Transcript = n[0], n[1]
	return rec
}

// converse runs the CLI as the Claude Code host runs it: stream-json in and
// out with the host permission channel (--permission-prompt-tool stdio).
// It sends the first message, answers every can_use_tool request with
// answer (allow when nil), sends the next message after each result, and
// closes the input after the last result.
func converse(t *testing.T, cli *claudecodetest.CLI, dir string, args []string, messages []string,
	answer func(*claudecodetest.ControlRequest, string) map[string]any) (*claudecodetest.Result, *claudecodetest.Session) {
	t.Helper()
	if answer == nil {
		answer = allow
	}
	s := cli.Start(dir, append(slices.Clone(args), "--permission-prompt-tool", "stdio")...)
	s.Send(claudecodetest.UserMessage(messages[0]))
	messages = messages[1:]
	var seen []string // the last events, to say where it stopped
	for {
		e, ok := s.Next(3 * time.Minute)
		if !ok {
			t.Fatalf("the CLI ended without a result; its last events:\n%s\nstderr: %s", strings.Join(seen, "\n"), s.Stderr())
		}
		if seen = append(seen, string(e.Raw)); len(seen) > 4 {
			seen = seen[1:]
		}
		switch {
		case e.Type == "control_request" && (e.Request == nil || e.Request.Subtype != "can_use_tool"):
			t.Fatalf("the CLI asks what the test does not answer: %s", e.Raw)
		case e.Type == "control_request":
			s.Send(answer(e.Request, e.RequestID))
		case e.Type == "result" && len(messages) > 0:
			s.Send(claudecodetest.UserMessage(messages[0]))
			messages = messages[1:]
		case e.Type == "result":
			return s.Close(), s
		}
	}
}

// finish checks what every run must show and fills the recording's meta.
func finish(t *testing.T, cli *claudecodetest.CLI, dir string, rc recCase, res *claudecodetest.Result, scenario string, turns int) claudecodetest.Recording {
	t.Helper()
	evs, err := res.Events()
	if err != nil {
		t.Fatalf("stream-json: %v\n%s", err, res.Stdout)
	}
	var results []claudecodetest.Event
	for _, e := range evs {
		if e.Type == "result" {
			results = append(results, e)
		}
	}
	if len(results) != turns {
		t.Fatalf("%d result events for %d prompts; exit %d; stderr: %s", len(results), turns, res.ExitCode, res.Stderr)
	}
	var last struct {
		IsError bool `json:"is_error"`
	}
	_ = json.Unmarshal(results[len(results)-1].Raw, &last)
	if failed := last.IsError || res.ExitCode != 0; failed != rc.wantError {
		t.Fatalf("error result %v, exit code %d; want an error: %v\nlast event: %s\nstderr: %s", last.IsError, res.ExitCode, rc.wantError, results[len(results)-1].Raw, res.Stderr)
	}
	if len(res.Transcript) == 0 {
		t.Fatalf("the CLI wrote no transcript under %s", cli.Home)
	}
	t.Logf("the CLI ran %s", res.Duration.Round(time.Millisecond))
	args := make([]string, 0, len(res.Args))
	for i, a := range res.Args {
		if i > 0 && (res.Args[i-1] == "-p" && !strings.HasPrefix(a, "--") || res.Args[i-1] == "--append-system-prompt") {
			a = "…"
		}
		args = append(args, a)
	}
	return claudecodetest.Recording{Name: rc.name, Meta: claudecodetest.Meta{
		CLIVersion: claudecodetest.Version, Template: rc.tmpl, Phase: string(rc.phase),
		Dialect: dialectOf(t, rc.tmpl), Scenario: scenario, Args: args, Env: rc.env,
		ExitCode: res.ExitCode, Turns: turns, About: rc.about,
	}}
}

func dialectOf(t *testing.T, id string) string {
	return systemTemplate(t, id).Prompts.ResponseFormat.Dialect
}

// shapes is what the lines must keep from recording to recording: each
// line's type and subtype, and for messages the kinds of their content
// blocks and the tools they call. Claude Code's bookkeeping lines
// (attachment, api-request, …) are returned by type only, as a set. What
// depends on timing is left out: the CLI moves a long Bash command to a
// background task (system/task_started, task_notification) and reports
// tool_progress only when the command runs long enough.
func shapes(data []byte) (conversation []string, other []string) {
	seen := map[string]bool{}
	for _, l := range claudecodetest.Lines(data) {
		var e struct {
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
			Message json.RawMessage
			Request *struct {
				Subtype  string `json:"subtype"`
				ToolName string `json:"tool_name"`
			} `json:"request"`
		}
		if json.Unmarshal(l, &e) != nil {
			conversation = append(conversation, "not JSON")
			continue
		}
		if e.Type == "tool_progress" || e.Type == "progress" || e.Type == "system" && strings.HasPrefix(e.Subtype, "task_") {
			continue
		}
		switch e.Type {
		case "user", "assistant", "result", "system", "control_request", "control_response":
		default:
			if !seen[e.Type] {
				seen[e.Type] = true
				other = append(other, e.Type)
			}
			continue
		}
		s := e.Type
		if e.Subtype != "" {
			s += "/" + e.Subtype
		}
		if e.Request != nil {
			s += " " + e.Request.Subtype + " " + e.Request.ToolName
		}
		var msg struct {
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(e.Message, &msg)
		var blocks []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		}
		if json.Unmarshal(msg.Content, &blocks) == nil {
			for _, b := range blocks {
				s += " " + b.Type
				if b.Name != "" {
					s += ":" + b.Name
				}
			}
		} else if len(msg.Content) > 0 {
			s += " string"
		}
		conversation = append(conversation, s)
	}
	slices.Sort(other)
	return conversation, other
}

func compareShapes(t *testing.T, file string, got, want []byte) {
	t.Helper()
	gc, gcOther := shapes(got)
	wc, wcOther := shapes(want)
	if !slices.Equal(gc, wc) {
		t.Errorf("%s: the CLI's events differ from the recording (re-record with go test ./backend/claudecodetest -run TestRecordings -update):\ngot:\n  %s\nrecorded:\n  %s",
			file, strings.Join(gc, "\n  "), strings.Join(wc, "\n  "))
	}
	for _, typ := range wcOther {
		if slices.Contains([]string{"queue-operation", "attachment", "api-request", "cost-state", "last-prompt"}, typ) && !slices.Contains(gcOther, typ) {
			t.Errorf("%s: the recording has %q lines and the CLI wrote none now (re-record with -update)", file, typ)
		}
	}
}
