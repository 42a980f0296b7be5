package console

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// The command table (commands.go) is the one place the commands are
// described: "baton help" prints it, "baton help --man" writes the manual
// page from it (scripts/package.sh puts that page in the packages at build
// time), and the README's list of commands and exit codes is written from
// it (TestReadmeCommands checks it and, with -update, rewrites it). Adding a
// command is one entry in the table: its name, usage, summary, run and
// flags functions, and its details.

// exitMeaning is one exit code of "baton run" and what it means.
type exitMeaning struct {
	code    int
	meaning string
}

// exitCodes are the exit codes of "baton run", each outcome its own; only
// a clean completed run exits 0.
var exitCodes = []exitMeaning{
	{ExitOK, "completed: every task, the aggregation and the verification"},
	{ExitError, "the run stopped with an error, or could not be done (the reason is printed)"},
	{ExitUsage, "usage error: bad flags or arguments, a missing template variable, or a settings file Baton cannot use and no --host"},
	{ExitIssues, "completed with issues: failed or skipped tasks, open conflicts, a partial aggregation, a failing verification (each issue is printed)"},
	{ExitFailed, "failed: no task completed"},
	{ExitCancelled, "cancelled (also a task list refused at the prompt)"},
	{ExitInterrupted, "interrupted: the host, or the model the Claude Code CLI talks to, stayed away longer than reconnectForSeconds in the settings (default 120), or the database stayed unwritable; everything done is kept, --resume continues it"},
	{ExitWaiting, "the run waits for you and the command ended: nobody to ask (no input, or --non-interactive) a question, a permission prompt or the task list: the run is paused (answer it in the window, or --resume RUN_ID on a terminal); a task list to fix (--resume RUN_ID --plan FILE); a budget used up (--resume RUN_ID --budget USD)"},
	{ExitPaused, "Ctrl-C: the run is paused; --resume continues it"},
	{ExitTerminated, "SIGTERM: the run is paused; --resume continues it"},
}

// exitNote says which commands use the exit codes.
const exitNote = `"baton run" exits with the code of its outcome; "baton show", "export", "cancel" and "delete" use 0, 1 and 2 for their own errors; every other command exits 0 when it did its work, 1 when it could not and 2 on a usage error.`

// writeExitCodes writes the exit codes as "baton help run" lists them.
func writeExitCodes(w io.Writer) {
	fmt.Fprintln(w, "\nexit codes:")
	for _, e := range exitCodes {
		fmt.Fprintf(w, "  %-4d %s\n", e.code, e.meaning)
	}
}

// flagHead is how a flag is named in the help: --name and its argument.
func flagHead(f *flag.Flag) (head, usage string) {
	name, usage := flag.UnquoteUsage(f)
	head = "--" + f.Name
	if name != "" {
		head += " " + name
	}
	if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "map[]" && f.DefValue != "[]" {
		usage += " (default " + f.DefValue + ")"
	}
	return head, usage
}

// flagsOf lists the flags of command c, in the order of their names.
func flagsOf(c command) []*flag.Flag {
	if c.flags == nil {
		return nil
	}
	var out []*flag.Flag
	c.flags().VisitAll(func(f *flag.Flag) { out = append(out, f) })
	return out
}

// paragraphs splits text at its blank lines and joins each paragraph's
// lines into one.
func paragraphs(text string) []string {
	var out []string
	for _, p := range regexp.MustCompile(`\n\s*\n`).Split(strings.TrimSpace(text), -1) {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// roff escapes text for a manual page: backslashes, hyphens of options
// and a line that would start with a control character.
func roff(text string) string {
	text = strings.ReplaceAll(text, `\`, `\e`)
	text = strings.ReplaceAll(text, "-", `\-`)
	if strings.HasPrefix(text, ".") || strings.HasPrefix(text, "'") {
		text = `\&` + text
	}
	return text
}

// WriteManPage writes the manual page baton(1) of build b from the command
// table, in roff.
func WriteManPage(w io.Writer, b Build) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p(`.TH BATON 1 "" "Baton %s" "User Commands"`, roff(b.Version))
	p(`.SH NAME`)
	p(`baton \- run one large request as many Claude Code sessions in parallel`)
	p(`.SH SYNOPSIS`)
	p(`.B baton`)
	p(`.br`)
	p(`.B baton`)
	p(`.I command`)
	p(`.RI [ options ]`)
	p(`.SH DESCRIPTION`)
	p(`Baton runs one large piece of work as many Claude Code sessions working in parallel.`)
	p(`It plans the work with one session, hands each task to its own worker session, watches them`)
	p(`all, and brings their results back together into one report.`)
	p(`.PP`)
	p(`With no arguments,`)
	p(`.B baton`)
	p(`opens its window (it needs a desktop session).`)
	p(`With a command it runs without a window, in the terminal;`)
	p(`.B baton help`)
	p(`.I command`)
	p(`prints what this page says of it.`)
	p(`.SH COMMANDS`)
	for _, c := range commands(b) {
		p(`.TP`)
		p(`.B %s`, roff(c.usage))
		p(`%s.`, roff(capitalize(c.summary)))
		for _, para := range paragraphs(c.details) {
			p(`.IP`)
			p(`%s`, roff(para))
		}
		if fl := flagsOf(c); len(fl) > 0 {
			p(`.RS`)
			for _, f := range fl {
				head, usage := flagHead(f)
				p(`.TP`)
				p(`.B %s`, roff(head))
				p(`%s`, roff(usage))
			}
			p(`.RE`)
		}
	}
	p(`.SH EXIT STATUS`)
	p(`%s`, roff(exitNote))
	for _, e := range exitCodes {
		p(`.TP`)
		p(`.B %d`, e.code)
		p(`%s`, roff(capitalize(e.meaning)+"."))
	}
	p(`.SH ENVIRONMENT`)
	p(`.TP`)
	p(`.B BATON_CONFIG_DIR`)
	p(`Where Baton keeps its history (baton.db), settings.json and templates/, instead of \fI~/.config/baton\fR.`)
	p(`.SH FILES`)
	p(`.TP`)
	p(`.I ~/.config/baton`)
	p(`The history database, the settings and the user's templates.`)
	p(`.SH SEE ALSO`)
	p(`.BR chromium (1)`)
}

// Markers of the README's generated part.
const (
	readmeBegin = "<!-- The commands and exit codes below are written from backend/console's command table: go test ./backend/console -run TestReadmeCommands -update -->"
	readmeEnd   = "<!-- End of the generated commands. -->"
)

// markdownCell escapes text for a cell of a Markdown table.
func markdownCell(text string) string {
	return strings.ReplaceAll(text, "|", `\|`)
}

// WriteCommandList writes the README's list of commands and exit codes
// from the command table, in Markdown.
func WriteCommandList(w io.Writer) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p(`| command | what it does |`)
	p(`|---|---|`)
	for _, c := range commands(Build{}) {
		cell := capitalize(c.summary) + "."
		var heads []string
		for _, f := range flagsOf(c) {
			heads = append(heads, "`--"+f.Name+"`")
		}
		if len(heads) > 0 {
			cell += " Flags: " + strings.Join(heads, ", ") + "."
		}
		p("| `%s` | %s |", markdownCell(c.usage), markdownCell(cell))
	}
	p(``)
	p(`%s`, exitNote)
	p(``)
	p(`| code | meaning |`)
	p(`|---|---|`)
	for _, e := range exitCodes {
		p(`| %d | %s |`, e.code, markdownCell(e.meaning))
	}
}

// runTerminalDetails is what "baton run" asks and prints on the terminal.
const runTerminalDetails = `It shows a progress bar per worker (plain lines when the output is not a
terminal) and first names the host it uses ("the embedded simulator",
"Claude Desktop at ...", "Claude Code CLI ..."). Its questions are answered
right there: AskUserQuestion options by number (several as 1,3 where
allowed) or your own words, permission prompts with o (once), a (always) or
d (deny), reviews with y (approve) or a reason (reject); an empty line
leaves the question open. The template, the variables (every problem at
once; an unknown variable is a usage error, exit code 2), the permission
mode, the folder and the history database are checked before any host is
contacted. A missing template variable is named with the
--var NAME=... that gives it; --cwd must name an existing folder; a settings
file Baton cannot use is named on stderr, and without --host the command
stops with exit code 2. Text from agents is printed without control
characters.`

// probeDetails says what "baton probe" records.
const probeDetails = `It asks for your consent (unless --yes), then records what Claude Desktop's
session API returns: its method list, the session list, the transcripts of
the most recently active sessions and the events and permission requests of
the next 30 seconds (--for). It only reads. --redact replaces every text by
its length and keeps the shapes; without it the file holds your
conversations. "baton sim --replay FILE" serves the recording.`
