// Package service is Baton's composition root: Open builds the services
// that the window and the terminal share (the history store, the
// templates, the settings, the session host connection, the engine and the
// event fan-out, plus the desktop notifications and the inbox watcher for
// the window) and Close stops them in order, waiting for every goroutine
// they started.
//
// It also holds the use cases both faces call, so that they cannot
// disagree: Runs (start a run and act on it, the active runs, the inbox,
// Apply and Discard) and History (the history, report and export, delete
// with its one rule). They take and return backend/view types; the window's
// bindings and backend/console import neither the engine nor the store.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/inbox"
	"github.com/baton-app/baton/backend/machines"
	"github.com/baton-app/baton/backend/notify"
	"github.com/baton-app/baton/backend/owner"
	"github.com/baton-app/baton/backend/permrules"
	"github.com/baton-app/baton/backend/settings"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/worktree"
)

// Options say what to open.
type Options struct {
	// Logger; slog.Default when nil.
	Logger *slog.Logger
	// Host overrides the settings' session host.
	Host HostOverrides
	// Desktop opens what only the window uses: desktop notifications (when
	// the session bus is there) and the inbox watcher.
	Desktop bool
	// Inbox opens the inbox watcher without the desktop notifications
	// ("baton serve": browsers show the Inbox).
	Inbox bool
	// OnNotificationClick is called with the run of a clicked notification.
	OnNotificationClick func(runID string)
	// RunHost names the run this process is opened for ("baton run
	// --resume", "baton cancel"): unless Host chooses a host, the host is
	// the one the run ran on (resumeHost).
	RunHost string
	// OnInboxClick is called when a notification about the Inbox was
	// clicked.
	OnInboxClick func()
}

// Stage names what Open was doing when it failed.
type Stage string

// The stages of Open.
const (
	StageConfigDir Stage = "find your configuration directory"
	StageTemplates Stage = "load its templates"
	StageStore     Stage = "open its history database"
	StageHost      Stage = "use the session host you chose"
	StageEngine    Stage = "start its engine"
)

// OpenError is an error of Open with the stage it happened in.
type OpenError struct {
	Stage Stage
	Err   error
}

func (e *OpenError) Error() string { return e.Err.Error() }
func (e *OpenError) Unwrap() error { return e.Err }

// Services are Baton's services, opened by Open. The engine and the store
// are reached through the use cases (Runs), never directly, so that the
// window and the terminal cannot disagree.
type Services struct {
	Events    *Events
	Templates *template.Manager
	Settings  *settings.Store
	Hosts     *hosts.Manager
	// Runs are the use cases on runs, over the engine and the store.
	Runs *Runs
	// Machines are the other machines runs can place workers on.
	Machines *Machines
	// Inbox recounts what waits for the user and sends inbox.EventChanged;
	// nil unless Options.Desktop or Options.Inbox.
	Inbox *inbox.Watcher

	store  *store.Store
	engine *engine.Engine
	// pool runs workers on the machines (nil: none are kept).
	pool *machines.Pool

	log       *slog.Logger
	notifier  *notify.Desktop
	announcer *notify.Announcer

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// OpenStore opens the history database in the configuration directory
// (BATON_CONFIG_DIR for tests), creating the directory when needed.
func OpenStore(logger *slog.Logger) (*store.Store, error) {
	path, err := store.DefaultPath()
	if err != nil {
		return nil, &OpenError{StageConfigDir, err}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, &OpenError{StageConfigDir, fmt.Errorf("create the configuration directory: %w", err)}
	}
	st, err := store.Open(path, store.WithLogger(logger))
	if err != nil {
		return nil, &OpenError{StageStore, err}
	}
	return st, nil
}

// Open builds every service. On failure it closes what it opened.
func Open(o Options) (*Services, error) {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Services{Events: &Events{}, log: log}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	fail := func(err error) (*Services, error) {
		cctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return nil, errors.Join(err, s.Close(cctx))
	}
	var err error
	if s.store, err = OpenStore(log); err != nil {
		return fail(err)
	}
	if o.RunHost != "" {
		if o.Host, err = resumeHost(s.store, o.RunHost, o.Host); err != nil {
			return fail(&OpenError{StageHost, err})
		}
	}
	dir, err := template.DefaultDir()
	if err != nil {
		return fail(&OpenError{StageConfigDir, err})
	}
	if s.Templates, err = template.New(dir, template.Options{Notify: s.Events.Emit, Logger: log}); err != nil {
		return fail(&OpenError{StageTemplates, err})
	}
	if err := s.openHosts(o); err != nil {
		return fail(err)
	}
	if s.Machines, err = OpenMachines(log); err != nil {
		return fail(err)
	}
	wtRoot, err := worktree.DefaultRoot()
	if err != nil {
		return fail(&OpenError{StageConfigDir, err})
	}
	face := owner.Terminal
	switch {
	case o.Desktop:
		face = owner.Window
	case o.Inbox:
		face = owner.Serve
	}
	host, placement, err := s.placement(log)
	if err != nil {
		return fail(&OpenError{StageHost, err})
	}
	s.engine, err = engine.New(engine.Options{Store: s.store, Host: host, Placement: placement, Templates: s.Templates, Logger: log,
		WorktreeRoot: wtRoot, Owner: owner.Self(face),
		ReconnectFor:         time.Duration(s.Settings.Get().ReconnectForSeconds) * time.Second,
		Emitter:              engine.EmitterFunc(func(name string, p engine.Payload) { s.Events.Emit(name, p) }),
		AutoResumeAfterLimit: func() bool { return s.Settings.Get().AutoResumeAfterLimit },
		UserRules:            func() permrules.Lists { return s.Settings.Get().Permissions }})
	if err != nil {
		return fail(&OpenError{StageEngine, err})
	}
	s.Runs = NewRuns(s.engine, s.store, s.Hosts)
	if o.Desktop {
		s.openNotifications(o)
	}
	if o.Desktop || o.Inbox {
		s.openInbox()
	}
	return s, nil
}

// openNotifications adds the desktop notifications, when the session bus
// is there.
func (s *Services) openNotifications(o Options) {
	notifier, err := notify.Open(notify.DesktopOptions{AppName: "Baton", Icon: "baton", Logger: s.log, OnClick: o.OnNotificationClick, OnInbox: o.OnInboxClick})
	if err != nil {
		s.log.Warn("no desktop notifications", "component", "service", "err", err)
	} else {
		s.notifier = notifier
		notifier.SetEnabled(s.Settings.Get().Notifications)
		s.announcer = notify.NewAnnouncer(notifier, s.log)
		s.Events.Subscribe(func(name string, payload any) {
			if p, ok := payload.(engine.Payload); ok {
				s.announcer.Emit(name, p)
			}
		})
	}
}

// openInbox adds the inbox watcher.
func (s *Services) openInbox() {
	// The main sessions' prompts are read from the host, every 2 s while a
	// run has one (the engine reports only the workers').
	s.Inbox = inbox.NewWatcher(s.engine, s.Hosts, 200*time.Millisecond, 2*time.Second, func(sum inbox.Summary) {
		s.Events.Emit(inbox.EventChanged, sum)
	}, s.log)
	s.Events.Subscribe(func(name string, payload any) {
		if p, ok := payload.(engine.Payload); ok {
			s.Inbox.Emit(name, p)
		}
	})
	// Runs another process changes (a "baton run" in a terminal) reach the
	// window's list too.
	s.wg.Go(func() {
		watchRuns(s.ctx, s.store, runsWatchEvery, s.engine.Active, func() { s.Events.Emit(EventRunsChanged, nil) }, s.log)
	})
}

// Restore picks up, in the background, the runs that were going when Baton
// last stopped; Close waits for it.
func (s *Services) Restore() {
	s.wg.Go(func() {
		n, err := s.engine.Restore(s.ctx)
		if err != nil {
			s.log.Warn("some runs could not be restored", "component", "service", "err", err)
		}
		if n > 0 {
			s.log.Info("restored runs", "component", "service", "count", n)
		}
		if s.Inbox != nil {
			s.Inbox.Refresh()
		}
	})
}

// ApplySettings hands the saved settings to the services that follow them:
// the notification switch and the session host connection.
func (s *Services) ApplySettings(ctx context.Context) error {
	cfg := s.Settings.Get()
	if s.notifier != nil {
		s.notifier.SetEnabled(cfg.Notifications)
	}
	s.engine.SetReconnectFor(time.Duration(cfg.ReconnectForSeconds) * time.Second)
	return s.Hosts.Configure(ctx, cfg)
}

// Close stops the services in order (what is running first, the store
// last) and waits for their goroutines, giving up with ctx.
func (s *Services) Close(ctx context.Context) error {
	s.cancel()
	var errs []error
	if s.engine != nil {
		errs = append(errs, s.engine.Shutdown(ctx))
	}
	if s.Hosts != nil {
		errs = append(errs, s.Hosts.Shutdown(ctx))
	}
	if s.pool != nil {
		errs = append(errs, s.pool.Close(ctx))
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		errs = append(errs, fmt.Errorf("restoring runs did not stop: %w", ctx.Err()))
	}
	if s.Inbox != nil {
		s.Inbox.Close()
	}
	if s.announcer != nil {
		s.announcer.Close()
	}
	if s.notifier != nil {
		errs = append(errs, s.notifier.Close())
	}
	if s.store != nil {
		errs = append(errs, s.store.Close())
	}
	return errors.Join(errs...)
}
