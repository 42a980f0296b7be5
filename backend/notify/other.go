//go:build !(linux || freebsd || openbsd || netbsd)

package notify

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/gen2brain/beeep"
)

// Desktop sends notifications through the platform's own facility (the
// Notification Center on macOS, toasts on Windows). These platforms do not
// report clicks back to Baton, so OnClick is not called.
type Desktop struct {
	appName string
	icon    string
	enabled atomic.Bool
}

// Open returns the platform notifier.
func Open(opts DesktopOptions) (*Desktop, error) {
	d := &Desktop{appName: opts.AppName, icon: opts.Icon}
	if d.appName == "" {
		d.appName = "Baton"
	}
	beeep.AppName = d.appName
	d.enabled.Store(true)
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
	if err := beeep.Notify(n.Summary, n.Body, d.icon); err != nil {
		return fmt.Errorf("send notification %q: %w", n.Summary, err)
	}
	return nil
}

// Close releases nothing on these platforms.
func (d *Desktop) Close() error { return nil }
