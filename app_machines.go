package main

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/machines"
	"github.com/baton-app/baton/backend/view"
)

// The bindings of Settings → Machines: the other machines that worktree
// runs can place workers on over SSH (backend/service.Machines, the same
// use case as "baton machines").

var errNoMachines = errors.New("Machines are not available in this Baton.")

// GetMachines lists the machines, with the file that keeps them and why it
// cannot be used, if it cannot.
func (a *App) GetMachines() (view.MachinesView, error) {
	if a.Machines == nil {
		return view.MachinesView{Machines: []view.Machine{}}, errNoMachines
	}
	return a.Machines.View(), nil
}

// SaveMachine adds the machine, or replaces the one of its name when
// replace is set, and returns the list.
func (a *App) SaveMachine(m view.Machine, replace bool) (view.MachinesView, error) {
	if a.Machines == nil {
		return view.MachinesView{Machines: []view.Machine{}}, errNoMachines
	}
	var err error
	if replace {
		_, err = a.Machines.Update(m)
	} else {
		_, err = a.Machines.Add(m)
	}
	if err != nil {
		return a.Machines.View(), machineError(err)
	}
	return a.Machines.View(), nil
}

// RemoveMachine forgets the machine called name (nothing on it is
// touched) and returns the list.
func (a *App) RemoveMachine(name string) (view.MachinesView, error) {
	if a.Machines == nil {
		return view.MachinesView{Machines: []view.Machine{}}, errNoMachines
	}
	if err := a.Machines.Remove(name); err != nil {
		return a.Machines.View(), machineError(err)
	}
	return a.Machines.View(), nil
}

// TestMachine runs the machine's doctor: SSH, git, its workspace, the CLI
// there and one tiny request.
func (a *App) TestMachine(name string) (view.DoctorReport, error) {
	if a.Machines == nil {
		return view.DoctorReport{}, errNoMachines
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r, err := a.Machines.Test(ctx, name)
	if err != nil {
		return view.DoctorReport{}, machineError(err)
	}
	return view.DoctorReportOf(r), nil
}

// machineError is the sentence of a machines error.
func machineError(err error) error {
	return errors.New(sentence(strings.TrimPrefix(err.Error(), machines.ErrInvalid.Error()+": ")))
}
