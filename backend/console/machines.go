package console

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/baton-app/baton/backend/machines"
	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/view"
)

const machinesUsage = "baton machines list [--json] | add NAME --host DEST --workspace DIR [--claude PATH] [--max-workers N] [--env NAME]... [--no-check] | test NAME | remove NAME"

const machinesDetails = `Other machines that worktree runs place Claude Code workers on (config.machines of a template, or baton run --machine NAME), reached with your own OpenSSH client, keys, agent, ssh config and known_hosts over one shared connection each. Baton never stores a password, and never trusts an unknown host key: it refuses it with the command that trusts it.

DEST is an alias of your ssh config or user@host[:port]; DIR is the folder on the machine that holds everything Baton writes there (an absolute path or ~/...). add saves the machine, then connects once (unless --no-check) and says what is wrong, if anything; test runs the machine's doctor (as "baton doctor --machine NAME"); remove forgets the machine and leaves it untouched. The machines are kept in machines.json beside settings.json.`

// machinesFlagSet is the flags of "baton machines add" (and --json of
// list): "baton help machines" lists them.
func machinesFlagSet() (*flag.FlagSet, *view.Machine, *bool, *bool) {
	m := &view.Machine{}
	fs := flag.NewFlagSet("machines", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&m.Host, "host", "", "add: the ssh destination, an alias of your ssh config or user@host[:port]")
	fs.StringVar(&m.Workspace, "workspace", "", "add: the folder on the machine for Baton's clones and worktrees (absolute or ~/...)")
	fs.StringVar(&m.ClaudePath, "claude", "", "add: the claude binary on the machine (default: claude on its PATH, then ~/.local/bin/claude)")
	fs.IntVar(&m.MaxWorkers, "max-workers", machines.DefaultMaxWorkers, "add: how many workers may run there at once")
	fs.Var((*listFlag)(&m.Env), "env", "add: the name of a variable of Baton's environment to forward to the CLI there (repeatable; names only, never values)")
	noCheck := fs.Bool("no-check", false, "add: save without connecting")
	asJSON := fs.Bool("json", false, "list: print the machines as JSON")
	return fs, m, noCheck, asJSON
}

// MachinesCLI is "baton machines list|add|test|remove".
func MachinesCLI(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "usage: %s\n", machinesUsage)
		return ExitUsage
	}
	sub, rest := args[0], args[1:]
	fs, in, noCheck, asJSON := machinesFlagSet()
	fs.SetOutput(stderr)
	// The name may come before or after the flags.
	var names []string
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			return ExitUsage
		}
		rest = fs.Args()
		if len(rest) > 0 {
			names, rest = append(names, rest[0]), rest[1:]
		}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for f := range given {
		allowed := sub == "add"
		if f == "json" {
			allowed = sub == "list"
		}
		if !allowed {
			fmt.Fprintf(stderr, "baton machines %s does not take --%s; run \"baton help machines\".\n", sub, f)
			return ExitUsage
		}
	}
	want := 1
	if sub == "list" {
		want = 0
	}
	switch sub {
	case "list", "add", "test", "remove":
	default:
		fmt.Fprintf(stderr, "baton machines: unknown action %q.\nusage: %s\n", sub, machinesUsage)
		return ExitUsage
	}
	if len(names) != want {
		if want == 0 {
			fmt.Fprintln(stderr, "baton machines list takes no name.")
		} else {
			fmt.Fprintf(stderr, "baton machines %s takes one machine name.\nusage: %s\n", sub, machinesUsage)
		}
		return ExitUsage
	}
	ms, err := service.OpenMachines(quietLogger(io.Discard))
	if err != nil {
		fmt.Fprintf(stderr, "baton machines: %v\n", err)
		return ExitError
	}
	if p := ms.Problem(); p != nil {
		fmt.Fprintf(stderr, "baton machines: %v\n", p)
		return ExitError
	}
	switch sub {
	case "list":
		return machinesList(ms, *asJSON, stdout, stderr)
	case "add":
		in.Name = names[0]
		added, err := ms.Add(*in)
		if err != nil {
			fmt.Fprintf(stderr, "baton machines add: %s.\n", strings.TrimSuffix(sentenceOf(err), "."))
			if errors.Is(err, machines.ErrInvalid) || errors.Is(err, machines.ErrExists) {
				return ExitUsage
			}
			return ExitError
		}
		fmt.Fprintf(stdout, "Added %s: %s, workspace %s, up to %d workers.\n", added.Name, added.Host, added.Workspace, added.MaxWorkers)
		if *noCheck {
			return ExitOK
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := ms.Connect(ctx, added.Name); err != nil {
			fmt.Fprintf(stderr, "%s is saved, but Baton cannot use it yet. %v\n", added.Name, err)
			fmt.Fprintf(stderr, "Then check it with: baton machines test %s\n", added.Name)
			return ExitError
		}
		fmt.Fprintf(stdout, "Baton reaches %s over SSH. Run \"baton machines test %s\" to check git, the workspace and Claude Code there.\n", added.Name, added.Name)
		return ExitOK
	case "remove":
		if err := ms.Remove(names[0]); err != nil {
			fmt.Fprintf(stderr, "baton machines remove: %v.\n", err)
			return ExitError
		}
		fmt.Fprintf(stdout, "Removed %s (nothing on the machine was touched).\n", names[0])
		return ExitOK
	}
	return machineDoctor(ms, names[0], stdout, stderr)
}

// sentenceOf is err's text without the sentinel prefix of an invalid
// machine.
func sentenceOf(err error) string {
	return strings.TrimPrefix(err.Error(), machines.ErrInvalid.Error()+": ")
}

func machinesList(ms *service.Machines, asJSON bool, stdout, stderr io.Writer) int {
	v := ms.View()
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v.Machines); err != nil {
			fmt.Fprintf(stderr, "baton machines list: %v\n", err)
			return ExitError
		}
		return ExitOK
	}
	if len(v.Machines) == 0 {
		fmt.Fprintf(stdout, "No machines (%s). Add one with: baton machines add NAME --host USER@HOST --workspace ~/baton\n", v.Path)
		return ExitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tHOST\tWORKSPACE\tWORKERS\tCLAUDE\tFORWARDS")
	for _, m := range v.Machines {
		claude := m.ClaudePath
		if claude == "" {
			claude = "(on its PATH)"
		}
		env := strings.Join(m.Env, ",")
		if env == "" {
			env = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", m.Name, m.Host, m.Workspace, m.MaxWorkers, claude, env)
	}
	_ = tw.Flush()
	return ExitOK
}

// machineDoctor prints the doctor of the machine called name: exit 0 when
// Baton can run workers there.
func machineDoctor(ms *service.Machines, name string, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r, err := ms.Test(ctx, name)
	if err != nil {
		fmt.Fprintf(stderr, "baton: %v.\n", err)
		return ExitError
	}
	r.Print(stdout)
	if !r.OK {
		return ExitError
	}
	fmt.Fprintln(stdout, r.Verdict)
	return ExitOK
}

// machinesLine says which tasks' workers ran on other machines ("" when
// all ran here).
func machinesLine(wt *view.Worktree) string {
	if wt == nil {
		return ""
	}
	var parts []string
	for _, t := range wt.Tasks {
		if t.Machine != "" {
			parts = append(parts, t.TaskID+" on "+t.Machine)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Ran on other machines: " + strings.Join(parts, ", ") + "; the others here."
}

// checkMachine refuses a run's machine that is not kept, or whose host
// key is unknown or changed or that refuses the login: Baton would never
// place a worker there. A machine that does not answer now is only
// warned of: its workers run here until it does.
func checkMachine(ctx context.Context, ms *service.Machines, name string, stderr io.Writer) int {
	if _, err := ms.Get(name); err != nil {
		fmt.Fprintf(stderr, "baton run: --machine: %v\n", err)
		return ExitUsage
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	err := ms.Connect(cctx, name)
	switch {
	case err == nil:
	case errors.Is(err, machines.ErrUnknownHostKey), errors.Is(err, machines.ErrChangedHostKey), errors.Is(err, machines.ErrLoginRefused):
		fmt.Fprintf(stderr, "baton run: --machine %s: %v\n", name, err)
		return ExitUsage
	default:
		fmt.Fprintf(stderr, "baton run: %v Its workers run here until it answers.\n", err)
	}
	return ExitOK
}
