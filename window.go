package main

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/options/mac"
	"github.com/wailsapp/wails/v2/pkg/options/windows"
	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/baton-app/baton/backend/desktop"
	"github.com/baton-app/baton/backend/inbox"
	"github.com/baton-app/baton/backend/notify"
	"github.com/baton-app/baton/backend/remote"
	"github.com/baton-app/baton/backend/service"
)

// window is Baton's desktop window: the Wails application with its tray
// icon, over the services it is given. Closing the window while runs are
// active keeps Baton in the tray, so the runs go on; Quit in the tray ends
// it.
type window struct {
	log      *slog.Logger
	icon     []byte
	smoke    *desktop.StartupCheck
	files    *desktop.FileManager
	events   *eventBridge
	svc      *service.Services
	app      *App
	remote   *remote.Access // nil: remote access is not available
	tray     atomic.Pointer[notify.Tray]
	quitting atomic.Bool // Quit from the tray: close even while runs are active
}

func newWindow(logger *slog.Logger, icon []byte, smoke *desktop.StartupCheck) *window {
	return &window{log: logger, icon: icon, smoke: smoke, files: &desktop.FileManager{}, events: &eventBridge{}}
}

// openRun brings the window up on a run (a notification was clicked).
func (w *window) openRun(runID string) {
	w.events.Show()
	w.events.Emit(EventOpenRun, runID)
}

// openInbox brings the window up on the Inbox (a notification about several
// runs was clicked).
func (w *window) openInbox() {
	w.events.Show()
	w.events.Emit(EventOpenInbox, nil)
}

// run shows the window until it closes and returns the exit code.
func (w *window) run(dist fs.FS, svc *service.Services, app *App) int {
	w.svc, w.app = svc, app
	svc.Events.Subscribe(w.events.Emit)
	if w.remote != nil {
		svc.Events.Subscribe(w.remote.Emit)
	}
	svc.Events.Subscribe(func(name string, payload any) {
		if s, ok := payload.(inbox.Summary); ok && name == inbox.EventChanged {
			if t := w.tray.Load(); t != nil {
				t.SetCounts(s.Active, len(s.Items))
			}
		}
	})
	err := wails.Run(&options.App{
		Title:            "Baton",
		Width:            1200,
		Height:           780,
		MinWidth:         880,
		MinHeight:        560,
		AssetServer:      &assetserver.Options{Assets: dist},
		BackgroundColour: options.NewRGBA(0, 0, 0, 0),
		OnStartup:        w.startup,
		OnBeforeClose:    w.beforeClose,
		OnShutdown:       w.shutdown,
		Bind:             []any{app},
		Linux:            &linux.Options{Icon: w.icon, ProgramName: "baton"},
		Mac: &mac.Options{
			About: &mac.AboutInfo{Title: "Baton", Message: "Run one large request as many Claude Code sessions in parallel.", Icon: w.icon},
		},
		Windows: &windows.Options{Theme: windows.SystemDefault},
	})
	if err != nil {
		w.log.Error("wails stopped", "component", "main", "err", err)
		return 1
	}
	return w.smoke.ExitCode()
}

func (w *window) startup(ctx context.Context) {
	w.events.attach(ctx)
	w.app.startup(ctx)
	tray, err := notify.StartTray(notify.TrayOptions{
		Icon: w.icon,
		OnShow: func() {
			wailsruntime.WindowShow(ctx)
			wailsruntime.WindowUnminimise(ctx)
		},
		OnQuit: func() {
			w.quitting.Store(true)
			wailsruntime.Quit(ctx)
		},
	})
	if err != nil {
		w.log.Warn("no tray icon", "component", "main", "err", err)
	} else {
		w.tray.Store(tray)
	}
	// Runs that were going when Baton last stopped go on.
	w.svc.Restore()
	// Browsers reach Baton again if it served them when it last closed.
	if w.remote != nil {
		if _, err := w.remote.Resume(); err != nil {
			w.log.Warn("remote access did not start again", "component", "main", "err", err)
		}
	}
	w.smoke.Start(ctx, func() { wailsruntime.Quit(ctx) }, func() { os.Exit(1) })
}

func (w *window) beforeClose(ctx context.Context) bool {
	if w.tray.Load() != nil && !w.quitting.Load() && w.svc.Runs.Busy() {
		wailsruntime.WindowHide(ctx)
		return true
	}
	return false
}

func (w *window) shutdown(context.Context) {
	w.smoke.Stop()
	if t := w.tray.Swap(nil); t != nil {
		t.Stop()
	}
	w.files.Close(2 * time.Second)
	if w.remote != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := w.remote.Stop(ctx); err != nil {
			w.log.Warn("stop remote access", "component", "main", "err", err)
		}
	}
}

// openFailure is the sentence for an error of service.Open.
func openFailure(err error) string {
	var oe *service.OpenError
	if errors.As(err, &oe) {
		return "Baton could not " + string(oe.Stage) + ": " + oe.Err.Error()
	}
	return "Baton could not start: " + err.Error()
}
