// Command baton is the Baton desktop application: it runs one large request
// as many Claude Code sessions in parallel. With no arguments it opens the
// window; with a subcommand (see backend/console) it runs headless.
package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/options/mac"
	"github.com/wailsapp/wails/v2/pkg/options/windows"
	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/baton-app/baton/backend/console"
	"github.com/baton-app/baton/backend/desktop"
	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/inbox"
	"github.com/baton-app/baton/backend/notify"
	"github.com/baton-app/baton/backend/settings"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

//go:embed all:frontend/dist
var assets embed.FS

//go:embed build/appicon.png
var icon []byte

// smokeTimeout is how long BATON_SMOKE=1 waits for the page to call a binding
// (BATON_SMOKE_TIMEOUT overrides it, so the failure path can be tested).
const smokeTimeout = 30 * time.Second

func main() {
	if len(os.Args) > 1 {
		os.Exit(console.Main(os.Args[1:], console.Build{Version: version, Commit: commit, Date: buildDate}, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(runGUI())
}

// runGUI opens the window and returns the process exit code.
func runGUI() int {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	dist, err := fs.Sub(assets, "frontend/dist")
	if err != nil {
		fmt.Fprintln(os.Stderr, "baton: the embedded frontend is missing:", err)
		return 1
	}
	if !generatingBindings {
		if err := desktop.CheckDisplay(runtime.GOOS, os.Getenv); err != nil {
			fmt.Fprintln(os.Stderr, "Baton needs a desktop session to open its window, and neither DISPLAY nor WAYLAND_DISPLAY is set: run it from a desktop session, or run \"baton help\" for the commands that need no window.")
			return 1
		}
		if _, err := fs.Stat(dist, "index.html"); err != nil {
			fmt.Fprintln(os.Stderr, "baton: this binary was built without its frontend; build it with \"make build\".")
			return 1
		}
	}

	timeout := smokeTimeout
	if v := os.Getenv("BATON_SMOKE_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			timeout = d
		}
	}
	smoke := desktop.NewStartupCheck(os.Getenv("BATON_SMOKE") == "1", timeout)
	events := &eventBridge{}

	templateDir, err := template.DefaultDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "Baton could not find your configuration directory:", err)
		return 1
	}
	templates, err := template.New(templateDir, template.Options{Notify: events.Emit, Logger: logger})
	if err != nil {
		fmt.Fprintln(os.Stderr, "Baton could not load its templates:", err)
		return 1
	}

	settingsPath, err := settings.DefaultPath()
	if err != nil {
		fmt.Fprintln(os.Stderr, "Baton could not find your configuration directory:", err)
		return 1
	}
	prefs := settings.Open(settingsPath)
	if err := prefs.Problem(); err != nil {
		logger.Warn("settings file unusable; using defaults", "component", "main", "err", err)
	}
	sessionHosts := hosts.New(prefs.Get(), hosts.Options{Emit: events.Emit, Logger: logger})
	var tray *notify.Tray
	var quitting atomic.Bool // Quit from the tray: close even while runs are active

	dbPath, err := store.DefaultPath()
	if err == nil {
		err = os.MkdirAll(filepath.Dir(dbPath), 0o700)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "Baton could not find your configuration directory:", err)
		return 1
	}
	history, err := store.Open(dbPath, store.WithLogger(logger))
	if err != nil {
		fmt.Fprintln(os.Stderr, "Baton could not open its history database:", err)
		return 1
	}
	defer history.Close()

	// Desktop notifications, when the session bus is there; clicking one
	// brings the window up on that run.
	var announcer *notify.Announcer
	notifier, err := notify.Open(notify.DesktopOptions{AppName: "Baton", Icon: "baton", Logger: logger, OnClick: func(runID string) {
		events.Show()
		events.Emit(EventOpenRun, runID)
	}})
	if err != nil {
		logger.Warn("no desktop notifications", "component", "main", "err", err)
	} else {
		defer notifier.Close()
		notifier.SetEnabled(prefs.Get().Notifications)
		announcer = notify.NewAnnouncer(notifier, logger)
		defer announcer.Close()
	}

	var watcher *inbox.Watcher
	runs, err := engine.New(engine.Options{Store: history, Host: sessionHosts, Templates: templates, Logger: logger,
		Emitter: engine.EmitterFunc(func(name string, p engine.Payload) {
			events.Emit(name, p)
			if announcer != nil {
				announcer.Emit(name, p)
			}
			watcher.Emit(name, p)
		})})
	if err != nil {
		fmt.Fprintln(os.Stderr, "Baton could not start its engine:", err)
		return 1
	}
	// The main sessions' prompts are read from the host, every 2 s while a
	// run has one (the engine reports only the workers').
	watcher = inbox.NewWatcher(runs, sessionHosts, 200*time.Millisecond, 2*time.Second, func(s inbox.Summary) {
		events.Emit(inbox.EventChanged, s)
		if tray != nil {
			tray.SetCounts(s.Active, len(s.Items))
		}
	}, logger)
	defer watcher.Close()

	app := NewApp(Services{
		Info:      desktop.Info{Version: version, Commit: commit, BuildDate: buildDate, Platform: runtime.GOOS + "/" + runtime.GOARCH},
		Smoke:     smoke,
		Templates: templates,
		Settings:  prefs,
		Hosts:     sessionHosts,
		Store:     history,
		Engine:    runs,
		OnSettings: func(s settings.Settings) {
			if notifier != nil {
				notifier.SetEnabled(s.Notifications)
			}
		},
	})

	err = wails.Run(&options.App{
		Title:     "Baton",
		Width:     1200,
		Height:    780,
		MinWidth:  880,
		MinHeight: 560,
		AssetServer: &assetserver.Options{
			Assets: dist,
		},
		BackgroundColour: options.NewRGBA(0, 0, 0, 0),
		OnStartup: func(ctx context.Context) {
			events.attach(ctx)
			app.startup(ctx)
			var err error
			tray, err = notify.StartTray(notify.TrayOptions{
				Icon: icon,
				OnShow: func() {
					wailsruntime.WindowShow(ctx)
					wailsruntime.WindowUnminimise(ctx)
				},
				OnQuit: func() {
					quitting.Store(true)
					wailsruntime.Quit(ctx)
				},
			})
			if err != nil {
				logger.Warn("no tray icon", "component", "main", "err", err)
			}
			// Runs that were going when Baton last stopped go on.
			go func() {
				n, err := runs.Restore(ctx)
				if err != nil {
					logger.Warn("some runs could not be restored", "component", "main", "err", err)
				}
				if n > 0 {
					logger.Info("restored runs", "component", "main", "count", n)
				}
				watcher.Refresh()
			}()
			smoke.Start(ctx, func() { wailsruntime.Quit(ctx) }, func() { os.Exit(1) })
		},
		// Closing the window while runs are active keeps Baton in the tray,
		// so the runs go on; Quit in the tray ends it.
		OnBeforeClose: func(ctx context.Context) bool {
			if tray != nil && !quitting.Load() && len(runs.Active()) > 0 {
				wailsruntime.WindowHide(ctx)
				return true
			}
			return false
		},
		OnShutdown: func(ctx context.Context) {
			smoke.Stop()
			if tray != nil {
				tray.Stop()
			}
			sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := runs.Shutdown(sctx); err != nil {
				logger.Warn("stop the engine", "component", "main", "err", err)
			}
			if err := sessionHosts.Shutdown(sctx); err != nil {
				logger.Warn("stop the session host", "component", "main", "err", err)
			}
		},
		Bind: []any{app},
		Linux: &linux.Options{
			Icon:        icon,
			ProgramName: "baton",
		},
		Mac: &mac.Options{
			About: &mac.AboutInfo{Title: "Baton", Message: "Run one large request as many Claude Code sessions in parallel.", Icon: icon},
		},
		Windows: &windows.Options{
			Theme: windows.SystemDefault,
		},
	})
	if err != nil {
		logger.Error("wails stopped", "component", "main", "err", err)
		return 1
	}
	return smoke.ExitCode()
}
