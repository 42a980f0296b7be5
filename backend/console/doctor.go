package console

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/chrome"
	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/claudecode"
	"github.com/baton-app/baton/backend/settings"
)

// printReport writes the doctor's report for a person.
func printReport(w io.Writer, r claude.Report) {
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "%s %-9s %s\n", mark, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(w, "     fix: %s\n", c.Fix)
		}
	}
	if len(r.Methods) > 0 {
		fmt.Fprintln(w, "LocalSessions methods:")
		for _, m := range r.Methods {
			state := "present"
			if !m.Present {
				state = "missing"
			}
			kind := "optional"
			if m.Required {
				kind = "required"
			}
			fmt.Fprintf(w, "  %-26s %s (%s)\n", m.Name, state, kind)
		}
	}
}

// DoctorCLI is "baton doctor [--cdp URL]".
func DoctorCLI(args []string, stdout, stderr io.Writer) int {
	fs, o := doctorFlagSet()
	fs.SetOutput(stderr)
	cdpURL, chromePath, pattern, allowRemote, host, claudePath := o.cdpURL, o.chromePath, o.pattern, o.allowRemote, o.host, o.claudePath
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "baton doctor takes no arguments besides its flags; run \"baton help doctor\".")
		return 2
	}
	if *claudePath != "" {
		*host = "claude-code"
	}
	switch *host {
	case "claude-code":
		return doctorClaudeCode(*claudePath, stdout)
	case "desktop", "sim":
	default:
		fmt.Fprintf(stderr, "baton doctor: --host must be desktop or claude-code, not %q\n", *host)
		return 2
	}
	chosen := false // --cdp or --host names what to check, whatever the settings say
	fs.Visit(func(f *flag.Flag) { chosen = chosen || f.Name == "cdp" || f.Name == "host" })
	if path, err := settings.DefaultPath(); err == nil {
		if problem := settings.Open(path).Problem(); problem != nil {
			fmt.Fprintf(stderr, "baton doctor: %v\n", problem)
			if !chosen {
				fmt.Fprintln(stderr, "baton doctor: give --cdp URL to check a host anyway, or fix the file.")
				return ExitSettings
			}
		}
	}
	var patterns []string
	if *pattern != "" {
		patterns = []string{*pattern}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := claude.Diagnose(ctx, claude.DoctorOptions{Endpoint: *cdpURL, ChromePath: *chromePath, PagePatterns: patterns, AllowRemote: *allowRemote})
	printReport(stdout, r)
	printGitCheck(stdout)
	if !r.OK {
		return 1
	}
	fmt.Fprintln(stdout, "Baton can drive the sessions at "+r.Endpoint+".")
	return 0
}

// doctorClaudeCode is "baton doctor --host claude-code": the CLI exists, is
// recent enough, and answers one tiny request.
func doctorClaudeCode(path string, stdout io.Writer) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r := claudecode.Diagnose(ctx, claudecode.DoctorOptions{Path: path})
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(stdout, "%s %-15s %s\n", mark, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(stdout, "     fix: %s\n", c.Fix)
		}
	}
	printGitCheck(stdout)
	if !r.OK {
		return 1
	}
	fmt.Fprintf(stdout, "Baton can run its sessions with Claude Code %s at %s.\n", r.Version, r.Path)
	return 0
}

type doctorOptions struct {
	cdpURL      *string
	chromePath  *string
	pattern     *string
	allowRemote *bool
	host        *string
	claudePath  *string
}

// doctorFlagSet defines the flags of "baton doctor": its help lists them all.
func doctorFlagSet() (*flag.FlagSet, *doctorOptions) {
	o := &doctorOptions{}
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.cdpURL = fs.String("cdp", chrome.DefaultEndpoint, "DevTools endpoint of Claude Desktop (or of \"baton sim\")")
	o.chromePath = fs.String("chrome", "", "path of Chrome or Chromium to check")
	o.pattern = fs.String("page", "", "page URL pattern (default: "+strings.Join(claude.PagePatterns, ", ")+")")
	o.allowRemote = fs.Bool("allow-remote", false, "allow an endpoint that is not on this machine (unsafe)")
	o.host = fs.String("host", "desktop", "the host to check: desktop (Claude Desktop or \"baton sim\") or claude-code")
	o.claudePath = fs.String("claude", "", "the Claude Code CLI to check (implies --host claude-code; default: claude on PATH)")
	return fs, o
}
