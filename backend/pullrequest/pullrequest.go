// Package pullrequest opens a pull request for a pushed branch with the
// GitHub CLI, gh, when it is installed and logged in, and otherwise says
// the exact command that opens it. The one rule: Baton never asks for or
// keeps credentials; gh runs with the user's own environment and login.
package pullrequest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Request is a pull request to open.
type Request struct {
	// Repo is the repository's folder; gh runs there.
	Repo string
	// Head is the pushed branch; Base the branch to merge it into ("" the
	// repository's default branch).
	Head, Base  string
	Title, Body string
	// BodyFile is where the body is written for the command (the window
	// shows the command; gh itself reads the body from its input).
	BodyFile string
}

// ErrNoGH: gh is not installed (not on PATH).
var ErrNoGH = errors.New("the GitHub CLI (gh) is not installed")

// NotLoggedInError: gh is installed but not logged in; Msg is what gh said.
type NotLoggedInError struct{ Msg string }

func (e *NotLoggedInError) Error() string {
	if e.Msg == "" {
		return "gh is not logged in: run gh auth login"
	}
	return "gh is not logged in (" + e.Msg + "): run gh auth login"
}

// Command is the shell command that opens req's pull request by hand, its
// body read from req.BodyFile.
func Command(req Request) string {
	args := []string{"gh", "pr", "create", "--head", quote(req.Head)}
	if req.Base != "" {
		args = append(args, "--base", quote(req.Base))
	}
	args = append(args, "--title", quote(req.Title), "--body-file", quote(req.BodyFile))
	return "cd " + quote(req.Repo) + " && " + strings.Join(args, " ")
}

// WriteBody writes req.Body to req.BodyFile (its folder made when needed).
func WriteBody(req Request) error {
	if req.BodyFile == "" {
		return errors.New("no file for the pull request's text")
	}
	if err := os.MkdirAll(filepath.Dir(req.BodyFile), 0o700); err != nil {
		return err
	}
	return os.WriteFile(req.BodyFile, []byte(req.Body), 0o600)
}

var urlRe = regexp.MustCompile(`https?://\S+`)

// Open opens req's pull request with gh and returns its URL. Without gh it
// is ErrNoGH; when gh is not logged in, a *NotLoggedInError; otherwise a
// failure carries gh's words.
func Open(ctx context.Context, req Request) (string, error) {
	gh, err := exec.LookPath("gh")
	if err != nil {
		return "", ErrNoGH
	}
	if out, err := run(ctx, req.Repo, gh, "", "auth", "status"); err != nil {
		return "", &NotLoggedInError{Msg: firstLine(out)}
	}
	args := []string{"pr", "create", "--head", req.Head, "--title", req.Title, "--body-file", "-"}
	if req.Base != "" {
		args = append(args, "--base", req.Base)
	}
	out, err := run(ctx, req.Repo, gh, req.Body, args...)
	if err != nil {
		return "", fmt.Errorf("gh pr create: %s", strings.TrimSpace(out))
	}
	urls := urlRe.FindAllString(out, -1)
	if len(urls) == 0 {
		return "", fmt.Errorf("gh pr create said no address: %s", strings.TrimSpace(out))
	}
	return urls[len(urls)-1], nil
}

// run runs gh in dir with the user's environment (never prompting), input
// on its standard input, and returns both of its streams.
func run(ctx context.Context, dir, gh, input string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, gh, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GH_PROMPT_DISABLED=1", "NO_COLOR=1", "GH_NO_UPDATE_NOTIFIER=1")
	cmd.Stdin = strings.NewReader(input)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// quote quotes s for a POSIX shell when it needs it.
func quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(c rune) bool {
		return !(c == '/' || c == '.' || c == '-' || c == '_' || c == ':' || c == '@' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
