package chrome

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// client is a lean CDP client over one websocket to the browser. It enables
// only the domains Baton needs (chromedp's Target enables Network, DOM and
// CSS, whose events would cross the wire for every request of the page),
// multiplexes flattened target sessions, and counts the bytes that
// cross the connection.
type client struct {
	conn *remote.Conn
	log  *slog.Logger

	next atomic.Int64

	mu       sync.Mutex
	pending  map[int64]chan *cdproto.Message
	handlers map[handlerKey][]func(jsonv2.Value)
	closed   bool

	done chan struct{} // closed when the read loop ends
	err  error         // why the read loop ended; read after done

	bytesIn, bytesOut atomic.Int64
	wg                sync.WaitGroup
}

type handlerKey struct {
	session target.SessionID
	method  string
}

// errConnClosed is the reason of a connection that Baton closed itself.
var errConnClosed = errors.New("connection closed")

// dial opens the websocket of the browser at wsURL and starts reading.
func dial(ctx context.Context, wsURL string, log *slog.Logger) (*client, error) {
	c := &client{
		log:      log,
		pending:  make(map[int64]chan *cdproto.Message),
		handlers: make(map[handlerKey][]func(jsonv2.Value)),
		done:     make(chan struct{}),
	}
	conn, err := remote.DialContext(ctx, wsURL, remote.WithConnDebugf(c.count))
	if err != nil {
		return nil, err
	}
	c.conn = conn
	c.wg.Go(c.readLoop)
	return c, nil
}

// count receives the protocol log lines of the websocket ("<- %s" and
// "-> %s" with the raw message) and adds their sizes to the counters.
func (c *client) count(format string, args ...any) {
	if len(args) != 1 || len(format) < 2 {
		return
	}
	b, ok := args[0].([]byte)
	if !ok {
		return
	}
	switch format[:2] {
	case "<-":
		c.bytesIn.Add(int64(len(b)))
	case "->":
		c.bytesOut.Add(int64(len(b)))
	}
}

func (c *client) readLoop() {
	var err error
	for {
		msg := new(cdproto.Message)
		if err = c.conn.Read(context.Background(), msg); err != nil {
			break
		}
		if msg.ID != 0 {
			c.mu.Lock()
			ch := c.pending[msg.ID]
			delete(c.pending, msg.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- msg // buffered, never blocks
			}
			continue
		}
		c.mu.Lock()
		hs := c.handlers[handlerKey{msg.SessionID, string(msg.Method)}]
		c.mu.Unlock()
		for _, h := range hs {
			h(msg.Params)
		}
	}
	c.mu.Lock()
	if c.closed {
		err = errConnClosed
	}
	c.err = err
	c.closed = true
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
	close(c.done)
}

// handle adds fn for the events method of session ("" for the browser). fn
// runs on the read loop: it must return fast and never block.
func (c *client) handle(session target.SessionID, method string, fn func(jsonv2.Value)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := handlerKey{session, method}
	c.handlers[k] = append(c.handlers[k], fn)
}

// forget drops every handler of session.
func (c *client) forget(session target.SessionID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.handlers {
		if k.session == session {
			delete(c.handlers, k)
		}
	}
}

// call sends one command and decodes its result into res.
func (c *client) call(ctx context.Context, session target.SessionID, method string, params, res any) error {
	var buf []byte
	if params != nil {
		var err error
		if buf, err = jsonv2.Marshal(params, chromedp.DefaultMarshalOptions); err != nil {
			return fmt.Errorf("encode %s: %w", method, err)
		}
	}
	id := c.next.Add(1)
	ch := make(chan *cdproto.Message, 1)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return c.lost()
	}
	c.pending[id] = ch
	c.mu.Unlock()
	msg := &cdproto.Message{ID: id, SessionID: session, Method: cdproto.MethodType(method), Params: buf}
	if err := c.conn.Write(ctx, msg); err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return fmt.Errorf("send %s: %w", method, err)
	}
	select {
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return ctx.Err()
	case reply, ok := <-ch:
		if !ok {
			return c.lost()
		}
		if reply.Error != nil {
			return &ProtocolError{Method: method, Code: reply.Error.Code, Message: reply.Error.Message}
		}
		if res == nil || len(reply.Result) == 0 {
			return nil
		}
		if err := jsonv2.Unmarshal(reply.Result, res, chromedp.DefaultUnmarshalOptions); err != nil {
			return fmt.Errorf("decode %s: %w", method, err)
		}
		return nil
	}
}

func (c *client) lost() error {
	<-c.done
	return fmt.Errorf("%w: %w", ErrConnectionLost, c.err)
}

// close closes the websocket and waits for the read loop.
func (c *client) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	_ = c.conn.Close()
	c.wg.Wait()
}

// session is one flattened target session; it satisfies cdp.Session, so
// cdproto's typed commands run on it with cdp.Call.
type session struct {
	c  *client
	id target.SessionID
}

var _ cdp.Session = (*session)(nil)

func (s *session) Call(ctx context.Context, method string, params, res any) error {
	return s.c.call(ctx, s.id, method, params, res)
}

// Subscribe satisfies cdp.Session. The channel buffers every event until
// cancel is called.
func (s *session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	q := newQueue()
	s.c.handle(s.id, method, q.push)
	return q.out, q.stop
}

// queue is an unbounded event buffer feeding a channel.
type queue struct {
	mu    sync.Mutex
	items []jsonv2.Value
	wake  chan struct{}
	out   chan jsonv2.Value
	quit  chan struct{}
	ended chan struct{} // closed when run returns
	once  sync.Once
}

func newQueue() *queue {
	q := &queue{wake: make(chan struct{}, 1), out: make(chan jsonv2.Value), quit: make(chan struct{}), ended: make(chan struct{})}
	go q.run()
	return q
}

func (q *queue) push(v jsonv2.Value) {
	select {
	case <-q.quit:
		return
	default:
	}
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *queue) run() {
	defer close(q.ended)
	defer close(q.out)
	for {
		q.mu.Lock()
		var v jsonv2.Value
		have := len(q.items) > 0
		if have {
			v = q.items[0]
			q.items = q.items[1:]
		}
		q.mu.Unlock()
		if !have {
			select {
			case <-q.wake:
				continue
			case <-q.quit:
				return
			}
		}
		select {
		case q.out <- v:
		case <-q.quit:
			return
		}
	}
}

// stop ends the subscription and waits for its goroutine.
func (q *queue) stop() {
	q.once.Do(func() { close(q.quit) })
	<-q.ended
}

// ProtocolError is an error answer of the browser to a command.
type ProtocolError struct {
	Method  string
	Code    int64
	Message string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("%s: %s (%d)", e.Method, e.Message, e.Code)
}
