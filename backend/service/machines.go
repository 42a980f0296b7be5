package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/doctor"
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/machines"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/settings"
	"github.com/baton-app/baton/backend/view"
)

// The machines use case, one for the window (Settings → Machines) and the
// terminal ("baton machines", "baton doctor --machine"): the SSH targets
// that runs can place workers on, kept in machines.json beside
// settings.json.

// Environment variables that change how Baton reaches machines, for tests
// and for users who keep a separate ssh configuration for Baton.
const (
	// EnvSSHConfig names an ssh configuration file ssh reads instead of
	// the user's own (ssh -F).
	EnvSSHConfig = "BATON_SSH_CONFIG"
	// EnvMachineEnv holds KEY=VALUE lines set on every machine for the CLI
	// there, after the target's forwarded variables (tests point the CLI
	// there at a model-sim with it).
	EnvMachineEnv = "BATON_MACHINE_ENV"
)

// Machines are the use cases on the machines.
type Machines struct {
	store   *machines.Store
	path    string
	problem error
	opts    machines.Options
	log     *slog.Logger
}

// OpenMachines opens the machines file beside settings.json. A file that
// cannot be used is kept as it is: Problem says why, and every change is
// refused until it is fixed.
func OpenMachines(log *slog.Logger) (*Machines, error) {
	if log == nil {
		log = slog.Default()
	}
	sp, err := settings.DefaultPath()
	if err != nil {
		return nil, &OpenError{StageConfigDir, err}
	}
	m := &Machines{path: machines.PathBeside(sp), log: log, opts: MachineOptions(log)}
	if m.store, err = machines.OpenStore(m.path); err != nil {
		m.problem = err
		log.Warn("machines file unusable", "component", "service", "err", err)
	}
	return m, nil
}

// MachineOptions are the options every machine is opened with: the ssh
// configuration of EnvSSHConfig and the variables of EnvMachineEnv.
func MachineOptions(log *slog.Logger) machines.Options {
	o := machines.Options{ClientOptions: machines.ClientOptions{ConfigFile: os.Getenv(EnvSSHConfig), Logger: log}}
	for _, l := range strings.Split(os.Getenv(EnvMachineEnv), "\n") {
		if l = strings.TrimSpace(l); strings.Contains(l, "=") {
			o.Env = append(o.Env, l)
		}
	}
	return o
}

// placement is the engine's session host and placement: with machines
// kept, a Router over the session host and a Pool of the machines, whose
// Claude Code hosts keep their state beside the settings; else the
// session host alone.
func (s *Services) placement(log *slog.Logger) (session.Host, engine.Placement, error) {
	targets := s.Machines.Targets()
	if len(targets) == 0 {
		return s.Hosts, nil, nil
	}
	sp, err := settings.DefaultPath()
	if err != nil {
		return nil, nil, err
	}
	notices := make(chan session.Notice, 64)
	pool, err := machines.NewPool(machines.PoolOptions{Targets: targets, Machine: MachineOptions(log), StateDir: filepath.Join(filepath.Dir(sp), "machines"),
		Notices: notices, Logger: log})
	if err != nil {
		return nil, nil, err
	}
	s.pool = pool
	return machines.NewRouter(s.ctx, s.Hosts, pool, notices), pool, nil
}

// Path is the machines file.
func (m *Machines) Path() string { return m.path }

// Problem says why the machines file cannot be used, nil when it can.
func (m *Machines) Problem() error { return m.problem }

// View is the list of machines.
func (m *Machines) View() view.MachinesView {
	v := view.MachinesView{Machines: []view.Machine{}, Path: m.path}
	if m.problem != nil {
		v.Problem = m.problem.Error()
		return v
	}
	v.Machines = view.MachinesOf(m.store.List())
	return v
}

// Targets are the machines as the engine places workers on them.
func (m *Machines) Targets() []machines.Target {
	if m.problem != nil {
		return nil
	}
	return m.store.List()
}

func (m *Machines) usable() error {
	if m.problem != nil {
		return fmt.Errorf("%w: %v", ErrMachinesFile, m.problem)
	}
	return nil
}

// ErrMachinesFile is a change refused because the machines file cannot be
// used.
var ErrMachinesFile = errors.New("the machines file cannot be used, so Baton does not change it")

// Get returns the machine called name.
func (m *Machines) Get(name string) (view.Machine, error) {
	if err := m.usable(); err != nil {
		return view.Machine{}, err
	}
	t, err := m.store.Get(name)
	if err != nil {
		return view.Machine{}, m.notFound(name, err)
	}
	return view.MachineOf(t), nil
}

func (m *Machines) notFound(name string, err error) error {
	if errors.Is(err, machines.ErrNotFound) {
		names := []string{}
		for _, t := range m.store.List() {
			names = append(names, t.Name)
		}
		if len(names) == 0 {
			return fmt.Errorf("%w: there is no machine %s; add one first (baton machines add NAME --host USER@HOST --workspace ~/baton)", machines.ErrNotFound, name)
		}
		return fmt.Errorf("%w: there is no machine %s (the machines are %s)", machines.ErrNotFound, name, strings.Join(names, ", "))
	}
	return err
}

// Add checks the machine and keeps it under a new name; errors matching
// machines.ErrInvalid say what to change.
func (m *Machines) Add(in view.Machine) (view.Machine, error) {
	if err := m.usable(); err != nil {
		return view.Machine{}, err
	}
	t, err := m.store.Add(view.TargetOf(in))
	if err != nil {
		return view.Machine{}, err
	}
	m.log.Info("machine added", "component", "service", "machine", t.Name, "host", t.Host)
	return view.MachineOf(t), nil
}

// Update replaces the machine of the same name.
func (m *Machines) Update(in view.Machine) (view.Machine, error) {
	if err := m.usable(); err != nil {
		return view.Machine{}, err
	}
	t, err := m.store.Update(view.TargetOf(in))
	if err != nil {
		return view.Machine{}, m.notFound(in.Name, err)
	}
	return view.MachineOf(t), nil
}

// Remove forgets the machine called name (nothing on the machine is
// touched).
func (m *Machines) Remove(name string) error {
	if err := m.usable(); err != nil {
		return err
	}
	if err := m.store.Remove(name); err != nil {
		return m.notFound(name, err)
	}
	m.log.Info("machine removed", "component", "service", "machine", name)
	return nil
}

// Connect makes one SSH connection to the machine and ends it: nil when
// Baton can reach it, else the *machines.SSHError whose text says what to
// do (an unknown host key comes with the command that trusts it).
func (m *Machines) Connect(ctx context.Context, name string) error {
	t, err := m.target(name)
	if err != nil {
		return err
	}
	mc, err := machines.Open(t, m.opts)
	if err != nil {
		return err
	}
	defer closeMachine(mc)
	return mc.Client.Connect(ctx)
}

// Test is the machine's doctor: the SSH connection, git, a writable
// workspace, the CLI there and one tiny request.
func (m *Machines) Test(ctx context.Context, name string) (doctor.Report, error) {
	t, err := m.target(name)
	if err != nil {
		return doctor.Report{}, err
	}
	mc, err := machines.Open(t, m.opts)
	if err != nil {
		return doctor.Report{}, err
	}
	defer closeMachine(mc)
	return mc.Test(ctx), nil
}

func (m *Machines) target(name string) (machines.Target, error) {
	if err := m.usable(); err != nil {
		return machines.Target{}, err
	}
	t, err := m.store.Get(name)
	if err != nil {
		return machines.Target{}, m.notFound(name, err)
	}
	return t, nil
}

func closeMachine(mc *machines.Machine) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = mc.Close(ctx)
}
