package session

import "context"

// Identity says which session host serves a run: its kind and what it
// runs or attached to. A run keeps the identity of its host, so that it
// continues there and moves elsewhere only when the user says so.
type Identity struct {
	// Kind is the host setting's value ("simulator", "desktop",
	// "claude-code").
	Kind string `json:"kind"`
	// Label is how the window names the kind; Short how the terminal's
	// --host does.
	Label string `json:"label"`
	Short string `json:"short"`
	// Path and Version are the program the host runs (the Claude Code
	// CLI); Endpoint what it attached to (a DevTools endpoint, the
	// simulator's page).
	Path     string `json:"path,omitempty"`
	Version  string `json:"version,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	// Description names the host as a person reads it.
	Description string `json:"description"`
}

// Identifier is a Host that says which host it is (the hosts' Manager).
type Identifier interface {
	// Current is the host in use as the settings choose it, without
	// connecting: its kind, label and terminal name.
	Current() Identity
	// Identity is the host in use, connecting first when needed: with
	// the program it runs (path and version) or the endpoint it reached.
	Identity(ctx context.Context) (Identity, error)
}
