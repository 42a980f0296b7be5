package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/doctor"
)

// MinVersion is the oldest Claude Code CLI Baton supports: the version its
// tests run (tools/claude-code). The README states it.
const MinVersion = "2.1.328"

// DoctorOptions say which CLI to check and how.
type DoctorOptions struct {
	// Path of the binary; "claude" on PATH when empty.
	Path string
	// Launcher runs it; Local when nil.
	Launcher Launcher
	// BaseEnv and Env as in Options.
	BaseEnv []string
	Env     []string
	// Timeout bounds the tiny request; 90 seconds when zero.
	Timeout time.Duration
	// Dir is the empty folder the tiny request runs in, on the launcher's
	// machine; a new temporary folder on this machine when empty.
	Dir string
}

// Diagnose checks that the binary exists, that its version is at least
// MinVersion, and that it answers one tiny request (no tools, no session
// kept). It never fails: every problem is a failed check with a fix.
func Diagnose(ctx context.Context, opts DoctorOptions) doctor.Report {
	l := opts.Launcher
	if l == nil {
		l = Local{}
	}
	var r doctor.Report
	check := func(c doctor.Check) { r.Checks = append(r.Checks, c) }
	path, err := l.Find(opts.Path)
	if err != nil {
		check(doctor.Check{Name: "Claude Code CLI", Detail: err.Error(),
			Fix: "Install Claude Code (npm install -g @anthropic-ai/claude-code) or give the path of its claude binary in Settings or with --claude PATH."})
		return r
	}
	r.Target = path
	check(doctor.Check{Name: "Claude Code CLI", OK: true, Detail: path})

	env := opts.BaseEnv
	if env == nil {
		env = os.Environ()
	}
	env = append(slices.Clip(env), opts.Env...)

	vctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	out, err := run(vctx, l, Command{Path: path, Args: []string{"--version"}, Env: env})
	cancel()
	version := ParseVersion(string(out))
	switch {
	case err != nil:
		check(doctor.Check{Name: "Version", Detail: fmt.Sprintf("%s --version failed: %v", path, err),
			Fix: "Reinstall Claude Code (npm install -g @anthropic-ai/claude-code): this binary does not run."})
		return r
	case version == "":
		check(doctor.Check{Name: "Version", Detail: fmt.Sprintf("%s --version printed %q", path, strings.TrimSpace(string(out))),
			Fix: "Give the path of the Claude Code CLI: this binary does not say which Claude Code it is."})
		return r
	case CompareVersions(version, MinVersion) < 0:
		r.Version = version
		check(doctor.Check{Name: "Version", Detail: fmt.Sprintf("Claude Code %s is older than %s", version, MinVersion),
			Fix: fmt.Sprintf("Update Claude Code to %s or newer (claude update, or npm install -g @anthropic-ai/claude-code).", MinVersion)})
		return r
	}
	r.Version = version
	check(doctor.Check{Name: "Version", OK: true, Detail: fmt.Sprintf("Claude Code %s (at least %s)", version, MinVersion)})

	check(tinyRequest(ctx, l, path, env, opts.Dir, opts.Timeout))
	r.OK = true
	for _, c := range r.Checks {
		r.OK = r.OK && c.OK
	}
	if r.OK {
		r.Verdict = fmt.Sprintf("Baton can run its sessions with Claude Code %s at %s.", r.Version, r.Target)
	}
	return r
}

// tinyRequest asks the CLI for one short answer in an empty folder.
func tinyRequest(ctx context.Context, l Launcher, path string, env []string, dir string, timeout time.Duration) doctor.Check {
	const name = "A tiny request"
	if timeout <= 0 {
		timeout = 90 * time.Second
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "baton-doctor-")
		if err != nil {
			return doctor.Check{Name: name, Detail: err.Error(), Fix: "Free some disk space: Baton could not make a temporary folder."}
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	var stderr bytes.Buffer // read once run returned
	stdout, runErr := run(rctx, l, Command{Path: path, Env: env, Dir: dir, Stderr: &stderr,
		Args: []string{"-p", "Reply with the word OK.", "--output-format", "json", "--no-session-persistence", "--tools", ""}})
	took := time.Since(start).Round(100 * time.Millisecond)
	if rctx.Err() != nil {
		return doctor.Check{Name: name, Detail: fmt.Sprintf("no answer within %s", timeout),
			Fix: "Check the network and your login: run claude -p \"hi\" in a terminal to see where it waits."}
	}
	var res struct {
		IsError    bool                       `json:"is_error"`
		Result     string                     `json:"result"`
		Cost       float64                    `json:"total_cost_usd"`
		ModelUsage map[string]json.RawMessage `json:"modelUsage"`
	}
	line := lastJSONLine(stdout)
	if line == nil || json.Unmarshal(line, &res) != nil {
		reason := firstLine(strings.TrimSpace(stderr.String()), 300)
		if reason == "" && runErr != nil {
			reason = runErr.Error()
		}
		return doctor.Check{Name: name, Detail: "the CLI gave no answer: " + reason, Fix: advice(reason)}
	}
	if res.IsError {
		return doctor.Check{Name: name, Detail: firstLine(res.Result, 300), Fix: advice(res.Result)}
	}
	var models []string
	for m := range res.ModelUsage {
		models = append(models, m)
	}
	slices.Sort(models)
	return doctor.Check{Name: name, OK: true, Detail: fmt.Sprintf("answered in %s (%s, $%.4f)", took, strings.Join(models, ", "), res.Cost)}
}

// advice is the sentence for a failed request, from what the CLI said.
func advice(said string) string {
	s := strings.ToLower(said)
	switch {
	case strings.Contains(s, "not logged in"), strings.Contains(s, "/login"), strings.Contains(s, "invalid api key"),
		strings.Contains(s, "authentication"), strings.Contains(s, "401"), strings.Contains(s, "oauth"):
		return "Log in: run claude once in a terminal and follow /login, or set ANTHROPIC_API_KEY before starting Baton."
	case strings.Contains(s, "econnrefused"), strings.Contains(s, "enotfound"), strings.Contains(s, "connection"),
		strings.Contains(s, "network"), strings.Contains(s, "timed out"), strings.Contains(s, "proxy"), strings.Contains(s, "fetch failed"):
		return "Check the network (and ANTHROPIC_BASE_URL or proxy settings, if you set any): the CLI could not reach its model."
	case strings.Contains(s, "limit"), strings.Contains(s, "429"), strings.Contains(s, "overloaded"), strings.Contains(s, "529"):
		return "Wait until the limit resets (the CLI's message says when), then test again."
	}
	return "Run claude -p \"hi\" in a terminal to see what the CLI needs."
}

func lastJSONLine(b []byte) []byte {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if l := bytes.TrimSpace(lines[i]); len(l) > 0 && l[0] == '{' {
			return l
		}
	}
	return nil
}

var versionRE = regexp.MustCompile(`\b(\d+)\.(\d+)\.(\d+)\b`)

// ParseVersion finds the version in `claude --version` output such as
// "2.1.328 (Claude Code)"; "" when there is none.
func ParseVersion(out string) string {
	if !strings.Contains(out, "Claude Code") {
		return ""
	}
	return versionRE.FindString(out)
}

// CompareVersions compares two x.y.z versions like strings.Compare.
func CompareVersions(a, b string) int {
	pa, pb := versionRE.FindStringSubmatch(a), versionRE.FindStringSubmatch(b)
	if pa == nil || pb == nil {
		return strings.Compare(a, b)
	}
	for i := 1; i <= 3; i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// Version runs `claude --version` through l (Local when nil) and returns
// the version.
func Version(ctx context.Context, l Launcher, path string) (string, error) {
	if l == nil {
		l = Local{}
	}
	p, err := l.Find(path)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := run(ctx, l, Command{Path: p, Args: []string{"--version"}, Env: os.Environ()})
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", p, err)
	}
	v := ParseVersion(string(out))
	if v == "" {
		return "", errors.New(p + " does not say it is Claude Code")
	}
	return v, nil
}
