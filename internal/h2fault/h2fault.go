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
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/net/http2"
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
	// Ping sends a PING frame (not an ACK): the client's read loop
	// writes its ACK.
	Ping()
	// CloseConn closes the TCP connection at once, with SO_LINGER 0 (the
	// client gets a TCP reset; what was written before is delivered first
	// on loopback). Everything after it of this connection's handlers
	// sends nothing; their request bodies and contexts end.
	CloseConn()
}

// Server is an HTTP/2 server over TLS on 127.0.0.1 that runs an
// http.Handler per stream. Create it with NewServer.
type Server struct {
	// URL is https://127.0.0.1:port (http:// for NewUnencryptedServer).
	URL string

	plain bool // HTTP/2 without TLS, with prior knowledge (h2c)

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
	return newServer(t, h, false)
}

// NewUnencryptedServer is NewServer without TLS: HTTP/2 with prior
// knowledge (h2c, RFC 9113 section 3.3), as golang.org/x/net/http2's
// Transport with AllowHTTP and net/http's with Protocols (Go 1.24) speak it.
func NewUnencryptedServer(t testing.TB, h http.Handler) *Server {
	t.Helper()
	return newServer(t, h, true)
}

func newServer(t testing.TB, h http.Handler, plain bool) *Server {
	t.Helper()
	cert, _ := certificate()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		URL:     "https://" + ln.Addr().String(),
		plain:   plain,
		handler: h,
		ln:      ln,
		tlsConf: &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2"}},
		ctx:     ctx,
		cancel:  cancel,
		open:    map[*h2Conn]struct{}{},
	}
	s.wg.Add(1)
	go s.acceptLoop()
	if plain {
		s.URL = "http://" + ln.Addr().String()
	}
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
