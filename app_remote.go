package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/baton-app/baton/backend/remote"
	"github.com/baton-app/baton/backend/view"
)

// The bindings of Settings → Remote access: Baton's window in a browser
// (backend/remote), on a phone or another computer.

// RemoteAccess is remote access as the bindings use it
// (backend/remote.Access).
type RemoteAccess interface {
	Status() remote.Status
	Start(listen string, behindProxy bool) (remote.Link, error)
	TurnOff(ctx context.Context) error
	NewLink() (remote.Link, error)
}

// errNoRemote is the sentence when remote access could not be set up at
// Baton's start.
var errNoRemote = errors.New("Remote access is not available in this Baton: its file remote.json could not be read (the log says why).")

// RemoteAccessStatus says whether Baton serves its window to browsers,
// where, and how.
func (a *App) RemoteAccessStatus() (view.RemoteStatus, error) {
	if a.Remote == nil {
		return view.RemoteStatus{}, errNoRemote
	}
	return view.RemoteStatusOf(a.Remote.Status()), nil
}

// StartRemoteAccess serves Baton's window to browsers on listen (host:port;
// loopback by default, HTTPS beyond it unless behindProxy). The first time,
// the access link is returned: it is shown only then.
func (a *App) StartRemoteAccess(listen string, behindProxy bool) (view.RemoteLink, error) {
	if a.Remote == nil {
		return view.RemoteLink{}, errNoRemote
	}
	if strings.TrimSpace(listen) == "" {
		listen = remote.DefaultListen
	}
	link, err := a.Remote.Start(listen, behindProxy)
	if err != nil {
		return view.RemoteLinkOf(link), remoteError(listen, err)
	}
	return view.RemoteLinkOf(link), nil
}

// StopRemoteAccess stops serving browsers (they stay signed in for the next
// time).
func (a *App) StopRemoteAccess() error {
	if a.Remote == nil {
		return errNoRemote
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Remote.TurnOff(ctx); err != nil {
		return remoteError("", err)
	}
	return nil
}

// NewRemoteLink replaces the access link: every browser is signed out, and
// the new link is returned, the only time it is shown.
func (a *App) NewRemoteLink() (view.RemoteLink, error) {
	if a.Remote == nil {
		return view.RemoteLink{}, errNoRemote
	}
	link, err := a.Remote.NewLink()
	if err != nil {
		return view.RemoteLinkOf(link), remoteError("", err)
	}
	return view.RemoteLinkOf(link), nil
}

// remoteError turns an error of remote access into a sentence.
func remoteError(listen string, err error) error {
	var fromBrowser errFromBrowser
	switch {
	case errors.As(err, &fromBrowser):
		return err
	case errors.Is(err, remote.ErrRunning):
		return errors.New("Remote access is already on.")
	case errors.Is(err, remote.ErrNotRunning):
		return errors.New("Turn remote access on first.")
	case errors.Is(err, remote.ErrBadListen):
		return fmt.Errorf("%q is not an address to listen on: write host:port, such as 127.0.0.1:8390, or 0.0.0.0:8390 for every network.", listen)
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("Another program already listens on %s: choose another port.", listen)
	}
	return errors.New(sentence(fmt.Sprintf("Baton could not serve on %s: %v", listen, err)))
}

// errFromBrowser refuses, in a browser, what only Baton's own side does.
type errFromBrowser struct{}

func (errFromBrowser) Error() string {
	return "Remote access is turned on and off where Baton runs (its window, or the terminal of \"baton serve\"), not from a browser."
}

// browserRemote is remote access as a browser may use it: it sees the
// status and may replace the link (a lost phone), not turn serving on or
// off under itself.
type browserRemote struct{ RemoteAccess }

func (r browserRemote) Status() remote.Status {
	s := r.RemoteAccess.Status()
	s.FromBrowser = true
	return s
}

func (browserRemote) Start(string, bool) (remote.Link, error) { return remote.Link{}, errFromBrowser{} }

func (browserRemote) TurnOff(context.Context) error { return errFromBrowser{} }

// forBrowser is the binding object browsers call (backend/remote): the
// same bindings over the same services, without the window: no native
// dialogs, no file manager, no startup check, and remote access that a
// browser cannot turn off under itself.
func (a *App) forBrowser() *App {
	b := &App{Services: a.Services}
	b.Smoke, b.Files = nil, nil
	if a.Remote != nil {
		b.Remote = browserRemote{a.Remote}
	}
	return b
}

// errNeedsWindow is the sentence of a binding that needs the native window
// when it is called from a browser.
func errNeedsWindow(what string) error {
	return errors.New(what + " needs Baton's window; in a browser it is not available.")
}
