package view

import "github.com/baton-app/baton/backend/machines"

// What Settings → Machines shows: the machines Baton can run workers on.

// Machine is one SSH target as the window and "baton machines" show it.
type Machine struct {
	// Name is Baton's name for the machine.
	Name string `json:"name"`
	// Host is the ssh destination: an ssh config alias or
	// [user@]host[:port].
	Host string `json:"host"`
	// Workspace is the folder there that holds everything Baton writes.
	Workspace string `json:"workspace"`
	// ClaudePath is the claude binary there; empty: found on its PATH.
	ClaudePath string `json:"claudePath"`
	MaxWorkers int    `json:"maxWorkers"`
	// Env names the variables forwarded to the CLI there (names only).
	Env []string `json:"env"`
}

// MachinesView is the list of machines and the file that keeps them.
type MachinesView struct {
	Machines []Machine `json:"machines"`
	Path     string    `json:"path"`
	// Problem says why the machines file could not be used ("" when it
	// can): Baton leaves it as it is.
	Problem string `json:"problem,omitempty"`
}

// MachineOf is the view of a target.
func MachineOf(t machines.Target) Machine {
	env := t.Env
	if env == nil {
		env = []string{}
	}
	return Machine{Name: t.Name, Host: t.Host, Workspace: t.Workspace, ClaudePath: t.ClaudePath, MaxWorkers: t.MaxWorkers, Env: env}
}

// MachinesOf is the view of the targets: an empty list, not null, when
// there are none.
func MachinesOf(ts []machines.Target) []Machine {
	out := make([]Machine, 0, len(ts))
	for _, t := range ts {
		out = append(out, MachineOf(t))
	}
	return out
}

// TargetOf is the machines package's form of a machine a face sends.
func TargetOf(m Machine) machines.Target {
	return machines.Target{Name: m.Name, Host: m.Host, Workspace: m.Workspace, ClaudePath: m.ClaudePath, MaxWorkers: m.MaxWorkers, Env: m.Env}
}
