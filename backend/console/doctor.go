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
	"github.com/baton-app/baton/backend/service"
)

// DoctorCLI is "baton doctor [--host KIND] [--cdp URL] …": the host test
// of the service, as the Settings view's Test connection runs it, for the
// host saved in Settings unless the flags name another (--host, --cdp for
// Claude Desktop, --claude for the Claude Code CLI), then the git line.
func DoctorCLI(args []string, stdout, stderr io.Writer) int {
	fs, o := doctorFlagSet()
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "baton doctor takes no arguments besides its flags; run \"baton help doctor\".")
		return 2
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["machine"] {
		for f := range given {
			if f != "machine" {
				fmt.Fprintf(stderr, "baton doctor --machine checks a machine of \"baton machines\" and takes no --%s.\n", f)
				return 2
			}
		}
		ms, err := service.OpenMachines(quietLogger(io.Discard))
		if err != nil {
			fmt.Fprintf(stderr, "baton doctor: %v\n", err)
			return 1
		}
		if p := ms.Problem(); p != nil {
			fmt.Fprintf(stderr, "baton doctor: %v\n", p)
			return 1
		}
		return machineDoctor(ms, *o.machine, stdout, stderr)
	}
	// The saved host unless a flag names another: --host, --cdp (Claude
	// Desktop) or --claude (the Claude Code CLI).
	over := service.HostOverrides{Host: *o.host, Claude: *o.claudePath, Chrome: *o.chromePath, Page: *o.pattern, AllowRemote: *o.allowRemote}
	if given["cdp"] {
		over.CDP = *o.cdpURL
	}
	svc, err := service.OpenHosts(service.Options{Logger: quietLogger(stderr), Host: over})
	if err != nil {
		fmt.Fprintf(stderr, "baton doctor: %v\n", err)
		return 2
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = svc.Close(ctx)
	}()
	if problem := svc.Settings.Problem(); problem != nil {
		fmt.Fprintf(stderr, "baton doctor: %v\n", problem)
		// --cdp, --host or --claude names what to check, whatever the
		// settings say.
		if !given["cdp"] && !given["host"] && !given["claude"] {
			fmt.Fprintln(stderr, "baton doctor: give --host (or --cdp URL) to check a host anyway, or fix the file.")
			return ExitSettings
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := svc.TestHost(ctx, svc.Hosts.Settings())
	if err != nil {
		fmt.Fprintf(stderr, "baton doctor: %v\n", err)
		return 2
	}
	r.Print(stdout)
	printGitCheck(stdout)
	if !r.OK {
		return 1
	}
	fmt.Fprintln(stdout, r.Verdict)
	return 0
}

type doctorOptions struct {
	cdpURL      *string
	chromePath  *string
	pattern     *string
	allowRemote *bool
	host        *string
	claudePath  *string
	machine     *string
}

// doctorFlagSet defines the flags of "baton doctor": its help lists them all.
func doctorFlagSet() (*flag.FlagSet, *doctorOptions) {
	o := &doctorOptions{}
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.cdpURL = fs.String("cdp", "", "DevTools endpoint of Claude Desktop (or of \"baton sim\") to check (implies --host desktop; default: the one in Settings, else "+chrome.DefaultEndpoint+")")
	o.chromePath = fs.String("chrome", "", "path of Chrome or Chromium to check (default: the one in Settings, else found)")
	o.pattern = fs.String("page", "", "page URL pattern (default: the one in Settings, else "+strings.Join(claude.PagePatterns, ", ")+")")
	o.allowRemote = fs.Bool("allow-remote", false, "allow an endpoint that is not on this machine (unsafe)")
	o.host = fs.String("host", "", "the host to check: desktop (Claude Desktop or \"baton sim\"), claude-code, or sim (the simulator Baton embeds, started for the check); default: the host saved in Settings")
	o.claudePath = fs.String("claude", "", "the Claude Code CLI to check (implies --host claude-code; default: claude on PATH)")
	o.machine = fs.String("machine", "", "check the machine of \"baton machines\" called NAME instead: SSH, git, the workspace, the CLI there and one tiny request")
	return fs, o
}
