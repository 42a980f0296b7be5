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
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cdpURL := fs.String("cdp", chrome.DefaultEndpoint, "DevTools endpoint of Claude Desktop (or of \"baton sim\")")
	chromePath := fs.String("chrome", "", "path of Chrome or Chromium to check")
	pattern := fs.String("page", "", "page URL pattern (default: "+strings.Join(claude.PagePatterns, ", ")+")")
	allowRemote := fs.Bool("allow-remote", false, "allow an endpoint that is not on this machine (unsafe)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "baton doctor takes no arguments besides its flags; run \"baton help doctor\".")
		return 2
	}
	var patterns []string
	if *pattern != "" {
		patterns = []string{*pattern}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r := claude.Diagnose(ctx, claude.DoctorOptions{Endpoint: *cdpURL, ChromePath: *chromePath, PagePatterns: patterns, AllowRemote: *allowRemote})
	printReport(stdout, r)
	if !r.OK {
		return 1
	}
	fmt.Fprintln(stdout, "Baton can drive the sessions at "+r.Endpoint+".")
	return 0
}
