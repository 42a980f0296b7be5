package console

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/baton-app/baton/backend/remote"
	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/session"
)

// Build says which build of Baton runs; main sets it from its link flags,
// with what only the main package has: the frontend it embeds and the
// window's bindings ("baton serve" serves both to browsers).
type Build struct {
	Version, Commit, Date string
	// Frontend is the built frontend (index.html at its root).
	Frontend fs.FS
	// Bindings returns the window's binding object over svc, as browsers
	// call it; access is the remote access that serves it.
	Bindings func(svc *service.Services, access *remote.Access) any
}

// command is one headless subcommand of the baton binary. Its run function
// receives the arguments after the subcommand name and returns the process
// exit code; it must not touch the display, so it works over SSH and in CI.
type command struct {
	name    string
	usage   string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
	// flags returns the command's flag set, the one its run function
	// parses with (nil: no flags): "baton help COMMAND" lists every one.
	flags func() *flag.FlagSet
	// details is more help text after the summary ("" none): paragraphs
	// split by blank lines.
	details string
	// exits: the command exits with the code of a run's outcome; its help
	// lists the exit codes.
	exits bool
}

func fsOnly[T any](f func() (*flag.FlagSet, T)) func() *flag.FlagSet {
	return func() *flag.FlagSet { fs, _ := f(); return fs }
}

// plain adapts a subcommand that reads no input.
func plain(run func(args []string, stdout, stderr io.Writer) int) func([]string, io.Reader, io.Writer, io.Writer) int {
	return func(args []string, _ io.Reader, stdout, stderr io.Writer) int { return run(args, stdout, stderr) }
}

// commands lists every subcommand of build b.
func commands(b Build) []command {
	return []command{
		{name: "version", usage: "baton version", summary: "print the version of Baton: its version, commit and build date", run: plain(func(args []string, stdout, stderr io.Writer) int {
			return versionCLI(b, args, stdout, stderr)
		})},
		{name: "templates", usage: "baton templates list | show ID [--resolved] | validate FILE", summary: "list, show and check orchestration templates", run: plain(TemplatesCLI),
			flags: templatesFlagSet, details: "\"baton templates show ID\" lists the template's variables, the required ones marked; give them to \"baton run\" as --var NAME=VALUE."},
		{name: "doctor", usage: "baton doctor [--cdp URL] [--chrome PATH] [--page PATTERN] [--allow-remote] | baton doctor --host claude-code [--claude PATH] | baton doctor --host sim | baton doctor --machine NAME", summary: "check that Baton can reach the host saved in Settings (or the one --host or --cdp names): Claude Desktop (or the simulator) and its session API, the Claude Code CLI, or the simulator it embeds", run: plain(DoctorCLI), flags: fsOnly(doctorFlagSet),
			details: "The same test as Test connection in Settings, one report for every host, of the host saved in Settings unless --host or --cdp names another: for Claude Desktop Chrome, the endpoint, the page and its session methods; the Claude Code CLI with --host claude-code (is it there, recent enough, does it answer one tiny request); the simulator Baton embeds with --host sim; another machine of \"baton machines\" with --machine NAME (the SSH connection, git there, its workspace writable, the CLI there and one tiny request). Each problem comes with one sentence saying how to fix it, then the git version. --chrome, --page and --allow-remote change those settings for the check; the others come from Settings. Without --cdp or --host, a settings file Baton cannot use stops it with exit code 2."},
		{name: "machines", usage: machinesUsage, summary: "add, list, test and remove the other machines that worktree runs place workers on over SSH", run: plain(MachinesCLI),
			flags: func() *flag.FlagSet { fs, _, _, _ := machinesFlagSet(); return fs }, details: machinesDetails},
		{name: "sim", usage: "baton sim [--port N] [--scenario NAME] [--scenario-for MATCH=NAME] [--speed X] [--chrome PATH] [--headed] [--shapes real|LIST] [--replay FILE]", summary: "run the simulator (no AI) as a stand-in for Claude Desktop", run: plain(SimCLI), flags: fsOnly(simFlagSet),
			details: "It runs in its own process with its own Chromium and prints the endpoint to attach to (baton run --cdp URL). --shapes real makes it take the real Claude Desktop's reported shapes; --replay FILE serves a \"baton probe\" recording."},
		{name: "probe", usage: ProbeUsage, summary: "record, with your consent, what Claude Desktop's session API really returns, for a bug report or \"baton sim --replay\"", run: ProbeCLI,
			flags: fsOnly(probeFlagSet), details: probeDetails},
		{name: "model-sim", usage: ModelSimUsage, summary: "run a stand-in for the Anthropic Messages API (no AI) for the real Claude Code CLI", run: plain(RunModelSim), flags: fsOnly(modelSimFlagSet),
			details: "It prints its URL; the CLI talks to it with ANTHROPIC_BASE_URL=URL, ANTHROPIC_API_KEY=any and CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, runs its real tools on real files, and only the model's words are scripted. It listens on the loopback address only."},
		{name: "run", usage: "baton run --template ID --message TEXT [--cwd DIR] [--var K=V]... [--yes] [--plan FILE] [--permission-mode MODE] [--host sim|desktop|claude-code] [--cdp URL] [--claude PATH] [--scenario NAME] [--sim-speed X] [--budget USD] [--budget-tokens N] [--isolation worktree|shared] [--allow RULE]... [--deny RULE]... [--machine NAME]... [--apply] [--non-interactive] | --resume RUN_ID [--yes] [--plan FILE] [--budget USD] [--apply] [--non-interactive]", summary: "run a whole orchestration in the terminal", run: RunCLI,
			flags: fsOnly(runFlagSet), details: strings.Replace(runDetails, "MODES", strings.Join(session.PermissionModes, ", "), 1) + "\n\n" + runTerminalDetails, exits: true},
		{name: "history", usage: "baton history [--status S[,S]] [--template ID] [--search TEXT] [--limit N]", summary: "list past runs", run: plain(HistoryCLI), flags: fsOnly(historyFlagSet),
			details: "Newest first, each with its outcome; --status takes completed_with_issues or \"completed with issues\" alike."},
		{name: "active", usage: activeUsage, summary: "list the runs that have not finished (running, paused, interrupted or waiting for you), as the window's Runs view does", run: plain(ActiveCLI),
			details: "Newest first: a run the window drives, a paused, interrupted or waiting one, with the process that drives each (Baton's window, a baton run) and how to resume or cancel it."},
		{name: "show", usage: showUsage, summary: "show one run: who drives it now, its outcome and issues, host, tasks, result, conflicts, verification, the checks Baton ran, the permission log, files, open questions and final report", run: plain(ShowCLI)},
		{name: "export", usage: exportUsage, summary: "write a run's report as Markdown, or the whole run as JSON", run: plain(ExportCLI),
			flags: func() *flag.FlagSet { fs, _, _ := exportFlagSet(); return fs }},
		{name: "cancel", usage: cancelUsage, summary: "cancel a run that has not finished (waiting for its plan, paused or interrupted)", run: plain(CancelCLI), details: "A run the window or another \"baton run\" drives is not cancelled here: the command names the process that drives it and changes nothing. What was done is kept with its final report. It prints one sentence; --verbose adds the log of stopping the run's sessions.",
			flags: fsOnly(cancelFlagSet)},
		{name: "apply", usage: applyUsage, summary: "apply a finished worktree run's changes to your current branch, all of them or only some tasks'", run: plain(ApplyCLI),
			flags: fsOnly(applyFlagSet), details: applyDetails},
		{name: "discard", usage: discardUsage, summary: "drop a finished worktree run's branch and worktrees, after saying what goes", run: DiscardCLI,
			flags: fsOnly(discardFlagSet), details: discardDetails},
		{name: "push", usage: pushUsage, summary: "push a finished worktree run's branch to a remote, and open a pull request for it", run: plain(PushCLI),
			flags: func() *flag.FlagSet { fs, _, _ := pushFlagSet(); return fs }, details: pushDetails},
		{name: "delete", usage: deleteUsage, summary: "delete a finished run from the history (the files it wrote stay)", run: plain(DeleteCLI),
			details: "A run that has not finished, an interrupted one included, is refused with a sentence and left untouched: cancel it first."},
		{name: "serve", usage: serveUsage, summary: "serve the window to browsers, on a phone or another computer, behind an access link", run: plain(func(args []string, stdout, stderr io.Writer) int {
			return ServeCLI(b, args, stdout, stderr)
		}), flags: fsOnly(serveFlagSet), details: serveDetails},
		{name: "parse", usage: "baton parse FILE [--phase PHASE] [--json] [--start DELIM --end DELIM]", summary: "read an agent transcript or reply and show the answers Baton finds in it", run: plain(ParseCLI), flags: fsOnly(parseFlagSet),
			details: "It reads a transcript (a JSON array or JSON lines) or a plain reply and shows the answers Baton finds, what it repaired, and the follow-up it would send: for debugging templates."},
		{name: "help", usage: "baton help [COMMAND] | --man", summary: "show this help, or the help of one command", run: plain(func(args []string, stdout, stderr io.Writer) int {
			return helpCLI(b, args, stdout, stderr)
		}), flags: helpFlagSet, details: "--man writes the manual page baton(1), made from the same table of commands as this help (the packages install it)."},
	}
}

// findCommand returns the subcommand called name.
func findCommand(b Build, name string) (command, bool) {
	for _, c := range commands(b) {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// Main runs the subcommand in args[0] and returns its exit code. Stdin
// answers what "baton run" asks.
func Main(args []string, b Build, stdin io.Reader, stdout, stderr io.Writer) int {
	c, ok := findCommand(b, args[0])
	if !ok {
		fmt.Fprintf(stderr, "baton: unknown command %q. Run \"baton help\" to see the commands.\n", args[0])
		return 2
	}
	// --help (or -h) anywhere asks for the command's help, which is not an
	// error.
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			commandHelp(c, safe(stdout))
			return 0
		}
	}
	// Text from agents and files is printed; nothing in it may control the
	// terminal.
	return c.run(args[1:], stdin, safe(stdout), safe(stderr))
}

func versionCLI(b Build, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "baton version takes no arguments.")
		return 2
	}
	fmt.Fprintf(stdout, "baton %s (commit %s, built %s)\n", b.Version, b.Commit, b.Date)
	return 0
}

func helpFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("help", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Bool("man", false, "write the manual page baton(1) in roff")
	return fs
}

func helpCLI(b Build, args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "--man" || args[0] == "-man") {
		WriteManPage(stdout, b)
		return 0
	}
	if len(args) > 1 {
		fmt.Fprintln(stderr, "baton help takes at most one command name.")
		return 2
	}
	if len(args) == 1 {
		c, ok := findCommand(b, args[0])
		if !ok {
			fmt.Fprintf(stderr, "baton: unknown command %q. Run \"baton help\" to see the commands.\n", args[0])
			return 2
		}
		commandHelp(c, stdout)
		return 0
	}
	fmt.Fprint(stdout, "Baton runs one large request as many Claude Code sessions in parallel.\n\n")
	fmt.Fprint(stdout, "usage:\n  baton              open the desktop window\n  baton COMMAND ...  run a command without a window\n\ncommands:\n")
	for _, c := range commands(b) {
		fmt.Fprintf(stdout, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(stdout, "\nRun \"baton help COMMAND\" for the usage of one command.\n")
	return 0
}

// capitalize upper-cases the first character (a rune, not a byte).
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// commandHelp writes the usage, the summary, the details and every flag of
// command c.
func commandHelp(c command, w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n%s.\n", c.usage, capitalize(c.summary))
	if c.details != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.details))
	}
	if fl := flagsOf(c); len(fl) > 0 {
		fmt.Fprintln(w, "\nflags:")
		for _, f := range fl {
			head, usage := flagHead(f)
			fmt.Fprintf(w, "  %-24s %s\n", head, usage)
		}
	}
	if c.exits {
		writeExitCodes(w)
	}
}
