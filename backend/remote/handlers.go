package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// What a signed-in browser is served: the bindings as calls, the events as
// a WebSocket, the bridge script and the built frontend.

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
