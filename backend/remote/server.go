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

// CookieName is the cookie a browser keeps instead of the access token.
const CookieName = "baton_remote"

// The sentences a browser is given instead of Baton.
const (
	sentenceNoCookie  = "Baton needs its access link: open the link that Settings → Remote access or \"baton serve\" showed."
	sentenceBadToken  = "This access link is not valid (a newer one replaced it, or it was mistyped): make a new link in Settings → Remote access, or run \"baton serve --new-link\"."
	sentenceSignedOut = "This browser was signed out of Baton because its access link was replaced: open the new link."
	sentenceTooMany   = "Too many failed attempts from your address: wait %s and try again."
	sentenceOrigin    = "Baton refused a request from another website."
)

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

// client is the address failed attempts are counted by: the peer, or
// behind a proxy the address the proxy appended to X-Forwarded-For.
func (s *Server) client(r *http.Request) string {
	if s.o.BehindProxy {
		if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
			parts := strings.Split(xff[len(xff)-1], ",")
			if c := strings.TrimSpace(parts[len(parts)-1]); c != "" {
				return c
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// blocked answers 429 when client has failed too often.
func (s *Server) blocked(w http.ResponseWriter, r *http.Request, client string) bool {
	if b, wait := s.limit.Blocked(client); b {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
		plain(w, http.StatusTooManyRequests, fmt.Sprintf(sentenceTooMany, wait.Round(time.Second)))
		return true
	}
	return false
}

// failed counts and logs a failed attempt; the address that has failed
// too often is logged once, when it is blocked (not each refused request).
func (s *Server) failed(r *http.Request, client, why string) {
	s.log.Warn("remote access refused", "component", "remote", "client", client, "reason", why, "path", r.URL.Path)
	if s.limit.Fail(client) {
		s.log.Warn("remote access blocks an address: too many failed attempts", "component", "remote", "client", client, "for", s.o.FailureWindow.String())
	}
}

// plain answers with one sentence and nothing else.
func plain(w http.ResponseWriter, code int, sentence string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(sentence + "\n"))
}

// secure says whether the browser reached Baton over HTTPS.
func (s *Server) secure(r *http.Request) bool {
	return r.TLS != nil || (s.o.BehindProxy && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https"))
}

func (s *Server) cookie(r *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: CookieName, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.secure(r)}
}

// cookieLifetime is the longest browsers keep a cookie (400 days): a
// browser stays signed in until the token is replaced.
const cookieLifetime = 400 * 24 * 60 * 60

const signedInPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="0;url=/"><title>Baton</title></head>
<body><p>Signed in. <a href="/">Open Baton</a>.</p></body></html>
`

// login exchanges the access token for the cookie. The page it answers
// with opens Baton from this site, so that the SameSite=Strict cookie is
// sent even when the link was opened from another site.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		plain(w, http.StatusMethodNotAllowed, "Open the access link in a browser.")
		return
	}
	client := s.client(r)
	if s.blocked(w, r, client) {
		return
	}
	value, ok := s.o.Config.Exchange(r.URL.Query().Get("token"))
	if !ok {
		s.failed(r, client, "wrong access token")
		plain(w, http.StatusUnauthorized, sentenceBadToken)
		return
	}
	s.log.Info("a browser signed in", "component", "remote", "client", client)
	http.SetCookie(w, s.cookie(r, value, cookieLifetime))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(signedInPage))
}

// authorized lets through the requests that carry the cookie of the token
// in force; every other gets 401 and one sentence.
func (s *Server) authorized(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := s.client(r)
		if s.blocked(w, r, client) {
			return
		}
		c, err := r.Cookie(CookieName)
		if err != nil || c.Value == "" {
			plain(w, http.StatusUnauthorized, sentenceNoCookie)
			return
		}
		if !s.o.Config.CheckCookie(c.Value) {
			s.failed(r, client, "wrong or replaced cookie")
			// Forgotten, so that the browser's next requests are not
			// counted as more failures.
			http.SetCookie(w, s.cookie(r, "", -1))
			plain(w, http.StatusUnauthorized, sentenceSignedOut)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sameOrigin says whether the request comes from Baton's own page: its
// Origin names this server (the Host the browser asked for, or behind a
// proxy the X-Forwarded-Host). A request without Origin passes unless
// required.
func (s *Server) sameOrigin(r *http.Request, required bool) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return !required
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if !s.o.BehindProxy {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		return u.Scheme == scheme && strings.EqualFold(u.Host, r.Host)
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	fwd, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Host"), ",")
	return fwd != "" && strings.EqualFold(u.Host, strings.TrimSpace(fwd))
}

func (s *Server) refuseOrigin(w http.ResponseWriter, r *http.Request) {
	s.log.Warn("remote access refused a request from another origin", "component", "remote", "client", s.client(r), "origin", r.Header.Get("Origin"), "path", r.URL.Path)
	plain(w, http.StatusForbidden, sentenceOrigin)
}

// maxCallBody bounds a call's arguments (a template is the largest).
const maxCallBody = 8 << 20

// call runs one binding: POST /api/call/NAME with the arguments as a JSON
// array; the answer is {"result": …} or {"error": "sentence"}.
func (s *Server) call(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "A binding is called with POST."})
		return
	}
	if !s.sameOrigin(r, false) {
		s.refuseOrigin(w, r)
		return
	}
	name := r.PathValue("name")
	var args []json.RawMessage
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxCallBody)).Decode(&args); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "The arguments of " + name + " are not a JSON array: " + err.Error() + "."})
		return
	}
	result, err := s.o.Bindings.Call(name, args)
	var (
		be *BindingError
		ae *ArgumentError
		pe *PanicError
	)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]any{"result": result})
	case errors.As(err, &be):
		writeJSON(w, http.StatusOK, map[string]string{"error": be.Message})
	case errors.Is(err, ErrUnknownBinding):
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "Baton has no binding called " + strconv.Quote(name) + "; reload the page."})
	case errors.As(err, &ae):
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "Baton could not read the arguments of " + name + ": " + ae.Err.Error() + "."})
	case errors.As(err, &pe):
		s.log.Error("a binding panicked", "component", "remote", "binding", name, "panic", fmt.Sprint(pe.Value))
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "Baton failed while doing " + name + "; the details are in its log."})
	default:
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		data, _ = json.Marshal(map[string]string{"error": "Baton could not encode its answer: " + err.Error() + "."})
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(data)
}

// events upgrades to the WebSocket that carries Baton's events; only
// Baton's own page may open it.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(r, true) {
		s.refuseOrigin(w, r)
		return
	}
	conn, err := s.up.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered
	}
	s.hub.Serve(conn)
}

func (s *Server) serveBridge(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(s.bridge)
}

// serveFrontend serves the built frontend; the page itself with the
// bridge's script added.
func (s *Server) serveFrontend(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		plain(w, http.StatusMethodNotAllowed, "Only pages are served here.")
		return
	}
	if r.URL.Path == "/" || r.URL.Path == "/index.html" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(s.index)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/") {
		http.NotFound(w, r) // no folder listings
		return
	}
	if strings.HasPrefix(r.URL.Path, "/assets/") {
		// Vite names them by their content.
		w.Header().Set("Cache-Control", "private, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	s.files.ServeHTTP(w, r)
}
