package remote

import (
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Close codes a browser's bridge reads: 4401 means signed out (the token
// was replaced), so the page reloads and shows why; any other close makes
// it reconnect.
const (
	CloseSignedOut = 4401
	closeTooSlow   = 4008
)

// replayed are the events whose latest payload is the whole state of
// something (not a change): a browser that connects, or reconnects after
// its phone slept, gets the latest at once.
var replayed = map[string]bool{"inbox:changed": true, "host:status": true}

const (
	sendBuffer   = 256
	writeTimeout = 10 * time.Second
	pingEvery    = 30 * time.Second
)

// hub sends Baton's events to the browsers' WebSockets. Emit never
// blocks: a browser that cannot keep up is disconnected (its bridge
// reconnects).
type hub struct {
	log *slog.Logger

	mu      sync.Mutex
	clients map[*client]struct{}
	last    map[string][]byte
	stopped bool
	wg      sync.WaitGroup
}

func newHub(log *slog.Logger) *hub {
	return &hub{log: log, clients: map[*client]struct{}{}, last: map[string][]byte{}}
}

type message struct {
	Name string `json:"name"`
	Data any    `json:"data"`
}

// Emit sends one event to every browser.
func (h *hub) Emit(name string, payload any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.clients) == 0 && !replayed[name] {
		return
	}
	data, err := json.Marshal(message{Name: name, Data: payload})
	if err != nil {
		h.log.Warn("an event could not be encoded for the browsers", "component", "remote", "event", name, "err", err)
		return
	}
	if replayed[name] {
		h.last[name] = data
	}
	for c := range h.clients {
		select {
		case c.send <- data:
		default:
			c.close(closeTooSlow, "too slow")
		}
	}
}

// Count returns the number of browsers connected.
func (h *hub) Count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.clients)
}

// Serve runs one browser's connection until it ends (in goroutines that
// Wait waits for).
func (h *hub) Serve(conn *websocket.Conn) {
	c := &client{conn: conn, send: make(chan []byte, sendBuffer), done: make(chan struct{})}
	h.mu.Lock()
	if h.stopped {
		h.mu.Unlock()
		_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "Baton stops serving"), time.Now().Add(time.Second))
		_ = conn.Close()
		return
	}
	for _, data := range h.last {
		c.send <- data
	}
	h.clients[c] = struct{}{}
	h.wg.Add(2)
	h.mu.Unlock()
	go func() {
		defer h.wg.Done()
		c.read()
	}()
	go func() {
		defer h.wg.Done()
		c.write()
		h.mu.Lock()
		delete(h.clients, c)
		h.mu.Unlock()
	}()
}

// CloseAll disconnects every browser connected now with code.
func (h *hub) CloseAll(code int, reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		c.close(code, reason)
	}
}

// Stop disconnects every browser, refuses new ones and waits for the
// connections' goroutines.
func (h *hub) Stop() {
	h.mu.Lock()
	h.stopped = true
	for c := range h.clients {
		c.close(websocket.CloseGoingAway, "Baton stops serving")
	}
	h.mu.Unlock()
	h.wg.Wait()
}

type client struct {
	conn *websocket.Conn
	send chan []byte

	once   sync.Once
	done   chan struct{}
	code   int
	reason string
}

// close asks the writer to send a close frame with code and end.
func (c *client) close(code int, reason string) {
	c.once.Do(func() {
		c.code, c.reason = code, reason
		close(c.done)
	})
}

// read discards what the browser sends (nothing but control frames) and
// ends the connection when it closes.
func (c *client) read() {
	defer c.close(websocket.CloseNormalClosure, "")
	c.conn.SetReadLimit(4096)
	for {
		if _, _, err := c.conn.NextReader(); err != nil {
			return
		}
	}
}

func (c *client) write() {
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	defer c.conn.Close()
	for {
		select {
		case data := <-c.send:
			_ = c.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
			if err := c.conn.WriteMessage(websocket.TextMessage, data); err != nil {
				c.close(websocket.CloseAbnormalClosure, "")
				return
			}
		case <-ping.C:
			if err := c.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeTimeout)); err != nil {
				c.close(websocket.CloseAbnormalClosure, "")
				return
			}
		case <-c.done:
			if c.code != websocket.CloseAbnormalClosure {
				_ = c.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(c.code, c.reason), time.Now().Add(time.Second))
			}
			return
		}
	}
}
