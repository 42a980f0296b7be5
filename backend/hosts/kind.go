package hosts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/baton-app/baton/backend/doctor"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/settings"
)

// A Kind is one kind of session host, as a database/sql driver is one kind
// of database: the Manager opens, diagnoses and names hosts only through
// it, and a Registry holds the kinds Baton knows. The kinds are built with
// their collaborators (Simulator, Desktop, ClaudeCode) and registered
// explicitly (NewRegistry); nothing registers itself at init.
type Kind interface {
	// Info names the kind and says what it owns.
	Info() Info
	// Open connects a host of this kind as cfg configures it.
	Open(ctx context.Context, cfg settings.Settings, env Env) (Conn, error)
	// Diagnose checks the kind as cfg configures it, as "baton doctor"
	// does. It never fails: every problem is a failed check with its fix.
	// A kind that can only be checked running (the simulator) asks inUse
	// for the Manager's connection.
	Diagnose(ctx context.Context, cfg settings.Settings, inUse InUse) doctor.Report
	// Describe names a connection of this kind truthfully for a person
	// ("Claude Desktop at …", "the simulator (baton sim, no AI) at …"),
	// from its status.
	Describe(s Status) string
}

// Info is what a kind is.
type Info struct {
	// Name is the value of the host setting that chooses the kind.
	Name settings.Host
	// Short is how the terminal writes it (--host sim), when not Name.
	Short string
	// Label is how the UI names it; Description says in a sentence what
	// it is, for the choice in Settings.
	Label       string
	Description string
	// Fields are the settings (settings.json keys) its connection reads:
	// a change of one of them needs a new connection.
	Fields []string
	// Simulated: no AI answers, so costs are simulated.
	Simulated bool
	// SystemPrompt: its sessions take a system prompt apart from the first
	// message (session.SystemPrompter).
	SystemPrompt bool
}

// Env is what the Manager gives a kind's connection.
type Env struct {
	// Notices is the Manager's channel: the connection writes its
	// sessions' notices onto it.
	Notices chan<- session.Notice
	Logger  *slog.Logger
	// Report receives the connection's own state changes after it was
	// made (a CDP connection that reconnects); the Manager fills in Host
	// and Label, and Endpoint when it is empty.
	Report func(Status)
}

// Conn is a connected host, as the Manager uses it.
type Conn interface {
	session.Host
	session.Browser
	// Pending returns the permission requests waiting in every session.
	Pending(ctx context.Context) ([]session.PermissionRequest, error)
	Close(ctx context.Context) error
	// Where says what the connection reached: an endpoint or a binary's
	// path, and the page it drives or the program's version.
	Where() (endpoint, page string)
}

// InUse returns the Manager's connection when the Manager runs the kind
// being diagnosed, connecting first when needed; ErrNotInUse when it runs
// another kind.
type InUse func(ctx context.Context) (Conn, error)

// ErrNotInUse: the Manager runs another kind than the one asked for.
var ErrNotInUse = errors.New("this session host is not the one in use")

// A Program is a Kind whose host is a program of this machine (the Claude
// Code CLI). Settings shows the program's version while the kind is in
// use, and offers the kind when it finds the program while another is.
type Program interface {
	// Find returns the program that cfg names, or the one on PATH.
	Find(cfg settings.Settings) (string, error)
	// Version runs it and returns its version.
	Version(ctx context.Context, cfg settings.Settings) (string, error)
}

// Found is what Programs found of one Program kind.
type Found struct {
	Host  settings.Host
	Label string
	// InUse: the kind is the one the settings choose.
	InUse bool
	// Path is the program, when found (not in use).
	Path string
	// Version is its version, or Problem why it cannot be used (in use).
	Version string
	Problem string
}

// Registry holds the kinds Baton knows, by name. It is read-only once
// made, so it is safe for concurrent use.
type Registry struct {
	kinds []Kind
}

// NewRegistry registers kinds, in the order the UI lists them. Like
// database/sql's Register it panics on a programming error: a kind
// without a name or label, two kinds of one name, or a field that is not a
// settings.json key.
func NewRegistry(kinds ...Kind) *Registry {
	known := settings.Keys()
	seen := map[string]bool{}
	for _, k := range kinds {
		info := k.Info()
		if info.Name == "" || info.Label == "" {
			panic(fmt.Sprintf("hosts: a kind needs a name and a label: %+v", info))
		}
		for _, n := range []string{string(info.Name), info.Short} {
			if n == "" {
				continue
			}
			if seen[n] {
				panic(fmt.Sprintf("hosts: two kinds are called %q", n))
			}
			seen[n] = true
		}
		for _, f := range info.Fields {
			if !slices.Contains(known, f) {
				panic(fmt.Sprintf("hosts: kind %s owns %q, which is not a setting", info.Name, f))
			}
		}
	}
	return &Registry{kinds: slices.Clone(kinds)}
}

// Kinds returns the registered kinds in order.
func (r *Registry) Kinds() []Kind { return slices.Clone(r.kinds) }

// Kind returns the kind called name (its Name, or its Short for the
// terminal); an unknown name is an *UnknownError.
func (r *Registry) Kind(name string) (Kind, error) {
	for _, k := range r.kinds {
		if info := k.Info(); name != "" && (string(info.Name) == name || info.Short == name) {
			return k, nil
		}
	}
	return nil, &UnknownError{Name: name, Known: r.names(false)}
}

// names lists the kinds' names, or their terminal spellings.
func (r *Registry) names(short bool) []string {
	var out []string
	for _, k := range r.kinds {
		info := k.Info()
		if short && info.Short != "" {
			out = append(out, info.Short)
		} else {
			out = append(out, string(info.Name))
		}
	}
	return out
}

// Choices lists the kinds as the terminal writes them: "sim, desktop or
// claude-code".
func (r *Registry) Choices() string { return orList(r.names(true), false) }

// Check is the settings' check of the host setting (settings.Open takes
// it): the host must be a registered kind, named as settings.json names it.
func (r *Registry) Check(cfg settings.Settings) error {
	if slices.Contains(r.names(false), string(cfg.Host)) {
		return nil
	}
	return fmt.Errorf("%w: host must be %s, not %q", settings.ErrInvalid, orList(r.names(false), true), cfg.Host)
}

// Label is how the UI names the kind called name; the name itself when no
// kind is called so.
func (r *Registry) Label(name settings.Host) string {
	if k, err := r.Kind(string(name)); err == nil {
		return k.Info().Label
	}
	return string(name)
}

// Programs asks every Program kind what it finds for cfg: the version of
// the one cfg chooses, and where the others are installed.
func (r *Registry) Programs(ctx context.Context, cfg settings.Settings) []Found {
	var out []Found
	for _, k := range r.kinds {
		p, ok := k.(Program)
		if !ok {
			continue
		}
		info := k.Info()
		f := Found{Host: info.Name, Label: info.Label, InUse: info.Name == cfg.Host}
		if f.InUse {
			var err error
			if f.Version, err = p.Version(ctx, cfg); err != nil {
				f.Problem = err.Error()
			}
		} else if path, err := p.Find(cfg); err == nil {
			f.Path = path
		}
		out = append(out, f)
	}
	return out
}

// ConnectionChanged reports whether moving from a to b needs a new
// connection: another kind, or another value of a field the kind owns.
func (r *Registry) ConnectionChanged(a, b settings.Settings) bool {
	if a.Host != b.Host {
		return true
	}
	k, err := r.Kind(string(b.Host))
	if err != nil {
		return true
	}
	fa, fb := fields(a), fields(b)
	for _, f := range k.Info().Fields {
		if !bytes.Equal(fa[f], fb[f]) {
			return true
		}
	}
	return false
}

// fields is s by settings.json key.
func fields(s settings.Settings) map[string]json.RawMessage {
	b, _ := json.Marshal(s)
	var m map[string]json.RawMessage
	_ = json.Unmarshal(b, &m)
	return m
}

// UnknownError: no kind is called Name.
type UnknownError struct {
	Name  string
	Known []string
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("Baton knows no session host called %q: choose %s", e.Name, orList(e.Known, true))
}

// orList is "a, b or c", quoted when quote is true.
func orList(items []string, quote bool) string {
	q := slices.Clone(items)
	if quote {
		for i, s := range q {
			q[i] = fmt.Sprintf("%q", s)
		}
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
