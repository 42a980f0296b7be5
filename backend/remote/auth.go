package remote

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Access control: the token exchanged for the cookie at /login, the cookie
// checked on every other request, the Origin of the page that calls, and
// the failed attempts counted by client address.

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
