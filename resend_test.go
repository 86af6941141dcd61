package petstore

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/petstore/petstore-go/internal/h2fault"
	"golang.org/x/net/http2"
)

// The resend matrix (issue 27): a CreatePet through each kind of transport
// a caller may hand the SDK, against a server that processes the POST and
// then fails, and one whose first send is dropped unread. Counted as the
// server saw them: an animal is stored once, never twice; a processed one
// fails with ErrOutcomeUnknown; an unread one succeeds wherever the
// evidence reaches the SDK (the transport returned the failure, or never
// read the body), and through a RoundTripper that swallows the first
// failure after reading the body (go-retryablehttp's, a hedging one) ends
// in ErrOutcomeUnknown with nothing stored.

// server kinds of the matrix.
const (
	overH1  = "HTTP/1.1 over TLS"
	overH2  = "HTTP/2 over TLS"
	overH2C = "HTTP/2 without TLS (h2c)"
)

// via is a transport of the matrix.
type via struct {
	name    string
	servers []string // the server kinds it speaks to
	// rt returns the RoundTripper, whose connections r dials; nil: the
	// shared transport (no WithHTTPClient).
	rt func(t *testing.T, r *rig) http.RoundTripper
	// noProof: it resends by itself, after reading the body, and swallows
	// the first failure: the SDK never gets the proof.
	noProof bool
	hedges  bool // it sends a copy when r.hedge is signalled
}

// vias are the transports of the matrix; a go1.24 file adds net/http's h2c.
var vias = []via{
	{name: "the shared transport", servers: []string{overH1, overH2}},
	{name: "a caller's *http.Transport", servers: []string{overH1, overH2}, rt: func(t *testing.T, r *rig) http.RoundTripper { return r.transport(t) }},
	{name: "a caller's *http.Transport in a RoundTripper", servers: []string{overH1, overH2}, rt: func(t *testing.T, r *rig) http.RoundTripper {
		return roundTripFunc(r.transport(t).RoundTrip)
	}},
	{name: "a custom DialTLSContext", servers: []string{overH1}, rt: customDialTLS},
	{name: "x/net/http2 over a wrapped TLS connection", servers: []string{overH2}, rt: func(t *testing.T, r *rig) http.RoundTripper {
		tr := &http2.Transport{DialTLSContext: func(ctx context.Context, network, addr string, cfg *tls.Config) (net.Conn, error) {
			tc, err := r.dialTLS(ctx, network, addr, cfg)
			return opaqueConn{tc}, err
		}}
		t.Cleanup(tr.CloseIdleConnections)
		return tr
	}},
	{name: "x/net/http2 h2c (AllowHTTP)", servers: []string{overH2C}, rt: func(t *testing.T, r *rig) http.RoundTripper {
		tr := &http2.Transport{AllowHTTP: true, DialTLSContext: func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
			return r.dial(ctx, network, addr)
		}}
		t.Cleanup(tr.CloseIdleConnections)
		return tr
	}},
	{name: "x/net/http2 h2c registered in an *http.Transport", servers: []string{overH2C}, rt: func(t *testing.T, r *rig) http.RoundTripper {
		h2c := &http2.Transport{AllowHTTP: true, DialTLSContext: func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
			return r.dial(ctx, network, addr)
		}}
		tr := &http.Transport{}
		tr.RegisterProtocol("http", h2c) // the *http.Transport hands it every http:// request
		t.Cleanup(h2c.CloseIdleConnections)
		return tr
	}},
	{name: "go-retryablehttp's RoundTripper", servers: []string{overH1, overH2}, noProof: true, rt: func(t *testing.T, r *rig) http.RoundTripper {
		rc := retryablehttp.NewClient()
		rc.HTTPClient = &http.Client{Transport: r.transport(t)}
		rc.Logger, rc.RetryMax, rc.RetryWaitMin, rc.RetryWaitMax = nil, 3, time.Millisecond, 2*time.Millisecond
		return &retryablehttp.RoundTripper{Client: rc}
	}},
	{name: "a hedging RoundTripper", servers: []string{overH1, overH2}, noProof: true, hedges: true, rt: func(t *testing.T, r *rig) http.RoundTripper {
		return &hedger{base: r.transport(t), hedge: r.hedge}
	}},
}

// rig is what a case of the matrix shares between client and server: the
// client's connections, which it can break, and the hedge's signal.
type rig struct {
	mu      sync.Mutex
	conns   []*faultyConn
	dieOnce atomic.Bool   // the next write of any connection closes it and fails, nothing written
	hedge   chan struct{} // the server has the first send: a hedging RoundTripper sends a copy
}

// faultyConn is a client connection of a rig.
type faultyConn struct {
	net.Conn
	r      *rig
	broken atomic.Bool // its writes fail
}

func (c *faultyConn) Write(p []byte) (int, error) {
	if c.broken.Load() {
		return 0, &net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}
	}
	if c.r.dieOnce.CompareAndSwap(true, false) {
		c.Conn.Close()
		return 0, io.EOF // as net/http reports a kept-alive connection the server closed: nothing written
	}
	return c.Conn.Write(p)
}

func (r *rig) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	fc := &faultyConn{Conn: c, r: r}
	r.mu.Lock()
	r.conns = append(r.conns, fc)
	r.mu.Unlock()
	return fc, nil
}

// breakConns makes the writes of every connection dialled so far fail.
func (r *rig) breakConns() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		c.broken.Store(true)
	}
}

// dialTLS dials a TLS connection over r's, offering h2 and http/1.1.
func (r *rig) dialTLS(ctx context.Context, network, addr string, cfg *tls.Config) (*tls.Conn, error) {
	raw, err := r.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		cfg = &tls.Config{}
	}
	cfg = cfg.Clone()
	cfg.RootCAs, cfg.ServerName = h2fault.CertPool(), "127.0.0.1"
	if len(cfg.NextProtos) == 0 {
		cfg.NextProtos = []string{"h2", "http/1.1"}
	}
	tc := tls.Client(raw, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, err
	}
	return tc, nil
}

// transport is a caller's *http.Transport over r's connections.
func (r *rig) transport(t *testing.T) *http.Transport {
	tr := &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: &tls.Config{RootCAs: h2fault.CertPool()}, DialContext: r.dial}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// customDialTLS is an *http.Transport whose DialTLSContext returns its TLS
// connections in a type of its own: net/http then speaks HTTP/1.1 over
// them (it reads the protocol of a *tls.Conn only), and so does the
// server, as ALPN picked; the SDK cannot tell.
func customDialTLS(t *testing.T, r *rig) http.RoundTripper {
	tr := &http.Transport{DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		tc, err := r.dialTLS(ctx, network, addr, &tls.Config{NextProtos: []string{"http/1.1"}})
		return wrappedTLS{tc}, err
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

type wrappedTLS struct{ *tls.Conn }

// opaqueConn hides everything of a connection but net.Conn's methods.
type opaqueConn struct{ net.Conn }

// hedger is a hedging RoundTripper: it sends a copy of a request (its body
// read into memory) when hedge is signalled, before the first send has
// answered, and returns the first answer, or the last error.
type hedger struct {
	base  http.RoundTripper
	hedge chan struct{}
}

func (h *hedger) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil {
		return h.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	type answer struct {
		resp *http.Response
		err  error
	}
	answers := make(chan answer, 2)
	send := func() {
		r := req.Clone(req.Context())
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		resp, err := h.base.RoundTrip(r)
		answers <- answer{resp, err}
	}
	go send()
	select {
	case a := <-answers:
		return a.resp, a.err
	case <-h.hedge:
		go send()
	}
	a := <-answers
	if a.err == nil {
		go func() { // the other answer, when it comes
			if b := <-answers; b.err == nil {
				b.resp.Body.Close()
			}
		}()
		return a.resp, nil
	}
	b := <-answers
	return b.resp, b.err
}

// matrixServer is a server of one kind whose POST handler is post; it
// answers GET /v1/pets with an empty list.
func matrixServer(t *testing.T, kind string, post http.HandlerFunc) string {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "[]")
			return
		}
		post(w, r)
	})
	switch kind {
	case overH2:
		return h2fault.NewServer(t, h).URL
	case overH2C:
		return h2fault.NewUnencryptedServer(t, h).URL
	}
	srv := httptest.NewUnstartedServer(h)            // HTTP/1.1 only
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // handshakes the tests cut short
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL
}

// created answers a CreatePet with its animal.
func created(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	io.WriteString(w, `{"id":1,"name":"Rex","categoryId":1}`)
}

// matrixCase is one cell of the matrix: its server's counts and handler.
type matrixCase struct {
	v        via
	kind     string
	r        *rig
	requests atomic.Int64 // POSTs whose handler ran
	stored   atomic.Int64
	second   chan struct{} // closed when a second POST arrives
	once     sync.Once
}

// arrive counts a POST and says whether it is the first.
func (m *matrixCase) arrive() bool {
	n := m.requests.Add(1)
	if n == 2 {
		m.once.Do(func() { close(m.second) })
	}
	return n == 1
}

// hold lets a hedging RoundTripper send its copy of the first send, and
// waits until the copy arrives or the client gives up.
func (m *matrixCase) hold(r *http.Request) {
	if !m.v.hedges {
		return
	}
	close(m.r.hedge)
	select {
	case <-m.second:
	case <-r.Context().Done():
	}
}

// processed stores every POST, and then fails it: over HTTP/2 through a
// connection of the rig, with the client's own write failing (its read loop
// writes the ACK of a PING: net/http then aborts every stream with the
// write's error, after the request went out whole); over HTTP/2 otherwise
// with RST_STREAM(INTERNAL_ERROR); over HTTP/1.1 by closing the connection.
func (m *matrixCase) processed(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	first := m.arrive()
	m.stored.Add(1)
	if first {
		m.hold(r)
	}
	if m.v.hedges && !first {
		created(w) // the copy (the gate failed to stop it)
		return
	}
	switch c, h2 := w.(h2fault.Control); {
	case h2 && m.v.rt != nil:
		m.r.breakConns()
		c.Ping()
		<-r.Context().Done()
	case h2:
		c.ResetStream(http2.ErrCodeInternal)
	default:
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
	}
}

// unread drops the first POST unread (over HTTP/2, REFUSED_STREAM; over
// HTTP/1.1 the client's connection dies before it is written, see
// dropFirst), and stores and answers any other.
func (m *matrixCase) unread(w http.ResponseWriter, r *http.Request) {
	first := m.arrive()
	if c, h2 := w.(h2fault.Control); h2 && first {
		m.hold(r)
		c.ResetStream(http2.ErrCodeRefusedStream)
		return
	}
	io.Copy(io.Discard, r.Body)
	m.stored.Add(1)
	created(w)
}

// dropFirst makes the connection of the first send of ctx's CreatePet die
// before anything of it is written, over HTTP/1.1: the rig's next write
// fails, or, through the shared transport, whose connections the rig does
// not dial, the connection is closed as the send gets it.
func (m *matrixCase) dropFirst(ctx context.Context) context.Context {
	if m.kind != overH1 {
		return ctx
	}
	if m.v.rt != nil {
		m.r.dieOnce.Store(true)
		return ctx
	}
	var once sync.Once
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		once.Do(func() { info.Conn.(*tls.Conn).NetConn().Close() })
	}})
}

// TestResendMatrix runs the matrix: stored once, never twice; a processed
// POST fails with ErrOutcomeUnknown, an unread one succeeds wherever the
// evidence reaches the SDK.
func TestResendMatrix(t *testing.T) {
	t.Parallel()
	for _, v := range vias {
		for _, kind := range v.servers {
			for _, mode := range []string{"processed", "unread"} {
				t.Run(v.name+", "+kind+", "+mode, func(t *testing.T) {
					t.Parallel()
					m := &matrixCase{v: v, kind: kind, r: &rig{hedge: make(chan struct{})}, second: make(chan struct{})}
					post := m.processed
					if mode == "unread" {
						post = m.unread
					}
					opts := []Option{WithBaseURL(matrixServer(t, kind, post) + "/v1"), WithMaxRetries(0), WithInsecureHTTP()}
					if v.rt != nil {
						opts = append(opts, WithHTTPClient(&http.Client{Transport: v.rt(t, m.r)}))
					}
					c, err := NewClient(testKey, opts...)
					if err != nil {
						t.Fatal(err)
					}
					ctx := context.Background()
					if _, err := c.ListPets(ctx, ListPetsParams{}); err != nil { // a kept-alive connection
						t.Fatalf("ListPets: %v", err)
					}
					if mode == "unread" {
						ctx = m.dropFirst(ctx)
					}
					pet, err := c.CreatePet(ctx, NewPet{Name: "Rex", CategoryID: 1})
					checkMatrix(t, m, mode, pet, err)
				})
			}
		}
	}
}

// checkMatrix checks the outcome of a cell.
func checkMatrix(t *testing.T, m *matrixCase, mode string, pet *Pet, err error) {
	t.Helper()
	stored := m.stored.Load()
	succeeds := mode == "unread" && !m.v.noProof
	var want string
	switch {
	case succeeds && (err != nil || pet == nil || stored != 1):
		want = "the animal, stored once"
	case !succeeds && (!errors.Is(err, ErrOutcomeUnknown) || pet != nil):
		want = "an error that matches ErrOutcomeUnknown"
	case !succeeds && mode == "processed" && stored != 1:
		want = "the animal stored once"
	case !succeeds && mode == "unread" && stored != 0:
		want = "nothing stored"
	case err != nil && strings.Contains(err.Error(), "GetBody"):
		want = "an error in the SDK's own words"
	}
	if want != "" {
		t.Errorf("CreatePet = %v, %v; the server got %d POSTs and stored %d; want %s", pet, err, m.requests.Load(), stored, want)
	}
	t.Logf("CreatePet: %v, %v; %d POSTs, %d stored", pet, err, m.requests.Load(), stored)
}

// TestExcludedByGOAWAY: requests a GOAWAY excluded (RFC 9113 section 6.8:
// not processed) are sent again within their attempt (WithMaxRetries(0)),
// whatever the GOAWAY's error code, and more than once: a GET or a POST
// excluded twice succeeds, as through plain net/http.
func TestExcludedByGOAWAY(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		post     bool
		code     http2.ErrCode
		excluded int64 // the first requests excluded
	}{
		{"GET excluded twice", false, http2.ErrCodeNo, 2},
		{"POST excluded twice", true, http2.ErrCodeNo, 2},
		{"POST excluded by GOAWAY(ENHANCE_YOUR_CALM) on stream 1", true, http2.ErrCodeEnhanceYourCalm, 1},
		{"GET excluded by GOAWAY(ENHANCE_YOUR_CALM) on stream 1", false, http2.ErrCodeEnhanceYourCalm, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var requests, stored atomic.Int64
			srv := h2fault.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				c := w.(h2fault.Control)
				if requests.Add(1) <= tc.excluded {
					c.GoAway(c.StreamID()-2, tc.code)
					return
				}
				if r.Method == http.MethodGet {
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, "[]")
					return
				}
				stored.Add(1)
				created(w)
			}))
			c, err := NewClient(testKey, WithBaseURL(srv.URL+"/v1"), WithMaxRetries(0))
			if err != nil {
				t.Fatal(err)
			}
			if tc.post {
				_, err = c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1})
			} else {
				_, err = c.ListPets(context.Background(), ListPetsParams{})
			}
			if err != nil || requests.Load() != tc.excluded+1 || tc.post && stored.Load() != 1 {
				t.Errorf("%v after %d requests, %d stored; want success after %d", err, requests.Load(), stored.Load(), tc.excluded+1)
			}
		})
	}
}

// TestNoConnectionIsNotSent: a CreatePet for which no connection was had
// (the TLS handshake reset, as an overloaded load balancer does; the proxy's
// CONNECT refused) was not sent: the retry policy retries it, and it
// succeeds, the animal stored once.
func TestNoConnectionIsNotSent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		proxy bool
	}{
		{"TLS handshake reset", false},
		{"proxy CONNECT refused", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stored atomic.Int64
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				stored.Add(1)
				created(w)
			}))
			srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake reset
			if !tc.proxy {
				srv.Listener = &resetFirst{Listener: srv.Listener}
			}
			srv.StartTLS()
			t.Cleanup(srv.Close)
			opts := []Option{WithBaseURL(srv.URL + "/v1"), WithRetryWait(time.Millisecond, time.Millisecond)}
			if tc.proxy {
				tr := &http.Transport{Proxy: http.ProxyURL(connectProxy(t)), TLSClientConfig: &tls.Config{RootCAs: h2fault.CertPool()}}
				t.Cleanup(tr.CloseIdleConnections)
				opts = append(opts, WithHTTPClient(&http.Client{Transport: tr}))
			}
			c, err := NewClient(testKey, opts...)
			if err != nil {
				t.Fatal(err)
			}
			pet, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1})
			if err != nil || pet == nil || stored.Load() != 1 {
				t.Errorf("CreatePet = %v, %v, %d stored; want the animal, stored once", pet, err, stored.Load())
			}
		})
	}
}

// connectProxy is an HTTP proxy that refuses its first CONNECT (502) and
// tunnels the others.
func connectProxy(t *testing.T) *url.URL {
	t.Helper()
	var connects atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect || connects.Add(1) == 1 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		dst, err := net.Dial("tcp", r.Host)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer dst.Close()
		src, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer src.Close()
		io.WriteString(src, "HTTP/1.1 200 Connection established\r\n\r\n")
		go func() { io.Copy(dst, src); dst.Close() }()
		io.Copy(src, dst)
	}))
	t.Cleanup(proxy.Close)
	u, err := url.Parse(proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// resetFirst is a listener that resets its first connection (SO_LINGER 0)
// once the client's TLS handshake has begun: the handshake fails.
type resetFirst struct {
	net.Listener
	once sync.Once
}

func (l *resetFirst) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		reset := false
		l.once.Do(func() { reset = true })
		if !reset {
			return c, nil
		}
		c.Read(make([]byte, 1)) // the ClientHello: the client's dial is over
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		c.Close()
	}
}
