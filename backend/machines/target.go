package machines

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
)

// DefaultMaxWorkers is a new target's MaxWorkers when none is given;
// MaxMaxWorkers bounds it, as a template's maxWorkers is bounded.
const (
	DefaultMaxWorkers = 2
	MaxMaxWorkers     = 20
)

// Target is one machine Baton can run workers on, reached with the system
// OpenSSH client and the user's own keys, agent, ssh config and
// known_hosts. It holds no secret: there is no place for a password, and
// Env holds the names of variables, never their values.
type Target struct {
	// Name is Baton's name for the machine (a lower-case id, as a
	// template's): what the run view and the commands show.
	Name string `json:"name"`
	// Host is the ssh destination: an alias of the user's ssh config, or
	// [user@]host[:port] (an IPv6 address in brackets).
	Host string `json:"host"`
	// Workspace is the folder on the machine that holds everything Baton
	// writes there (clones, worktrees, the doctor's scratch folder): an
	// absolute path or one under the home folder (~/...).
	Workspace string `json:"workspace"`
	// ClaudePath is the claude binary on the machine; empty means claude
	// on the PATH of a non-interactive ssh command, then ~/.local/bin/claude.
	ClaudePath string `json:"claudePath,omitempty"`
	// MaxWorkers bounds the workers running there at once.
	MaxWorkers int `json:"maxWorkers"`
	// Env names the variables of Baton's own environment whose values go
	// to the CLI on the machine (such as ANTHROPIC_API_KEY); none by
	// default: the CLI there uses its own login.
	Env []string `json:"env,omitempty"`
}

var (
	nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	// An ssh config alias, a user name, a host name or an IPv4 address.
	hostWordRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)
	envNameRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// Paths on the machine: no spaces, quotes or shell characters, so that
	// they travel unchanged in ssh commands and git's ssh:// URLs.
	remotePathRE = regexp.MustCompile(`^(/|~/)[A-Za-z0-9._/+@,=-]*$`)
)

// ErrInvalid matches every error Validate returns.
var ErrInvalid = errors.New("invalid machine")

// invalid is a sentence for the user, matched by ErrInvalid.
func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// Normalized returns t with spaces trimmed and MaxWorkers defaulted.
func (t Target) Normalized() Target {
	t.Name = strings.TrimSpace(t.Name)
	t.Host = strings.TrimSpace(t.Host)
	t.Workspace = strings.TrimSpace(t.Workspace)
	if w := strings.TrimRight(t.Workspace, "/"); w != "" && w != "~" {
		t.Workspace = w
	}
	t.ClaudePath = strings.TrimSpace(t.ClaudePath)
	if t.MaxWorkers == 0 {
		t.MaxWorkers = DefaultMaxWorkers
	}
	var env []string
	for _, e := range t.Env {
		if e = strings.TrimSpace(e); e != "" {
			env = append(env, e)
		}
	}
	t.Env = env
	return t
}

// Validate checks every field and says, in one sentence, what is wrong
// with the first field that is.
func (t Target) Validate() error {
	if t.Name == "" {
		return invalid("give the machine a name (lower-case letters, digits, - and _), such as build-box")
	}
	if !nameRE.MatchString(t.Name) {
		return invalid("the machine name %q may hold only lower-case letters, digits, - and _ (64 at most), and starts with a letter or digit", t.Name)
	}
	if t.Name == "local" {
		return invalid("the name local is this machine's: choose another name for %s", t.Host)
	}
	if _, err := ParseDestination(t.Host); err != nil {
		return err
	}
	if err := checkRemotePath("workspace", t.Workspace); err != nil {
		return err
	}
	if t.Workspace == "/" || t.Workspace == "~" || t.Workspace == "~/" {
		return invalid("the workspace %s is a whole file system or home folder: give Baton a folder of its own there, such as ~/baton", t.Workspace)
	}
	if t.ClaudePath != "" {
		if err := checkRemotePath("claude path", t.ClaudePath); err != nil {
			return err
		}
	}
	if t.MaxWorkers < 1 || t.MaxWorkers > MaxMaxWorkers {
		return invalid("max workers of %s is %d: give a number from 1 to %d", t.Name, t.MaxWorkers, MaxMaxWorkers)
	}
	seen := map[string]bool{}
	for _, e := range t.Env {
		if k, _, ok := strings.Cut(e, "="); ok && envNameRE.MatchString(k) {
			return invalid("list only the names of the variables to forward (%s, not %s=…): Baton takes their values from its own environment when it starts a worker and never stores them", k, k)
		}
		if !envNameRE.MatchString(e) {
			return invalid("%q is not the name of an environment variable (letters, digits and _, not starting with a digit)", e)
		}
		if seen[e] {
			return invalid("the variable %s is listed twice", e)
		}
		seen[e] = true
	}
	return nil
}

func checkRemotePath(what, p string) error {
	if p == "" {
		return invalid("give the %s on the machine: an absolute path or one under its home folder (~/...)", what)
	}
	if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~/") && p != "~" {
		return invalid("the %s %q must be an absolute path or start with ~/ (the home folder on the machine)", what, p)
	}
	if p != "~" && !remotePathRE.MatchString(p) {
		return invalid("the %s %q may hold only letters, digits and . _ / + @ , = -: no spaces, quotes or shell characters", what, p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || part == "." {
			return invalid("the %s %q must not contain . or .. folders", what, p)
		}
	}
	return nil
}

// Destination is a parsed Target.Host.
type Destination struct {
	// Alias is set for an ssh config alias: ssh resolves it, with the
	// user, host name and port the user's config gives.
	Alias string
	User  string
	Host  string
	// Port is 0 when the destination does not give one.
	Port int
}

// ParseDestination reads an ssh config alias or [user@]host[:port]. A
// password in it (user:secret@host) is refused: Baton never stores one.
func ParseDestination(s string) (Destination, error) {
	if s == "" {
		return Destination{}, invalid("give the machine's ssh destination: an alias from your ssh config, or user@host or user@host:port")
	}
	if strings.HasPrefix(s, "-") {
		return Destination{}, invalid("the ssh destination %q starts with -, which ssh would read as an option", s)
	}
	if strings.HasPrefix(s, "ssh://") {
		return Destination{}, invalid("write the destination %q without ssh:// (user@host:port)", s)
	}
	var d Destination
	rest := s
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		d.User, rest = rest[:at], rest[at+1:]
		if strings.Contains(d.User, ":") {
			return Destination{}, invalid("the destination %q holds a password: Baton never stores one; use an SSH key (ssh-copy-id) or your ssh agent, and give user@host", redactPassword(s))
		}
		if !hostWordRE.MatchString(d.User) {
			return Destination{}, invalid("the user name in %q may hold only letters, digits, . _ and -", s)
		}
	}
	switch {
	case strings.HasPrefix(rest, "["):
		end := strings.Index(rest, "]")
		if end < 0 {
			return Destination{}, invalid("the IPv6 address in %q has no closing ]", s)
		}
		d.Host = rest[1:end]
		if net.ParseIP(d.Host) == nil {
			return Destination{}, invalid("%q in %q is not an IP address", d.Host, s)
		}
		rest = rest[end+1:]
		if rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return Destination{}, invalid("write the port after the address as [address]:port in %q", s)
			}
			rest = rest[1:]
			p, err := parsePort(rest, s)
			if err != nil {
				return Destination{}, err
			}
			d.Port = p
		}
	default:
		host, port, hasPort := strings.Cut(rest, ":")
		if strings.Contains(port, ":") {
			return Destination{}, invalid("write an IPv6 address in brackets, as user@[%s]:port", rest)
		}
		if !hostWordRE.MatchString(host) {
			return Destination{}, invalid("the host %q in %q may hold only letters, digits, . _ and -", host, s)
		}
		d.Host = host
		if hasPort {
			p, err := parsePort(port, s)
			if err != nil {
				return Destination{}, err
			}
			d.Port = p
		}
	}
	if d.User == "" && d.Port == 0 && !strings.HasPrefix(s, "[") {
		// A bare word: an alias of the user's ssh config, or a host name,
		// which ssh resolves the same way.
		d.Alias, d.Host = d.Host, ""
	}
	return d, nil
}

func parsePort(p, s string) (int, error) {
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return 0, invalid("the port %q in %q is not a number from 1 to 65535", p, s)
	}
	return n, nil
}

func redactPassword(s string) string {
	at := strings.LastIndex(s, "@")
	user, _, _ := strings.Cut(s[:at], ":")
	return user + ":…" + s[at:]
}

// SSH is the destination as ssh takes it: the alias, or
// ssh://[user@]host[:port] (which OpenSSH reads since 7.7).
func (d Destination) SSH() string {
	if d.Alias != "" {
		return d.Alias
	}
	return "ssh://" + d.authority()
}

// GitURL is the URL git pushes to and fetches from for path, an absolute
// path on the machine.
func (d Destination) GitURL(path string) string {
	if d.Alias != "" {
		return "ssh://" + d.Alias + path
	}
	return "ssh://" + d.authority() + path
}

func (d Destination) authority() string {
	h := d.Host
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	if d.User != "" {
		h = d.User + "@" + h
	}
	if d.Port != 0 {
		h += ":" + strconv.Itoa(d.Port)
	}
	return h
}

// String is the destination as the user wrote it.
func (d Destination) String() string {
	if d.Alias != "" {
		return d.Alias
	}
	return d.authority()
}
