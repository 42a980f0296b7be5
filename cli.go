package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/console"
	"github.com/baton-app/baton/backend/simulator"
)

// command is one headless subcommand of the baton binary. Each run function
// receives the arguments after the subcommand name and returns the process
// exit code; it must not touch the display, so it works over SSH and in CI.
type command struct {
	name    string
	usage   string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands lists every subcommand. Later features add their entries here;
// the logic of each lives in its backend package, not in package main.
func commands() []command {
	return []command{
		{name: "version", usage: "baton version", summary: "print the version of Baton", run: runVersion},
		{name: "templates", usage: "baton templates list | show ID [--resolved] | validate FILE", summary: "list, show and check orchestration templates", run: runTemplates},
		{name: "doctor", usage: "baton doctor [--cdp URL] [--chrome PATH] [--page PATTERN]", summary: "check that Baton can reach Claude Desktop (or the simulator) and its session API", run: claude.RunDoctor},
		{name: "sim", usage: "baton sim [--port N] [--scenario NAME] [--scenario-for MATCH=NAME] [--speed X] [--headed]", summary: "run the simulator (no AI) as a stand-in for Claude Desktop", run: simulator.RunCLI},
		{name: "model-sim", usage: console.ModelSimUsage, summary: "run a stand-in for the Anthropic Messages API (no AI) for the real Claude Code CLI", run: console.RunModelSim},
		{name: "run", usage: "baton run --template ID --message TEXT [--cwd DIR] [--var K=V]... [--yes] [--host sim|desktop] [--cdp URL] [--scenario NAME] | --resume RUN_ID", summary: "run a whole orchestration in the terminal", run: runRun},
		{name: "history", usage: "baton history [--status S] [--template ID] [--search TEXT] [--limit N]", summary: "list past runs", run: console.HistoryCLI},
		{name: "show", usage: "baton show RUN_ID", summary: "show one run with its tasks", run: console.ShowCLI},
		{name: "parse", usage: "baton parse FILE [--phase PHASE] [--json] [--start DELIM --end DELIM]", summary: "read an agent transcript or reply and show the answers Baton finds in it", run: runParse},
		{name: "help", usage: "baton help [COMMAND]", summary: "show this help, or the help of one command", run: runHelp},
	}
}

// findCommand returns the subcommand called name.
func findCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// runCLI runs the subcommand in args[0] and returns its exit code.
func runCLI(args []string, stdout, stderr io.Writer) int {
	c, ok := findCommand(args[0])
	if !ok {
		fmt.Fprintf(stderr, "baton: unknown command %q. Run \"baton help\" to see the commands.\n", args[0])
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "baton version takes no arguments.")
		return 2
	}
	fmt.Fprintf(stdout, "baton %s (commit %s, built %s)\n", version, commit, buildDate)
	return 0
}

func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) > 1 {
		fmt.Fprintln(stderr, "baton help takes at most one command name.")
		return 2
	}
	if len(args) == 1 {
		c, ok := findCommand(args[0])
		if !ok {
			fmt.Fprintf(stderr, "baton: unknown command %q. Run \"baton help\" to see the commands.\n", args[0])
			return 2
		}
		fmt.Fprintf(stdout, "usage: %s\n\n%s.\n", c.usage, capitalize(c.summary))
		return 0
	}
	fmt.Fprint(stdout, "Baton runs one large request as many Claude Code sessions in parallel.\n\n")
	fmt.Fprint(stdout, "usage:\n  baton              open the desktop window\n  baton COMMAND ...  run a command without a window\n\ncommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(stdout, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(stdout, "\nRun \"baton help COMMAND\" for the usage of one command.\n")
	return 0
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// runRun is "baton run"; it reads the confirmation answer from stdin.
func runRun(args []string, stdout, stderr io.Writer) int {
	return console.RunCLI(args, os.Stdin, stdout, stderr)
}
