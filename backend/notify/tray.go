package notify

import (
	"fmt"
	"sync"

	"fyne.io/systray"
)

// TrayOptions configure the tray icon.
type TrayOptions struct {
	Icon   []byte // PNG (ICO on Windows)
	OnShow func() // "Show Baton", and a click on the icon where the desktop supports it
	OnQuit func() // "Quit"
}

// Tray is Baton's icon in the system tray: Show Baton, the number of active
// runs and of items waiting for the user, and Quit. The systray library keeps
// one icon per process, so there is at most one Tray; it runs beside the
// Wails main loop (on Linux over D-Bus, StatusNotifierItem).
type Tray struct {
	opts TrayOptions
	end  func()

	mu      sync.Mutex
	ready   bool
	active  int
	waiting int
	status  *systray.MenuItem
	inbox   *systray.MenuItem

	done chan struct{}
	wg   sync.WaitGroup
}

// The systray library holds its icon in package state and cannot start
// twice, so neither can Tray: these guard that, and nothing else.
var (
	trayMu      sync.Mutex
	trayStarted bool
)

// StartTray shows the tray icon. It can be called once per process.
func StartTray(opts TrayOptions) (*Tray, error) {
	trayMu.Lock()
	defer trayMu.Unlock()
	if trayStarted {
		return nil, fmt.Errorf("start tray: the tray icon was already started in this process")
	}
	t := &Tray{opts: opts, done: make(chan struct{})}
	start, end := systray.RunWithExternalLoop(t.onReady, nil)
	t.end = end
	start()
	trayStarted = true
	return t, nil
}

// TrayTooltip is the text for the given counts.
func TrayTooltip(active, waiting int) string {
	return fmt.Sprintf("Baton: %s, %s", plural(active, "active run", "active runs"), plural(waiting, "item waiting for you", "items waiting for you"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func (t *Tray) onReady() {
	systray.SetIcon(t.opts.Icon)
	systray.SetTitle("Baton")
	show := systray.AddMenuItem("Show Baton", "Bring Baton's window to the front")
	systray.AddSeparator()
	status := systray.AddMenuItem("", "")
	status.Disable()
	inbox := systray.AddMenuItem("", "")
	inbox.Disable()
	systray.AddSeparator()
	quit := systray.AddMenuItem("Quit", "Quit Baton")
	if t.opts.OnShow != nil {
		systray.SetOnTapped(t.opts.OnShow)
	}

	t.mu.Lock()
	t.status, t.inbox, t.ready = status, inbox, true
	t.applyLocked()
	t.mu.Unlock()

	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		for {
			select {
			case <-t.done:
				return
			case <-show.ClickedCh:
				if t.opts.OnShow != nil {
					t.opts.OnShow()
				}
			case <-quit.ClickedCh:
				if t.opts.OnQuit != nil {
					t.opts.OnQuit()
				}
			}
		}
	}()
}

// SetCounts shows how many runs are active and how many items wait for the user.
func (t *Tray) SetCounts(active, waiting int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.active, t.waiting = active, waiting
	if t.ready {
		t.applyLocked()
	}
}

func (t *Tray) applyLocked() {
	t.status.SetTitle(plural(t.active, "active run", "active runs"))
	t.inbox.SetTitle(plural(t.waiting, "item waiting for you", "items waiting for you"))
	systray.SetTooltip(TrayTooltip(t.active, t.waiting))
}

// Stop removes the icon and waits for the menu goroutine.
func (t *Tray) Stop() {
	close(t.done)
	t.wg.Wait()
	t.end()
}
