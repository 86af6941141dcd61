// Package h2fault is a frame-level HTTP/2 server over TLS, for tests only
// (as net/http/httptest is for net/http), that can misbehave on purpose
// where net/http's own HTTP/2 server never does: reset a stream after it
// read the request, send a GOAWAY that excludes a stream it has already
// processed, drop the connection in the middle of a body. Each request
// stream runs an http.Handler in a goroutine of its own; the handler
// reaches the faults through its ResponseWriter, which implements Control.
// The package's own tests check it with net/http's client, and document
// what that client resends after each fault.
//
// What it does not do: server push, trailers in either direction, priority,
// content sniffing, request body size checks, and flow control of its own
// sending (it ignores the client's receive windows, which Go's client sets
// to 4 MB per stream and 1 GB per connection; responses here are small). It
// grants the client more window for every DATA frame it receives, so a
// client never waits on the server's receive windows.
package h2fault

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Control is what a handler of a Server can do beyond an
// http.ResponseWriter: its ResponseWriter implements it (w.(Control)).
type Control interface {
	// ResetStream sends RST_STREAM with code on this stream now, unless the
	// stream has already ended (END_STREAM or RST_STREAM sent). After it,
	// writes of the handler send nothing and return an error, and reads of
	// the request body return an error.
	ResetStream(code http2.ErrCode)
	// GoAway sends GOAWAY with lastStreamID and code. Streams of the
	// connection above lastStreamID are then abandoned, as the client is
	// told they were not processed: their handlers (this one too, if it is
	// above) keep running, but their writes send nothing, and new streams
	// above lastStreamID are not run. The connection is closed (a TLS
	// close_notify, then FIN, or the kernel's reset if client data is left
	// unread) once no handler of it runs any more: not at once, but as soon
	// as this handler and the connection's other running handlers have
	// returned (at once if none runs, as when called after the handler). A lastStreamID of 1<<31 or more (as
	// StreamID()-2 is for stream 1) means 0.
	GoAway(lastStreamID uint32, code http2.ErrCode)
	// StreamID is this stream's id.
	StreamID() uint32
	// Act runs f, what the handler does to the server's state (store an
	// animal, say), unless a GOAWAY has excluded this stream, and reports
	// whether it ran f. A GOAWAY never excludes a stream that has acted:
	// its last stream id is raised to the highest such stream (RFC 9113
	// section 6.8: streams above it were not processed), so a client may
	// trust it.
	Act(f func()) bool
	// Excluded reports whether a GOAWAY has excluded this stream.
	Excluded() bool
	// CloseConn closes the TCP connection at once, with SO_LINGER 0 (the
	// client gets a TCP reset; what was written before is delivered first
	// on loopback). Everything after it of this connection's handlers
	// sends nothing; their request bodies and contexts end.
	CloseConn()
}

// Server is an HTTP/2 server over TLS on 127.0.0.1 that runs an
// http.Handler per stream. Create it with NewServer.
type Server struct {
	// URL is https://127.0.0.1:port.
	URL string

	handler http.Handler
	ln      net.Listener
	tlsConf *tls.Config
	ctx     context.Context // cancelled by Close
	cancel  context.CancelFunc

	conns   atomic.Int64 // TCP connections accepted
	streams atomic.Int64 // request streams opened

	mu     sync.Mutex
	closed bool
	open   map[*h2Conn]struct{}

	closeOnce sync.Once
	wg        sync.WaitGroup // the accept loop, connections and handlers
}

// Errors of a Server's request bodies and contexts (context.Cause).
var (
	errConnClosed    = errors.New("h2fault: connection closed")
	errResetByServer = errors.New("h2fault: stream reset by the server (ResetStream)")
	errGoneAway      = errors.New("h2fault: stream abandoned by a GOAWAY")
	errHandlerDone   = errors.New("h2fault: handler returned")
	errBodyClosed    = errors.New("h2fault: read on closed request body")
)

// resetByClient is the error of a request body, and the cause of its
// context, when the client reset the stream.
type resetByClient struct{ code http2.ErrCode }

func (e resetByClient) Error() string {
	return "h2fault: stream reset by the client: " + e.code.String()
}

var (
	certOnce sync.Once
	tlsCert  tls.Certificate
	certX509 *x509.Certificate
)

// certificate is the certificate that net/http/httptest's TLS servers
// present (valid for 127.0.0.1), taken from a throwaway httptest server the
// first time, with its parsed form.
func certificate() (tls.Certificate, *x509.Certificate) {
	certOnce.Do(func() {
		srv := httptest.NewUnstartedServer(nil)
		srv.StartTLS()
		tlsCert = srv.TLS.Certificates[0]
		certX509 = srv.Certificate()
		srv.Close()
	})
	return tlsCert, certX509
}

// CertPool is a pool holding only the certificate of a Server and of
// httptest's TLS servers, for a client's tls.Config.RootCAs.
func CertPool() *x509.CertPool {
	_, cert := certificate()
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}

// NewServer starts a Server running h on every request stream. A
// t.Cleanup closes it and waits for its goroutines, handlers included.
func NewServer(t testing.TB, h http.Handler) *Server {
	t.Helper()
	cert, _ := certificate()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		URL:     "https://" + ln.Addr().String(),
		handler: h,
		ln:      ln,
		tlsConf: &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2"}},
		ctx:     ctx,
		cancel:  cancel,
		open:    map[*h2Conn]struct{}{},
	}
	s.wg.Add(1)
	go s.acceptLoop()
	t.Cleanup(s.Close)
	return s
}

// Close stops accepting, closes every connection at once and waits for the
// server's goroutines to end, handlers included: a handler must return once
// its request's context is done or its writes fail. Close is idempotent.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		conns := make([]*h2Conn, 0, len(s.open))
		for c := range s.open {
			conns = append(conns, c)
		}
		s.mu.Unlock()
		s.cancel()
		s.ln.Close()
		for _, c := range conns {
			c.kill()
		}
	})
	s.wg.Wait()
}

// Conns is the number of TCP connections accepted so far.
func (s *Server) Conns() int64 { return s.conns.Load() }

// Streams is the number of request streams (HEADERS frames opening a
// stream) received so far, those a GOAWAY made the server ignore included.
func (s *Server) Streams() int64 { return s.streams.Load() }

func (s *Server) acceptLoop() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.conns.Add(1)
		c := &h2Conn{srv: s, raw: nc, maxFrame: 16384, streams: map[uint32]*h2Stream{}}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nc.Close()
			return
		}
		s.open[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go c.serve()
	}
}

// h2Conn is one connection of a Server.
type h2Conn struct {
	srv *Server
	raw net.Conn
	tc  *tls.Conn
	ctx context.Context // ends with the connection; parent of the streams'
	fr  *http2.Framer

	dead atomic.Bool // the connection is closed or broken: nothing is sent

	// wmu serializes every frame written, and guards what follows.
	wmu      sync.Mutex
	henc     *hpack.Encoder
	hbuf     bytes.Buffer
	maxFrame uint32 // the client's SETTINGS_MAX_FRAME_SIZE

	// mu guards what follows.
	mu         sync.Mutex
	streams    map[uint32]*h2Stream // streams whose handler runs
	goingAway  bool                 // a GOAWAY was sent
	goAwayLast uint32               // the lowest last stream id sent in a GOAWAY
	acted      uint32               // the highest stream id whose handler has acted (see Act)
	closing    bool                 // the close after a GOAWAY has begun
}

// kill closes the connection at once; its read loop then ends it.
func (c *h2Conn) kill() {
	c.dead.Store(true)
	c.raw.Close()
}

// serve runs the connection: the TLS handshake, the client's preface, the
// server's SETTINGS, then the frames the client sends, until it ends.
func (c *h2Conn) serve() {
	defer c.srv.wg.Done()
	ctx, cancel := context.WithCancelCause(c.srv.ctx)
	c.ctx = ctx
	defer func() {
		c.kill()
		cancel(errConnClosed)
		c.mu.Lock()
		for _, st := range c.streams {
			st.stopped.Store(true)
			st.body.closeWithError(errConnClosed)
		}
		c.mu.Unlock()
		c.srv.mu.Lock()
		delete(c.srv.open, c)
		c.srv.mu.Unlock()
	}()

	c.tc = tls.Server(c.raw, c.srv.tlsConf)
	if err := c.tc.HandshakeContext(ctx); err != nil {
		return
	}
	if c.tc.ConnectionState().NegotiatedProtocol != "h2" {
		return
	}
	br := bufio.NewReader(c.tc)
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(br, preface); err != nil || string(preface) != http2.ClientPreface {
		return
	}
	c.fr = http2.NewFramer(c.tc, br)
	c.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil) // the connection's one decoder
	c.henc = hpack.NewEncoder(&c.hbuf)
	if err := c.write(func() error {
		return c.fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 1000})
	}); err != nil {
		return
	}
	c.readLoop()
}

// write runs f, which writes frames, under wmu unless the connection is
// dead; an error of f other than errH2Stopped (a write to the connection
// failed) kills the connection.
func (c *h2Conn) write(f func() error) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeLocked(f)
}

func (c *h2Conn) writeLocked(f func() error) error {
	if c.dead.Load() {
		return errConnClosed
	}
	err := f()
	if err != nil && err != errH2Stopped { // a write to the connection failed
		c.kill()
	}
	return err
}

// readLoop reads the client's frames until the connection ends.
func (c *h2Conn) readLoop() {
	var maxStreamID uint32
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			var se http2.StreamError
			if errors.As(err, &se) {
				c.write(func() error { return c.fr.WriteRSTStream(se.StreamID, se.Code) })
				continue
			}
			var ce http2.ConnectionError
			if errors.As(err, &ce) {
				c.write(func() error { return c.fr.WriteGoAway(maxStreamID, http2.ErrCode(ce), nil) })
			}
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if f.IsAck() {
				continue
			}
			c.write(func() error {
				f.ForeachSetting(func(s http2.Setting) error {
					switch s.ID {
					case http2.SettingMaxFrameSize:
						c.maxFrame = s.Val
					case http2.SettingHeaderTableSize:
						c.henc.SetMaxDynamicTableSizeLimit(s.Val)
					}
					return nil
				})
				return c.fr.WriteSettingsAck()
			})
		case *http2.PingFrame:
			if !f.IsAck() {
				c.write(func() error { return c.fr.WritePing(true, f.Data) })
			}
		case *http2.MetaHeadersFrame:
			id := f.StreamID
			if id <= maxStreamID { // trailers: only their END_STREAM counts
				if st := c.stream(id); st != nil && f.StreamEnded() {
					st.remoteClosed.Store(true)
					st.body.closeWithError(io.EOF)
				}
				continue
			}
			maxStreamID = id
			c.srv.streams.Add(1)
			c.startStream(f)
		case *http2.DataFrame:
			id := f.StreamID
			st := c.stream(id)
			if st != nil {
				st.body.write(f.Data()) // copies
				if f.StreamEnded() {
					st.remoteClosed.Store(true)
					st.body.closeWithError(io.EOF)
				}
			}
			if n := f.Length; n > 0 {
				c.write(func() error {
					if err := c.fr.WriteWindowUpdate(0, n); err != nil {
						return err
					}
					if st != nil && !f.StreamEnded() && !st.ended && !st.stopped.Load() {
						return c.fr.WriteWindowUpdate(id, n)
					}
					return nil
				})
			}
		case *http2.RSTStreamFrame:
			if st := c.stream(f.StreamID); st != nil {
				err := resetByClient{f.ErrCode}
				st.stopped.Store(true)
				st.remoteClosed.Store(true)
				st.body.closeWithError(err)
				st.cancel(err)
			}
		}
		// WINDOW_UPDATE (the client's receive windows are ignored), GOAWAY
		// (the client closes the connection next), PRIORITY and unknown
		// frames: nothing to do.
	}
}

// stream is the stream id whose handler runs, or nil.
func (c *h2Conn) stream(id uint32) *h2Stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams[id]
}

// startStream makes the request of a new stream and runs the handler on it,
// unless a GOAWAY excludes the stream.
func (c *h2Conn) startStream(f *http2.MetaHeadersFrame) {
	id := f.StreamID
	ctx, cancel := context.WithCancelCause(c.ctx)
	st := &h2Stream{c: c, id: id, cancel: cancel, hdr: http.Header{}}
	st.body.cond.L = &st.body.mu

	req := &http.Request{
		Method:     f.PseudoValue("method"),
		Proto:      "HTTP/2.0",
		ProtoMajor: 2,
		Header:     http.Header{},
		Host:       f.PseudoValue("authority"),
		RequestURI: f.PseudoValue("path"),
		RemoteAddr: c.raw.RemoteAddr().String(),
	}
	state := c.tc.ConnectionState()
	req.TLS = &state
	for _, hf := range f.RegularFields() {
		req.Header.Add(hf.Name, hf.Value)
	}
	if cookies := req.Header.Values("Cookie"); len(cookies) > 1 {
		req.Header.Set("Cookie", strings.Join(cookies, "; "))
	}
	if req.Host == "" {
		req.Host = req.Header.Get("Host")
	}
	u, err := url.ParseRequestURI(req.RequestURI)
	if err != nil {
		u = &url.URL{Path: req.RequestURI}
	}
	req.URL = u
	if f.StreamEnded() {
		st.remoteClosed.Store(true)
		req.ContentLength = 0
		req.Body = http.NoBody
	} else {
		req.ContentLength = -1
		if n, err := strconv.ParseInt(req.Header.Get("Content-Length"), 10, 64); err == nil && n >= 0 {
			req.ContentLength = n
		}
		req.Body = &st.body
	}
	req = req.WithContext(ctx)

	c.mu.Lock()
	if c.goingAway && id > c.goAwayLast {
		c.mu.Unlock()
		cancel(errGoneAway)
		return
	}
	c.streams[id] = st
	c.srv.wg.Add(1)
	c.mu.Unlock()
	go st.run(req)
}

// h2Stream is one request stream, and the ResponseWriter of its handler.
type h2Stream struct {
	c      *h2Conn
	id     uint32
	cancel context.CancelCauseFunc
	body   h2Body

	remoteClosed atomic.Bool // END_STREAM or RST_STREAM received
	stopped      atomic.Bool // the response is abandoned: writes send nothing

	// Under c.wmu:
	ended bool // END_STREAM or RST_STREAM sent

	// Of the handler's goroutine:
	hdr         http.Header
	wroteHeader bool
}

var (
	_ http.ResponseWriter = (*h2Stream)(nil)
	_ http.Flusher        = (*h2Stream)(nil)
	_ Control             = (*h2Stream)(nil)
)

// run runs the handler, then ends the stream: the response, if the handler
// sent none, then END_STREAM, and RST_STREAM(NO_ERROR) if the client is
// still sending the request body (as net/http's server does). A panic of
// http.ErrAbortHandler resets the stream with INTERNAL_ERROR.
func (st *h2Stream) run(req *http.Request) {
	c := st.c
	defer c.srv.wg.Done()
	defer func() {
		st.cancel(errHandlerDone)
		c.mu.Lock()
		delete(c.streams, st.id)
		closeNow := c.goingAway && !c.closing && len(c.streams) == 0
		c.closing = c.closing || closeNow
		c.mu.Unlock()
		if closeNow {
			c.closeGracefully()
		}
	}()
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			st.ResetStream(http2.ErrCodeInternal)
		}
	}()
	c.srv.handler.ServeHTTP(st, req)
	if !st.wroteHeader {
		st.writeHeaders(http.StatusOK, true)
		return
	}
	c.write(func() error {
		if st.ended || st.stopped.Load() {
			return nil
		}
		st.ended = true
		if err := c.fr.WriteData(st.id, true, nil); err != nil {
			return err
		}
		if !st.remoteClosed.Load() {
			return c.fr.WriteRSTStream(st.id, http2.ErrCodeNo)
		}
		return nil
	})
}

// Header is the response's header, sent by WriteHeader.
func (st *h2Stream) Header() http.Header { return st.hdr }

// WriteHeader sends the response's HEADERS, with :status code (any number;
// 1xx are sent as informational responses), and the header fields, in
// lower case, but those HTTP/2 forbids. Later calls do nothing.
func (st *h2Stream) WriteHeader(code int) {
	if st.wroteHeader {
		return
	}
	if code >= 100 && code < 200 {
		st.writeHeaders(code, false)
		return
	}
	st.wroteHeader = true
	st.writeHeaders(code, false)
}

// writeHeaders sends a HEADERS frame (and CONTINUATION frames if the block
// is larger than the client's max frame size), with END_STREAM if end.
func (st *h2Stream) writeHeaders(code int, end bool) {
	st.wroteHeader = st.wroteHeader || end
	keys := make([]string, 0, len(st.hdr))
	for k := range st.hdr {
		switch strings.ToLower(k) {
		case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	c := st.c
	c.write(func() error {
		if st.ended || st.stopped.Load() {
			return nil
		}
		c.hbuf.Reset()
		c.henc.WriteField(hpack.HeaderField{Name: ":status", Value: strconv.Itoa(code)})
		for _, k := range keys {
			for _, v := range st.hdr[k] {
				c.henc.WriteField(hpack.HeaderField{Name: strings.ToLower(k), Value: v})
			}
		}
		block := c.hbuf.Bytes()
		max := int(c.maxFrame)
		first := block
		if len(first) > max {
			first = first[:max]
		}
		block = block[len(first):]
		if end {
			st.ended = true
		}
		if err := c.fr.WriteHeaders(http2.HeadersFrameParam{
			StreamID: st.id, BlockFragment: first, EndStream: end, EndHeaders: len(block) == 0,
		}); err != nil {
			return err
		}
		for len(block) > 0 {
			frag := block
			if len(frag) > max {
				frag = frag[:max]
			}
			block = block[len(frag):]
			if err := c.fr.WriteContinuation(st.id, len(block) == 0, frag); err != nil {
				return err
			}
		}
		if end && !st.remoteClosed.Load() {
			return c.fr.WriteRSTStream(st.id, http2.ErrCodeNo)
		}
		return nil
	})
}

// errH2Stopped is the error of a write on a stream whose response is
// abandoned (reset by either side, excluded by a GOAWAY, connection gone).
var errH2Stopped = errors.New("h2fault: stream closed: nothing sent")

// Write sends p in DATA frames of at most the client's max frame size,
// after the HEADERS (status 200) if WriteHeader was not called. It sends
// nothing and returns an error once the stream is reset, abandoned by a
// GOAWAY, or its connection is gone.
func (st *h2Stream) Write(p []byte) (int, error) {
	if !st.wroteHeader {
		st.WriteHeader(http.StatusOK)
	}
	c := st.c
	n := 0
	for len(p) > 0 {
		err := c.write(func() error {
			if st.ended || st.stopped.Load() {
				return errH2Stopped
			}
			chunk := p
			if len(chunk) > int(c.maxFrame) {
				chunk = chunk[:c.maxFrame]
			}
			if err := c.fr.WriteData(st.id, false, chunk); err != nil {
				return err
			}
			n += len(chunk)
			p = p[len(chunk):]
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Flush sends the HEADERS if they are not sent yet; frames are written to
// the connection as they are made, so nothing else waits.
func (st *h2Stream) Flush() {
	if !st.wroteHeader {
		st.WriteHeader(http.StatusOK)
	}
}

// StreamID implements Control.
func (st *h2Stream) StreamID() uint32 { return st.id }

// ResetStream implements Control.
func (st *h2Stream) ResetStream(code http2.ErrCode) {
	c := st.c
	c.write(func() error {
		if st.ended {
			return nil
		}
		st.ended = true
		return c.fr.WriteRSTStream(st.id, code)
	})
	st.stopped.Store(true)
	st.body.closeWithError(errResetByServer)
	st.cancel(errResetByServer)
}

// GoAway implements Control.
func (st *h2Stream) GoAway(lastStreamID uint32, code http2.ErrCode) {
	if lastStreamID >= 1<<31 {
		lastStreamID = 0
	}
	c := st.c
	c.wmu.Lock()
	c.mu.Lock()
	lastStreamID = max(lastStreamID, c.acted) // never exclude a stream that has acted
	if c.goingAway {
		lastStreamID = min(lastStreamID, c.goAwayLast) // a later GOAWAY never raises it
	}
	c.writeLocked(func() error { return c.fr.WriteGoAway(lastStreamID, code, nil) })
	if !c.goingAway || lastStreamID < c.goAwayLast {
		c.goAwayLast = lastStreamID
	}
	c.goingAway = true
	for id, s := range c.streams {
		if id > c.goAwayLast {
			s.stopped.Store(true)
		}
	}
	closeNow := !c.closing && len(c.streams) == 0 // called after the handler returned
	c.closing = c.closing || closeNow
	c.mu.Unlock()
	c.wmu.Unlock()
	if closeNow {
		c.closeGracefully()
	}
}

// Act implements Control.
func (st *h2Stream) Act(f func()) bool {
	c := st.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.goingAway && st.id > c.goAwayLast {
		return false
	}
	c.acted = max(c.acted, st.id)
	f()
	return true
}

// Excluded implements Control.
func (st *h2Stream) Excluded() bool {
	c := st.c
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.goingAway && st.id > c.goAwayLast
}

// closeGracefully closes the connection after the frames sent: a TLS
// close_notify, then FIN.
func (c *h2Conn) closeGracefully() {
	c.wmu.Lock()
	c.dead.Store(true)
	c.tc.Close()
	c.wmu.Unlock()
}

// CloseConn implements Control.
func (st *h2Stream) CloseConn() {
	c := st.c
	c.dead.Store(true)
	if tcp, ok := c.raw.(*net.TCPConn); ok {
		tcp.SetLinger(0)
	}
	c.raw.Close()
}

// h2Body is a request body: the stream's DATA, buffered without limit as
// the read loop delivers it (it never waits on a handler), until io.EOF at
// END_STREAM or the error that ended the stream.
type h2Body struct {
	mu     sync.Mutex
	cond   sync.Cond
	buf    bytes.Buffer
	err    error // io.EOF, or why the stream ended; set once
	closed bool  // Close was called: data is discarded
}

// Read reads the body, waiting for DATA.
func (b *h2Body) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.buf.Len() == 0 && b.err == nil && !b.closed {
		b.cond.Wait()
	}
	switch {
	case b.closed:
		return 0, errBodyClosed
	case b.buf.Len() > 0:
		return b.buf.Read(p)
	default:
		return 0, b.err
	}
}

// Close discards the body, what is buffered and what is still to come.
func (b *h2Body) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.buf.Reset()
	b.cond.Broadcast()
	return nil
}

func (b *h2Body) write(p []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil && !b.closed {
		b.buf.Write(p)
		b.cond.Broadcast()
	}
}

func (b *h2Body) closeWithError(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil {
		b.err = err
		b.cond.Broadcast()
	}
}

// String describes the stream, for test logs.
func (st *h2Stream) String() string {
	return fmt.Sprintf("h2 stream %d of %s", st.id, st.c.raw.RemoteAddr())
}
