package transport

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
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

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go/internal/h2fault"
	"golang.org/x/net/http2"
)

// TestResendGate: which sends an attempt lets out, send by send, as the
// trace reports them: a GET up to maxSends, a request with a body never
// after a send that wrote its headers and was not proven dropped.
func TestResendGate(t *testing.T) {
	t.Parallel()
	type send struct {
		conn  int  // which connection: 1, 2, 3
		wrote bool // WroteHeaders follows
	}
	wrote := func(n int) []send {
		s := make([]send, n)
		for i := range s {
			s[i] = send{i + 1, true}
		}
		return s
	}
	tests := []struct {
		name  string
		body  bool
		sends []send
		stop  error // the last send is stopped with it
	}{
		{"a POST sent once", true, wrote(1), nil},
		{"a POST after sends that wrote nothing", true, []send{{1, false}, {2, false}, {2, true}}, nil},
		{"a POST sent again after one that wrote", true, wrote(2), errResent},
		{"a POST whose body was read, sent again before its headers were reported", true, []send{{1, false}, {2, false}}, errResent},
		{"a GET sent seven times", false, wrote(7), nil},
		{"a GET sent an eighth time", false, wrote(8), errBound},
		{"a POST's eighth send", true, []send{{1, false}, {1, false}, {1, false}, {1, false}, {1, false}, {1, false}, {1, false}, {1, false}}, errBound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var body []byte
			if tc.body {
				body = []byte("{}")
			}
			conns := map[int]*closeCounter{}
			a := newAttempt(New(Transport{}), context.Background(), roundTripFunc(nil), body, "https")
			defer a.cancel()
			if tc.body && tc.stop == errResent {
				a.cur.Read(make([]byte, 1)) // the base read the body
			}
			for _, s := range tc.sends {
				if conns[s.conn] == nil {
					conns[s.conn] = &closeCounter{}
				}
				a.gotConn(httptrace.GotConnInfo{Conn: conns[s.conn]})
				if s.wrote {
					a.wroteHeaders()
				}
			}
			closed := 0
			for _, c := range conns {
				closed += c.closed
			}
			wantClosed := 0
			if tc.stop != nil {
				wantClosed = 1 // the stopped send's: its protocol is not known
			}
			reached, got := a.failure(errors.New("the base's error"))
			if a.ctx.Err() == nil && tc.stop != nil || tc.stop != nil && got != tc.stop || closed != wantClosed || tc.stop == errResent && !reached {
				t.Errorf("context %v, failure %v (reached %v), %d connections closed; want the attempt stopped with %v, %d closed", a.ctx.Err(), got, reached, closed, tc.stop, wantClosed)
			}
		})
	}
}

// closeCounter is a net.Conn that counts its Close calls.
type closeCounter struct {
	net.Conn
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

// TestHedgingTransport: a RoundTripper that sends a second copy of a slow
// request under the same context, and reports it through the trace after
// it has answered, neither races (under -race) nor fails the attempt.
func TestHedgingTransport(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	defer wg.Wait()
	rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		trace := httptrace.ContextClientTrace(req.Context())
		trace.GotConn(httptrace.GotConnInfo{})
		trace.WroteHeaders()
		wg.Add(1)
		go func() { // the hedge, late
			defer wg.Done()
			for range 3 {
				trace.GotConn(httptrace.GotConnInfo{})
				trace.WroteHeaders()
			}
		}()
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	})
	r := get(context.Background(), &Transport{User: &http.Client{Transport: rt}}, "https://petstore.test")
	if r.Err != nil || r.Status != 200 {
		t.Errorf("Send = %d, %v; want 200", r.Status, r.Err)
	}
}

// TestProven: each proof of the gate, and look-alikes that prove nothing.
func TestProven(t *testing.T) {
	t.Parallel()
	wrap := func(cause string) error { return errors.New(textCannotRetryPrefix + cause + textCannotRetrySuffix) }
	write := &net.OpError{Op: "write", Net: "tcp", Err: errors.New("broken pipe")}
	read := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}
	plain, peer := net.Pipe()
	t.Cleanup(func() { plain.Close(); peer.Close() })
	noALPN := tls.Client(plain, &tls.Config{}) // no handshake: no protocol picked
	bare, wrapper := &http.Transport{}, roundTripFunc(nil)
	tests := []struct {
		name   string
		conn   net.Conn
		base   http.RoundTripper
		plain  bool
		err    error
		unread bool // the body was never read
		want   bool
	}{
		{"the body never read", nil, wrapper, false, errors.New("anything"), true, true},
		{"GOAWAY excluding the stream", nil, wrapper, false, wrap(textGoAway), false, true},
		{"GOAWAY with an error code", nil, wrapper, false, errors.New(textGoAwayCode + "ENHANCE_YOUR_CALM"), false, true},
		{"REFUSED_STREAM, wrapped", nil, wrapper, false, &url.Error{Op: "Post", Err: wrap("stream error: stream ID 3; REFUSED_STREAM; received from peer")}, false, true},
		{"HTTP/1 for certain, a failed write", noALPN, bare, false, fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", write), false, true},
		{"TLS without ALPN, bare, a failed write", noALPN, bare, false, write, false, true},
		{"HTTP/1 for certain, closed idle", noALPN, bare, false, errors.New(textServerClosedIdle), false, true},
		// A protocol registered for http (x/net/http2's h2c) may take it.
		{"plain http, bare, a failed write", plain, bare, true, write, false, false},
		{"plain http, bare, closed idle", plain, bare, true, errors.New(textServerClosedIdle), false, false},
		{"TLS without ALPN through a wrapper, a failed write", noALPN, wrapper, false, write, false, false},
		{"plain http through a wrapper, a failed write", plain, wrapper, true, write, false, false},
		{"plain http through a wrapper, closed idle", plain, wrapper, true, errors.New(textServerClosedIdle), false, false},
		{"a wrapped connection, a failed write", plain, bare, false, write, false, false},
		{"HTTP/1, a failed read", noALPN, bare, false, read, false, false},
		{"HTTP/1, a write's text only", noALPN, bare, false, errors.New("write tcp: broken pipe"), false, false},
		{"PROTOCOL_ERROR", nil, wrapper, false, wrap("stream error: stream ID 3; PROTOCOL_ERROR; received from peer"), false, false},
		{"REFUSED_STREAM of a bad id", nil, wrapper, false, errors.New("stream error: stream ID x; REFUSED_STREAM; received from peer"), false, false},
		{"REFUSED_STREAM sent by the client", nil, wrapper, false, errors.New("stream error: stream ID 3; REFUSED_STREAM"), false, false},
		{"GOAWAY and more", nil, wrapper, false, errors.New(textGoAway + " and more"), false, false},
		{"GOAWAY that closed the connection", nil, wrapper, false, errors.New(`http2: server sent GOAWAY and closed the connection; LastStreamID=1, ErrCode=NO_ERROR, debug=""`), false, false},
		{"unexpected EOF", nil, wrapper, false, io.ErrUnexpectedEOF, false, false},
	}
	var got, want []string
	for _, tc := range tests {
		a := &attempt{conn: tc.conn, base: tc.base, plain: tc.plain, wrote: true, failed: true}
		b := &sendBody{data: []byte("{}")}
		if !tc.unread {
			b.Read(make([]byte, 1))
		}
		got = append(got, fmt.Sprint(tc.name, ": ", a.proven(tc.err, b, true)))
		want = append(want, fmt.Sprint(tc.name, ": ", tc.want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("proven, test by test (-want +got):\n%s", diff)
	}
}

// TestSendBody: a body read once cannot be sealed; a sealed body is never
// read.
func TestSendBody(t *testing.T) {
	t.Parallel()
	read := &sendBody{data: []byte(`{"name":"Rex"}`)}
	data, err := io.ReadAll(read)
	sealed := &sendBody{data: []byte("{}")}
	sealedFirst := sealed.seal()
	n, rerr := sealed.Read(make([]byte, 8))
	got := fmt.Sprint(string(data), err, read.seal(), sealedFirst, n, rerr)
	want := fmt.Sprint(`{"name":"Rex"}`, nil, false, true, 0, errSealed)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestOwnWords: net/http's advice to define Request.GetBody never reaches
// the SDK's errors; other errors are returned as they are.
func TestOwnWords(t *testing.T) {
	t.Parallel()
	other := errors.New("unexpected EOF")
	tests := []struct {
		err  error
		want string
	}{
		{errors.New(textCannotRetryPrefix + textGoAway + textCannotRetrySuffix), textGoAway},
		{fmt.Errorf("Post %q: %s", "x", textCannotRetryPrefix+"boom"+textCannotRetrySuffix), `Post "x": boom`},
		{other, "unexpected EOF"},
	}
	for _, tc := range tests {
		got := ownWords(tc.err)
		if got.Error() != tc.want || strings.Contains(got.Error(), "GetBody") {
			t.Errorf("ownWords(%q) = %q; want %q", tc.err, got, tc.want)
		}
	}
	if ownWords(other) != other {
		t.Error("ownWords changed an error it had no reason to")
	}
}

// TestServerClosedIdleText pins textServerClosedIdle to what net/http
// returns, on the Go that runs the test (CI runs the oldest and the newest):
// a POST without GetBody over HTTP/1.1 takes a kept-alive connection from
// the pool, and the server closes that connection just before the request
// is written (in the client's GotConn, which then waits until net/http has
// seen the close and closed its side).
func TestServerClosedIdleText(t *testing.T) {
	t.Parallel()
	idle := make(chan net.Conn, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateIdle {
			select {
			case idle <- c:
			default:
			}
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	closed := make(chan struct{}, 1)
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		return closeSignal{c, closed}, err
	}}
	t.Cleanup(tr.CloseIdleConnections)
	post := func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/pets", strings.NewReader(`{"name":"Rex","categoryId":1}`))
		if err != nil {
			t.Fatal(err)
		}
		req.GetBody = nil
		resp, err := tr.RoundTrip(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return err
	}
	if err := post(context.Background()); err != nil {
		t.Fatalf("first POST: %v", err)
	}
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if info.Reused {
			(<-idle).Close() // the server's side of the kept-alive connection
			<-closed         // net/http saw it while the connection was idle
		}
	}}
	err := post(httptrace.WithClientTrace(context.Background(), trace))
	raw, peer := net.Pipe() // net/http's text over TLS without ALPN, where it is a proof
	t.Cleanup(func() { raw.Close(); peer.Close() })
	a := &attempt{base: tr, conn: tls.Client(raw, &tls.Config{}), wrote: true}
	if err == nil || err.Error() != textServerClosedIdle || !a.proven(err, nil, true) {
		t.Errorf("second POST: %v; want %q, a proof", err, textServerClosedIdle)
	}
}

// closeSignal is a connection that signals on closed when it is closed.
type closeSignal struct {
	net.Conn
	closed chan<- struct{}
}

func (c closeSignal) Close() error {
	select {
	case c.closed <- struct{}{}:
	default:
	}
	return c.Conn.Close()
}

// TestProofTexts pins the HTTP/2 texts of proven to what net/http and
// golang.org/x/net/http2 return, on the Go that runs the test (CI runs the
// oldest and the newest): a POST over HTTP/2, on a new connection (stream
// 1), which a server reads whole and then ends as each case says.
func TestProofTexts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		end  func(c h2fault.Control)
		want bool
	}{
		{"GOAWAY excluding the stream", func(c h2fault.Control) { c.GoAway(c.StreamID()-2, http2.ErrCodeNo) }, true},
		{"GOAWAY(ENHANCE_YOUR_CALM) excluding the stream", func(c h2fault.Control) { c.GoAway(c.StreamID()-2, http2.ErrCodeEnhanceYourCalm) }, true},
		{"REFUSED_STREAM", func(c h2fault.Control) { c.ResetStream(http2.ErrCodeRefusedStream) }, true},
		{"PROTOCOL_ERROR", func(c h2fault.Control) { c.ResetStream(http2.ErrCodeProtocol) }, false},
		{"INTERNAL_ERROR", func(c h2fault.Control) { c.ResetStream(http2.ErrCodeInternal) }, false},
		{"GOAWAY including the stream, then the connection closed", func(c h2fault.Control) { c.GoAway(c.StreamID(), http2.ErrCodeNo); c.CloseConn() }, false},
	}
	clients := map[string]func() http.RoundTripper{
		"net/http": func() http.RoundTripper {
			return &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: &tls.Config{RootCAs: h2fault.CertPool()}}
		},
		"x/net/http2": func() http.RoundTripper {
			return &http2.Transport{TLSClientConfig: &tls.Config{RootCAs: h2fault.CertPool()}}
		},
	}
	for _, tc := range tests {
		for client, rt := range clients {
			t.Run(tc.name+", "+client, func(t *testing.T) {
				t.Parallel()
				srv := h2fault.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					io.Copy(io.Discard, r.Body)
					tc.end(w.(h2fault.Control))
				}))
				tr := rt()
				defer tr.(interface{ CloseIdleConnections() }).CloseIdleConnections()
				req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/pets", strings.NewReader(`{"name":"Rex","categoryId":1}`))
				if err != nil {
					t.Fatal(err)
				}
				req.GetBody = nil
				resp, err := tr.RoundTrip(req)
				if err == nil {
					resp.Body.Close()
					t.Fatalf("RoundTrip = %d; want an error", resp.StatusCode)
				}
				a := &attempt{base: roundTripFunc(nil), wrote: true}
				if got := a.proven(err, nil, true); got != tc.want {
					t.Errorf("proven(%q) = %v; want %v", err, got, tc.want)
				}
			})
		}
	}
}

// BenchmarkFlushCost is the cost of the SDK's own body type (sendBody)
// over HTTP/1.1 on loopback, against a *bytes.Reader, which net/http writes
// with the headers: it flushes the headers of any other body first, in a
// write of their own.
func BenchmarkFlushCost(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	data := []byte(`{"name":"Rex","categoryId":1,"status":"available","tags":["a","b"]}`)
	bodies := map[string]func() io.ReadCloser{
		"bytes.Reader": func() io.ReadCloser { return io.NopCloser(bytes.NewReader(data)) },
		"sendBody":     func() io.ReadCloser { return &sendBody{data: data} },
	}
	for _, name := range []string{"bytes.Reader", "sendBody"} {
		b.Run(name, func(b *testing.B) {
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			b.ReportAllocs()
			for range b.N {
				req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
				req.Body, req.ContentLength = bodies[name](), int64(len(data))
				resp, err := tr.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}

// TestFailedWriteOverHTTP1 runs rule 4 of proven on the Go that runs the
// test: over HTTP/1.1 for certain (TLS, ALPN http/1.1) through a bare
// *http.Transport, the first connection's writes fail once its headers went
// out (net/http returns the write's error as it is, and reports it to the
// trace): the SDK sends the POST again, on a new connection, and the server
// stores it once. The same error with the request reported written (HTTP/2
// through RegisterProtocol) is no proof; nor is it over plain http, which a
// RoundTripper registered for it may speak as HTTP/2.
func TestFailedWriteOverHTTP1(t *testing.T) {
	t.Parallel()
	var stored atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b, err := io.ReadAll(r.Body); err == nil && len(b) > 0 {
			stored.Add(1)
		}
	}))
	srv.StartTLS() // HTTP/1.1 only: ALPN http/1.1
	t.Cleanup(srv.Close)
	tlsConfig := srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	var dials atomic.Int32
	tr := &http.Transport{DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		w := &failSecondWrite{Conn: c}
		cfg := tlsConfig.Clone()
		cfg.ServerName, _, _ = net.SplitHostPort(addr)
		tc := tls.Client(w, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			c.Close()
			return nil, err
		}
		if dials.Add(1) == 1 {
			w.armed.Store(true) // the first connection: its writes after the headers fail
		}
		return tc, nil
	}}
	t.Cleanup(tr.CloseIdleConnections)
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/pets", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := New(Transport{User: &http.Client{Transport: tr}}).Send(req, []byte(`{"name":"Rex","categoryId":1}`), 1)
	if r.Err != nil || r.Status != 200 || dials.Load() != 2 || stored.Load() != 1 {
		t.Errorf("Send: %v, status %d; %d connections, %d stored; want 200 on the second connection, stored once", r.Err, r.Status, dials.Load(), stored.Load())
	}
	writeErr := &net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}
	for _, tc := range []struct {
		name   string
		a      *attempt
		failed bool
	}{
		{"TLS without ALPN, the write reported failed", &attempt{conn: tls.Client(&net.TCPConn{}, &tls.Config{}), base: tr, wrote: true, failed: true}, true},
		{"TLS without ALPN, the request reported written", &attempt{conn: tls.Client(&net.TCPConn{}, &tls.Config{}), base: tr, wrote: true}, false},
		{"plain http, the write reported failed", &attempt{conn: &net.TCPConn{}, base: tr, plain: true, wrote: true, failed: true}, false},
	} {
		b := &sendBody{data: []byte("{}")}
		b.Read(make([]byte, 2))
		if got := tc.a.proven(writeErr, b, true); got != tc.failed {
			t.Errorf("%s: proven = %v; want %v", tc.name, got, tc.failed)
		}
	}
}

// failSecondWrite is a connection whose writes after the first, once
// armed, fail.
type failSecondWrite struct {
	net.Conn
	armed atomic.Bool // writes before it is armed (the TLS handshake's) are not counted
	n     atomic.Int32
}

func (c *failSecondWrite) Write(p []byte) (int, error) {
	if c.armed.Load() && c.n.Add(1) > 1 {
		return 0, &net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}
	}
	return c.Conn.Write(p)
}
