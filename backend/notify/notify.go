// Package notify tells the user what happened while Baton's window was not
// in front: desktop notifications (org.freedesktop.Notifications over D-Bus
// on Linux, the platform facility elsewhere) and the tray icon.
package notify

import (
	"errors"
	"log/slog"
	"strings"
)

// Urgency of a notification, as the freedesktop specification defines it.
type Urgency byte

const (
	UrgencyLow      Urgency = 0
	UrgencyNormal   Urgency = 1
	UrgencyCritical Urgency = 2
)

// Notification is one message to the user about a run.
type Notification struct {
	Summary string
	Body    string
	// RunID is the run it is about: a click opens it (may be empty).
	RunID string
	// Inbox: a click opens the Inbox instead (the notification is about
	// what waits in several runs).
	Inbox   bool
	Urgency Urgency
}

// ErrEmpty is returned for a notification without a summary.
var ErrEmpty = errors.New("notification has no summary")

func (n Notification) check() error {
	if strings.TrimSpace(n.Summary) == "" {
		return ErrEmpty
	}
	return nil
}

// DesktopOptions configure a Desktop notifier.
type DesktopOptions struct {
	AppName string // shown by the notification server; default "Baton"
	Icon    string // icon name or file path; may be empty
	// OnClick receives the run id of a notification the user clicked.
	OnClick func(runID string)
	// OnInbox is called when the user clicked a notification about the
	// Inbox (Notification.Inbox).
	OnInbox func()
	Logger  *slog.Logger
}
