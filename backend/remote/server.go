package remote

import (
	"bytes"
	"context"
	"crypto/tls"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

//go:embed js/bridge.js
var bridgeJS []byte

// ErrNeedsTLS refuses plain HTTP on an address other than loopback: the
// access token and the cookie would cross the network in clear.
var ErrNeedsTLS = errors.New("an address other than loopback needs TLS, unless a proxy in front of Baton provides it (--behind-proxy)")

// Options configure a Server.
type Options struct {
	// Listen is host:port (DefaultListen when empty).
	Listen string
	// TLS serves HTTPS with this configuration; nil serves plain HTTP,
	// which only loopback or BehindProxy allow.
	TLS *tls.Config
	// BehindProxy says a reverse proxy in front of Baton terminates TLS:
	// plain HTTP is allowed on any address, and the client's address is
	// read from X-Forwarded-For.
	BehindProxy bool
	// Assets is the built frontend (index.html at its root).
	Assets fs.FS
	// Bindings are what browsers may call.
	Bindings *Bindings
	// Config holds the access token's and cookie's hashes.
	Config *Config
	Logger *slog.Logger
	// MaxFailures failed attempts per client address within FailureWindow
	// block that address until the window passes (defaults: 10, 1 minute).
	MaxFailures   int
	FailureWindow time.Duration
}

// Server serves Baton's frontend, its bindings and its events to browsers
// that hold the cookie of the access token in force.
type Server struct {
	o       Options
	log     *slog.Logger
	limit   *limiter
	hub     *hub
	index   []byte
	bridge  []byte
	files   http.Handler
	handler http.Handler
	up      websocket.Upgrader

	mu   sync.Mutex
	srv  *http.Server
	addr net.Addr
	done chan struct{}
}

// IsLoopback says whether host (a name or an address, no port) is this
// machine only.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// New checks o and returns a Server that is not listening yet.
func New(o Options) (*Server, error) {
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	host, port, err := net.SplitHostPort(o.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", o.Listen, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return nil, fmt.Errorf("listen address %q: the port must be a number from 0 to 65535", o.Listen)
	}
	if !IsLoopback(host) && o.TLS == nil && !o.BehindProxy {
		return nil, fmt.Errorf("listen on %s: %w", o.Listen, ErrNeedsTLS)
	}
	if o.Assets == nil || o.Bindings == nil || o.Config == nil {
		return nil, errors.New("remote: Assets, Bindings and Config are needed")
	}
	index, err := fs.ReadFile(o.Assets, "index.html")
	if err != nil {
		return nil, fmt.Errorf("the frontend is not built (no index.html): %w", err)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MaxFailures <= 0 {
		o.MaxFailures = 10
	}
	if o.FailureWindow <= 0 {
		o.FailureWindow = time.Minute
	}
	names, err := json.Marshal(o.Bindings.Names())
	if err != nil {
		return nil, err
	}
	s := &Server{
		o:      o,
		log:    o.Logger,
		limit:  newLimiter(o.MaxFailures, o.FailureWindow, time.Now),
		hub:    newHub(o.Logger),
		index:  injectBridge(index),
		bridge: bytes.Replace(bridgeJS, []byte("/*BINDINGS*/ []"), names, 1),
		files:  http.FileServerFS(o.Assets),
		// The Origin is checked before the upgrade (sameOrigin).
		up: websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/login", s.login)
	mux.Handle("/api/call/{name}", s.authorized(http.HandlerFunc(s.call)))
	mux.Handle("/api/events", s.authorized(http.HandlerFunc(s.events)))
	mux.Handle("/_baton/bridge.js", s.authorized(http.HandlerFunc(s.serveBridge)))
	mux.Handle("/", s.authorized(http.HandlerFunc(s.serveFrontend)))
	s.handler = secured(mux)
	return s, nil
}

// injectBridge puts the bridge's script first in the page's head, before
// the page's own (module) scripts run.
func injectBridge(index []byte) []byte {
	tag := []byte(`<script src="/_baton/bridge.js"></script>`)
	i := bytes.Index(bytes.ToLower(index), []byte("<head>"))
	if i < 0 {
		return append(tag, index...)
	}
	i += len("<head>")
	out := append([]byte{}, index[:i]...)
	out = append(out, tag...)
	return append(out, index[i:]...)
}

// secured adds the headers every answer carries.
func secured(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		next.ServeHTTP(w, r)
	})
}

// Handler is the server's HTTP handler (what Start serves).
func (s *Server) Handler() http.Handler { return s.handler }

// Start listens and serves in the background until Shutdown.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return errors.New("remote: already serving")
	}
	ln, err := net.Listen("tcp", s.o.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.o.Listen, err)
	}
	s.addr = ln.Addr()
	if s.o.TLS != nil {
		ln = tls.NewListener(ln, s.o.TLS)
	}
	s.srv = &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.With("component", "remote").Handler(), slog.LevelDebug),
	}
	s.done = make(chan struct{})
	srv, done := s.srv, s.done
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("remote access stopped serving", "component", "remote", "err", err)
		}
	}()
	return nil
}

// Addr is the address the server listens on (nil before Start).
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// URL is where a browser opens Baton: on the listening port, at the
// listening host, or at an address of this machine when it listens on all
// of them.
func (s *Server) URL() string {
	scheme := "http"
	if s.o.TLS != nil {
		scheme = "https"
	}
	host, port, _ := net.SplitHostPort(s.o.Listen)
	if a, ok := s.Addr().(*net.TCPAddr); ok {
		port = strconv.Itoa(a.Port)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = outwardAddress()
	}
	return (&url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: "/"}).String()
}

// LoginURL is URL with token: opening it signs a browser in.
func (s *Server) LoginURL(token string) string {
	return strings.TrimSuffix(s.URL(), "/") + "/login?token=" + url.QueryEscape(token)
}

// outwardAddress is an address other machines may reach this one at: the
// first private IPv4 address of an interface, else the host name.
func outwardAddress() string {
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && n.IP.IsPrivate() {
				return n.IP.String()
			}
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && n.IP.IsGlobalUnicast() {
				return n.IP.String()
			}
		}
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "127.0.0.1"
}

// Emit sends one of Baton's events to every connected browser; it never
// blocks.
func (s *Server) Emit(name string, payload any) { s.hub.Emit(name, payload) }

// Browsers is the number of browsers connected now.
func (s *Server) Browsers() int { return s.hub.Count() }

// SignOutAll disconnects every browser with the signed-out code: called
// once the token was replaced, so that each shows why.
func (s *Server) SignOutAll() { s.hub.CloseAll(CloseSignedOut, "signed out") }

// Shutdown stops taking requests, waits for those under way and for the
// browsers' connections, and gives up with ctx.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	srv, done := s.srv, s.done
	s.mu.Unlock()
	var err error
	if srv != nil {
		err = srv.Shutdown(ctx)
	}
	stopped := make(chan struct{})
	go func() { s.hub.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-ctx.Done():
		return errors.Join(err, fmt.Errorf("browsers' connections did not close: %w", ctx.Err()))
	}
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		}
	}
	return err
}
