// Package console is Baton without a window: "baton run" drives a whole
// orchestration from a terminal, "baton history" and "baton show" read the
// stored runs.
package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/settings"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// Exit codes of "baton run".
const (
	ExitOK       = 0   // every task completed
	ExitError    = 1   // the run could not be done; the reason is printed
	ExitFailures = 2   // the run finished with failed or skipped tasks, named
	ExitPaused   = 130 // interrupted (Ctrl-C): the run is paused and can be resumed
)

// services is what a command needs, opened from the user's config directory
// (BATON_CONFIG_DIR for tests).
type services struct {
	store     *store.Store
	templates *template.Manager
	settings  *settings.Store
	hosts     *hosts.Manager
	engine    *engine.Engine
}

type hostOverrides struct {
	host     string // "sim" or "desktop"; "" keeps the setting
	cdp      string
	scenario string
	speed    float64
}

// openStore opens the history database.
func openStore(logger *slog.Logger) (*store.Store, error) {
	path, err := store.DefaultPath()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create the configuration directory: %w", err)
	}
	return store.Open(path, store.WithLogger(logger))
}

// open builds every service "baton run" needs; close undoes it.
func open(o hostOverrides, emitter engine.Emitter, logger *slog.Logger) (*services, error) {
	st, err := openStore(logger)
	if err != nil {
		return nil, err
	}
	s := &services{store: st}
	fail := func(err error) (*services, error) {
		return nil, errors.Join(err, s.close(context.Background()))
	}
	dir, err := template.DefaultDir()
	if err != nil {
		return fail(err)
	}
	if s.templates, err = template.New(dir, template.Options{Logger: logger}); err != nil {
		return fail(err)
	}
	path, err := settings.DefaultPath()
	if err != nil {
		return fail(err)
	}
	s.settings = settings.Open(path)
	cfg := s.settings.Get()
	switch o.host {
	case "":
	case "sim", "simulator":
		cfg.Host = settings.HostSimulator
	case "desktop":
		cfg.Host = settings.HostDesktop
	default:
		return fail(fmt.Errorf("--host must be sim or desktop, not %q", o.host))
	}
	if o.cdp != "" {
		cfg.CDPEndpoint = o.cdp
		cfg.Host = settings.HostDesktop
	}
	if err := cfg.Validate(); err != nil {
		return fail(err)
	}
	s.hosts = hosts.New(cfg, hosts.Options{Logger: logger, SimulatorSpeed: o.speed, SimulatorScenario: o.scenario})
	s.engine, err = engine.New(engine.Options{Store: st, Host: s.hosts, Templates: s.templates, Emitter: emitter, Logger: logger})
	if err != nil {
		return fail(err)
	}
	return s, nil
}

func (s *services) close(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var errs []error
	if s.engine != nil {
		errs = append(errs, s.engine.Shutdown(ctx))
	}
	if s.hosts != nil {
		errs = append(errs, s.hosts.Shutdown(ctx))
	}
	if s.store != nil {
		errs = append(errs, s.store.Close())
	}
	return errors.Join(errs...)
}

// quietLogger logs warnings and errors only, to stderr, so the progress
// display stays readable.
func quietLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
