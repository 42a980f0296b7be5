package console

import (
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"
)

// Build says which build of Baton runs; main sets it from its link flags.
type Build struct {
	Version, Commit, Date string
}

// command is one headless subcommand of the baton binary. Its run function
// receives the arguments after the subcommand name and returns the process
// exit code; it must not touch the display, so it works over SSH and in CI.
type command struct {
	name    string
	usage   string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// plain adapts a subcommand that reads no input.
func plain(run func(args []string, stdout, stderr io.Writer) int) func([]string, io.Reader, io.Writer, io.Writer) int {
	return func(args []string, _ io.Reader, stdout, stderr io.Writer) int { return run(args, stdout, stderr) }
}

// commands lists every subcommand of build b.
func commands(b Build) []command {
	return []command{
		{name: "version", usage: "baton version", summary: "print the version of Baton", run: plain(func(args []string, stdout, stderr io.Writer) int {
			return versionCLI(b, args, stdout, stderr)
		})},
		{name: "templates", usage: "baton templates list | show ID [--resolved] | validate FILE", summary: "list, show and check orchestration templates", run: plain(TemplatesCLI)},
		{name: "doctor", usage: "baton doctor [--cdp URL] [--chrome PATH] [--page PATTERN] | baton doctor --host claude-code [--claude PATH]", summary: "check that Baton can reach Claude Desktop (or the simulator) and its session API, or the Claude Code CLI", run: plain(DoctorCLI)},
		{name: "sim", usage: "baton sim [--port N] [--scenario NAME] [--scenario-for MATCH=NAME] [--speed X] [--headed] [--shapes real|LIST] [--replay FILE]", summary: "run the simulator (no AI) as a stand-in for Claude Desktop", run: plain(SimCLI)},
		{name: "probe", usage: ProbeUsage, summary: "record, with your consent, what Claude Desktop's session API really returns, for a bug report or \"baton sim --replay\"", run: ProbeCLI},
		{name: "model-sim", usage: ModelSimUsage, summary: "run a stand-in for the Anthropic Messages API (no AI) for the real Claude Code CLI", run: plain(RunModelSim)},
		{name: "run", usage: "baton run --template ID --message TEXT [--cwd DIR] [--var K=V]... [--yes] [--host sim|desktop|claude-code] [--cdp URL] [--claude PATH] [--scenario NAME] | --resume RUN_ID", summary: "run a whole orchestration in the terminal", run: RunCLI},
		{name: "history", usage: "baton history [--status S] [--template ID] [--search TEXT] [--limit N]", summary: "list past runs", run: plain(HistoryCLI)},
		{name: "show", usage: "baton show RUN_ID", summary: "show one run with its tasks", run: plain(ShowCLI)},
		{name: "parse", usage: "baton parse FILE [--phase PHASE] [--json] [--start DELIM --end DELIM]", summary: "read an agent transcript or reply and show the answers Baton finds in it", run: plain(ParseCLI)},
		{name: "help", usage: "baton help [COMMAND]", summary: "show this help, or the help of one command", run: plain(func(args []string, stdout, stderr io.Writer) int {
			return helpCLI(b, args, stdout, stderr)
		})},
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

func helpCLI(b Build, args []string, stdout, stderr io.Writer) int {
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
		fmt.Fprintf(stdout, "usage: %s\n\n%s.\n", c.usage, capitalize(c.summary))
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
