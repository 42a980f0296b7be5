//go:build linux || freebsd || openbsd || netbsd

package notify

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/godbus/dbus/v5"
)

const (
	notificationsName  = "org.freedesktop.Notifications"
	notificationsPath  = "/org/freedesktop/Notifications"
	notificationsIface = "org.freedesktop.Notifications"
	// defaultAction is the action a click on the notification body invokes.
	defaultAction = "default"
)

// Desktop sends notifications to the freedesktop notification server on the
// session bus and reports clicks on them. Close stops it.
type Desktop struct {
	conn    *dbus.Conn
	appName string
	icon    string
	onClick func(runID string)
	onInbox func()
	log     *slog.Logger
	enabled atomic.Bool

	mu      sync.Mutex
	targets map[uint32]place // notification id → where a click opens

	signals chan *dbus.Signal
	done    chan struct{}
	wg      sync.WaitGroup
	owned   bool // Close closes conn (Open made it)
}

// Open connects privately to the session bus and returns a notifier that
// owns that connection.
func Open(opts DesktopOptions) (*Desktop, error) {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return nil, fmt.Errorf("connect to the session bus: %w", err)
	}
	d, err := NewDesktop(conn, opts)
	if err != nil {
		conn.Close()
		return nil, err
	}
	d.owned = true
	return d, nil
}

// NewDesktop returns a notifier on conn (the session bus). It listens for
// clicks until Close.
func NewDesktop(conn *dbus.Conn, opts DesktopOptions) (*Desktop, error) {
	if opts.AppName == "" {
		opts.AppName = "Baton"
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	d := &Desktop{
		conn:    conn,
		appName: opts.AppName,
		icon:    opts.Icon,
		onClick: opts.OnClick,
		onInbox: opts.OnInbox,
		log:     opts.Logger.With("component", "notify"),
		targets: map[uint32]place{},
		signals: make(chan *dbus.Signal, 16),
		done:    make(chan struct{}),
	}
	d.enabled.Store(true)
	for _, member := range []string{"ActionInvoked", "NotificationClosed"} {
		if err := conn.AddMatchSignal(dbus.WithMatchInterface(notificationsIface), dbus.WithMatchMember(member)); err != nil {
			return nil, fmt.Errorf("listen for notification %s: %w", member, err)
		}
	}
	conn.Signal(d.signals)
	d.wg.Add(1)
	go d.listen()
	return d, nil
}

// SetEnabled turns notifications on or off (the Settings switch).
func (d *Desktop) SetEnabled(on bool) { d.enabled.Store(on) }

// Notify shows n. It returns nil without sending anything while disabled.
func (d *Desktop) Notify(ctx context.Context, n Notification) error {
	if err := n.check(); err != nil {
		return err
	}
	if !d.enabled.Load() {
		return nil
	}
	var actions []string
	switch {
	case n.Inbox:
		actions = []string{defaultAction, "Open the Inbox"}
	case n.RunID != "":
		actions = []string{defaultAction, "Open run"}
	}
	hints := map[string]dbus.Variant{
		"urgency":       dbus.MakeVariant(byte(n.Urgency)),
		"desktop-entry": dbus.MakeVariant("baton"),
	}
	obj := d.conn.Object(notificationsName, notificationsPath)
	// Hold the lock across the call so a click that arrives before the id is
	// recorded still finds its run.
	d.mu.Lock()
	defer d.mu.Unlock()
	call := obj.CallWithContext(ctx, notificationsIface+".Notify", 0,
		d.appName, uint32(0), d.icon, n.Summary, n.Body, actions, hints, int32(-1))
	if call.Err != nil {
		return fmt.Errorf("send notification %q: %w", n.Summary, call.Err)
	}
	var id uint32
	if err := call.Store(&id); err != nil {
		return fmt.Errorf("read notification id: %w", err)
	}
	if n.RunID != "" || n.Inbox {
		d.targets[id] = place{runID: n.RunID, inbox: n.Inbox}
	}
	return nil
}

// place is where a click on a notification takes the user: the Inbox, or
// a run.
type place struct {
	runID string
	inbox bool
}

func (d *Desktop) listen() {
	defer d.wg.Done()
	for {
		select {
		case <-d.done:
			return
		case sig, ok := <-d.signals:
			if !ok || sig == nil {
				return
			}
			d.handle(sig)
		}
	}
}

func (d *Desktop) handle(sig *dbus.Signal) {
	if len(sig.Body) < 2 {
		return
	}
	id, ok := sig.Body[0].(uint32)
	if !ok {
		return
	}
	switch sig.Name {
	case notificationsIface + ".ActionInvoked":
		action, _ := sig.Body[1].(string)
		d.mu.Lock()
		to, known := d.targets[id]
		d.mu.Unlock()
		switch {
		case !known || action != defaultAction:
		case to.inbox && d.onInbox != nil:
			d.onInbox()
		case !to.inbox && d.onClick != nil:
			d.onClick(to.runID)
		}
	case notificationsIface + ".NotificationClosed":
		d.mu.Lock()
		delete(d.targets, id)
		d.mu.Unlock()
	}
}

// Close stops listening for clicks, and closes the connection if Open made it.
func (d *Desktop) Close() error {
	d.conn.RemoveSignal(d.signals)
	close(d.done)
	d.wg.Wait()
	if d.owned {
		return d.conn.Close()
	}
	return nil
}
