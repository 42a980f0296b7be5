package remote

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	qrcode "github.com/skip2/go-qrcode"
)

// Status is what Settings → Remote access shows.
type Status struct {
	Running bool `json:"running"`
	// Listen is the address asked for; URL where a browser opens Baton.
	Listen string `json:"listen"`
	URL    string `json:"url,omitempty"`
	TLS    bool   `json:"tls"`
	// Fingerprint is the SHA-256 fingerprint of the self-signed
	// certificate, which a browser's certificate details show.
	Fingerprint string `json:"fingerprint,omitempty"`
	BehindProxy bool   `json:"behindProxy"`
	// Headless: served by "baton serve", which is stopped where it runs.
	Headless bool `json:"headless"`
	// FromBrowser: the page asking is itself in a browser.
	FromBrowser bool `json:"fromBrowser"`
	// Browsers connected now.
	Browsers int `json:"browsers"`
	// HasLink: an access token is in force (made at TokenCreated); its link
	// was shown once and cannot be shown again.
	HasLink      bool      `json:"hasLink"`
	TokenCreated time.Time `json:"tokenCreated,omitzero"`
}

// Link is an access link, shown once: URL with the token, and the same as
// a QR code (a PNG data URL).
type Link struct {
	URL    string `json:"url,omitempty"`
	QR     string `json:"qr,omitempty"`
	Status Status `json:"status"`
}

// AccessOptions configure an Access.
type AccessOptions struct {
	// Dir is Baton's configuration directory (remote.json, the
	// certificate).
	Dir string
	// Assets is the built frontend.
	Assets fs.FS
	Logger *slog.Logger
	// Headless: "baton serve" runs it (no window).
	Headless bool
}

// Access is remote access as the window and "baton serve" run it: one
// Server at a time over the bindings, started and stopped, with the token
// in force replaced on demand. Events sent to it reach the running
// server's browsers.
type Access struct {
	o        AccessOptions
	log      *slog.Logger
	config   *Config
	bindings *Bindings

	// served is the running server, read without the lock by Emit (which
	// must not wait for a Start or a new token being written).
	served atomic.Pointer[Server]

	mu          sync.Mutex
	srv         *Server
	listen      string
	behindProxy bool
	fingerprint string
}

// NewAccess opens remote.json in o.Dir.
func NewAccess(o AccessOptions) (*Access, error) {
	cfg, err := OpenConfig(o.Dir)
	if err != nil {
		return nil, err
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Access{o: o, log: o.Logger, config: cfg}, nil
}

// Config is remote.json.
func (a *Access) Config() *Config { return a.config }

// Serve sets the bindings browsers call; it must be called before Start.
func (a *Access) Serve(b *Bindings) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.bindings = b
}

// Emit hands one of Baton's events to the browsers, if serving.
func (a *Access) Emit(name string, payload any) {
	if srv := a.served.Load(); srv != nil {
		srv.Emit(name, payload)
	}
}

// Start serves on listen (DefaultListen when empty): plain HTTP on
// loopback or behind a proxy, else HTTPS with the self-signed certificate
// kept in the configuration directory. The first start makes the access
// token and returns its link; later ones keep the token in force (its
// link is not known any more: NewLink replaces it).
func (a *Access) Start(listen string, behindProxy bool) (Link, error) {
	if listen == "" {
		listen = DefaultListen
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.srv != nil {
		return Link{}, ErrRunning
	}
	if a.bindings == nil {
		return Link{}, errors.New("remote: no bindings to serve")
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return Link{}, fmt.Errorf("listen address %q: %w", listen, ErrBadListen)
	}
	var (
		tlsConfig   *tls.Config
		fingerprint string
	)
	if !IsLoopback(host) && !behindProxy {
		cert, fp, err := Certificate(a.o.Dir, host)
		if err != nil {
			return Link{}, fmt.Errorf("the certificate for HTTPS: %w", err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		fingerprint = fp
	}
	srv, err := New(Options{Listen: listen, TLS: tlsConfig, BehindProxy: behindProxy, Assets: a.o.Assets,
		Bindings: a.bindings, Config: a.config, Logger: a.log})
	if err != nil {
		return Link{}, err
	}
	if err := srv.Start(); err != nil {
		return Link{}, err
	}
	a.srv, a.listen, a.behindProxy, a.fingerprint = srv, listen, behindProxy, fingerprint
	a.served.Store(srv)
	if !a.o.Headless {
		// The window serves again at its next start.
		if err := a.config.SetWindow(true, listen, behindProxy); err != nil {
			a.log.Warn("remote access will not be on at the next start", "component", "remote", "err", err)
		}
	}
	a.log.Info("remote access on", "component", "remote", "url", srv.URL(), "tls", tlsConfig != nil, "behindProxy", behindProxy)
	if a.config.HasToken() {
		return Link{Status: a.status()}, nil
	}
	return a.newLink()
}

// Sentinel errors of Access.
var (
	ErrRunning    = errors.New("remote access is already on")
	ErrNotRunning = errors.New("remote access is off")
	ErrBadListen  = errors.New("not a host:port address")
)

// Resume starts serving when the window served when it last closed (a
// window's Access only); started says whether it did.
func (a *Access) Resume() (started bool, err error) {
	serves, listen, behindProxy := a.config.Window()
	if a.o.Headless || !serves {
		return false, nil
	}
	if _, err := a.Start(listen, behindProxy); err != nil {
		return false, err
	}
	return true, nil
}

// TurnOff stops serving, also at the window's next start.
func (a *Access) TurnOff(ctx context.Context) error {
	err := a.Stop(ctx)
	if !a.o.Headless {
		_, listen, behindProxy := a.config.Window()
		err = errors.Join(err, a.config.SetWindow(false, listen, behindProxy))
	}
	return err
}

// Stop stops serving; every browser is disconnected (and stays signed in
// for the next start).
func (a *Access) Stop(ctx context.Context) error {
	a.mu.Lock()
	srv := a.srv
	a.srv = nil
	a.served.Store(nil)
	a.mu.Unlock()
	if srv == nil {
		return nil
	}
	a.log.Info("remote access off", "component", "remote")
	return srv.Shutdown(ctx)
}

// NewLink replaces the access token: every browser is signed out, and the
// new token's link is returned, the only time it is known.
func (a *Access) NewLink() (Link, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.srv == nil {
		return Link{}, ErrNotRunning
	}
	return a.newLink()
}

func (a *Access) newLink() (Link, error) {
	token, err := a.config.NewToken()
	if err != nil {
		return Link{}, err
	}
	a.srv.SignOutAll()
	url := a.srv.LoginURL(token)
	png, err := qrcode.Encode(url, qrcode.Medium, 320)
	if err != nil {
		return Link{}, fmt.Errorf("draw the QR code: %w", err)
	}
	a.log.Info("a new access link was made; every browser is signed out", "component", "remote")
	return Link{URL: url, QR: "data:image/png;base64," + base64.StdEncoding.EncodeToString(png), Status: a.status()}, nil
}

// Status says whether remote access is on, where, and how.
func (a *Access) Status() Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status()
}

func (a *Access) status() Status {
	s := Status{Headless: a.o.Headless, HasLink: a.config.HasToken(), TokenCreated: a.config.TokenCreated()}
	if a.srv == nil {
		_, s.Listen, s.BehindProxy = a.config.Window()
		return s
	}
	s.Running, s.Listen, s.URL, s.BehindProxy = true, a.listen, a.srv.URL(), a.behindProxy
	s.TLS, s.Fingerprint, s.Browsers = a.fingerprint != "", a.fingerprint, a.srv.Browsers()
	return s
}

// TerminalQR draws url as a QR code with half-block characters, for a
// terminal.
func TerminalQR(url string) (string, error) {
	q, err := qrcode.New(url, qrcode.Medium)
	if err != nil {
		return "", err
	}
	return q.ToSmallString(false), nil
}
