package transport

import (
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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go/internal/h2fault"
	"golang.org/x/net/http2"
)

// ctxSeen is what a RoundTripper saw of its request's context once it
// ended.
type ctxSeen struct {
	Deadline    time.Time
	HasDeadline bool
	Err         error
	Cause       error
}

// seeCtx waits for ctx to end and returns what it shows.
func seeCtx(ctx context.Context) ctxSeen {
	<-ctx.Done()
	d, ok := ctx.Deadline()
	return ctxSeen{Deadline: d, HasDeadline: ok, Err: ctx.Err(), Cause: context.Cause(ctx)}
}

// TestAttemptContext: the context of an attempt's request, as a
// RoundTripper (or an *http.Transport's Proxy function) sees it: its
// deadline is the earlier of the call's and the attempt's; once the
// attempt's time has run out, its Err is DeadlineExceeded and its cause
// the attempt's *TimeoutError; once the call's context ends, the call's.
func TestAttemptContext(t *testing.T) {
	t.Parallel()
	const limit = 50 * time.Millisecond
	far := time.Now().Add(time.Hour)
	errCaller := errors.New("the caller's cause")
	tests := []struct {
		name    string
		timeout time.Duration
		call    func() (context.Context, context.CancelFunc) // the call's context
		want    func(call context.Context, start time.Time, got ctxSeen) string
	}{
		{"attempt's time runs out", limit, func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), far)
		}, func(_ context.Context, start time.Time, got ctxSeen) string {
			if !got.HasDeadline || got.Deadline.After(start.Add(limit+time.Second)) || got.Deadline.Before(start.Add(limit)) {
				return "deadline " + got.Deadline.String() + "; want the attempt's"
			}
			var te *TimeoutError
			if got.Err != context.DeadlineExceeded || !errors.As(got.Cause, &te) || te.Limit != limit {
				return "Err " + errString(got.Err) + ", cause " + errString(got.Cause) + "; want DeadlineExceeded, the attempt's *TimeoutError"
			}
			return ""
		}},
		{"call's deadline first", time.Hour, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), limit)
		}, func(call context.Context, _ time.Time, got ctxSeen) string {
			if d, _ := call.Deadline(); !got.HasDeadline || !got.Deadline.Equal(d) {
				return "deadline " + got.Deadline.String() + "; want the call's"
			}
			if got.Err != context.DeadlineExceeded || got.Cause != context.DeadlineExceeded {
				return "Err " + errString(got.Err) + ", cause " + errString(got.Cause) + "; want DeadlineExceeded twice"
			}
			return ""
		}},
		{"call canceled with a cause", time.Hour, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancelCause(context.Background())
			return ctx, func() { cancel(errCaller) }
		}, func(_ context.Context, _ time.Time, got ctxSeen) string {
			if got.Err != context.Canceled || got.Cause != errCaller {
				return "Err " + errString(got.Err) + ", cause " + errString(got.Cause) + "; want Canceled, the caller's cause"
			}
			return ""
		}},
	}
	for _, tc := range tests {
		for _, through := range []string{"RoundTripper", "Proxy function"} {
			t.Run(tc.name+", "+through, func(t *testing.T) {
				t.Parallel()
				call, cancel := tc.call()
				defer cancel()
				seen := make(chan ctxSeen, 1)
				out := make(chan struct{})
				var base http.RoundTripper = roundTripFunc(func(req *http.Request) (*http.Response, error) {
					close(out)
					seen <- seeCtx(req.Context())
					return nil, req.Context().Err()
				})
				if through == "Proxy function" {
					tr := &http.Transport{Proxy: func(req *http.Request) (*url.URL, error) {
						close(out)
						seen <- seeCtx(req.Context())
						return nil, req.Context().Err()
					}}
					defer tr.CloseIdleConnections()
					base = tr
				}
				if tc.name == "call canceled with a cause" {
					go func() { <-out; cancel() }()
				}
				tr := New(Transport{User: &http.Client{Transport: base}, Timeout: tc.timeout, Source: "test"})
				start := time.Now()
				r := get(call, tr, "http://petstore.test")
				if problem := tc.want(call, start, <-seen); problem != "" {
					t.Error(problem)
				}
				if r.Err == nil {
					t.Error("the attempt succeeded")
				}
			})
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestAttemptTrace: an attempt's trace is added to the request's context
// the documented way, over a trace of the caller's: both hear of the send.
func TestAttemptTrace(t *testing.T) {
	t.Parallel()
	var callers int
	call := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { callers++ },
	})
	var a *attempt
	rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		trace := httptrace.ContextClientTrace(req.Context())
		if trace == nil || trace.GotConn == nil {
			t.Fatal("no trace in the request's context")
		}
		trace.GotConn(httptrace.GotConnInfo{})
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	})
	a = newAttempt(New(Transport{}), call, rt, nil, "https")
	defer a.end()
	req, _ := http.NewRequestWithContext(call, http.MethodGet, "https://petstore.test/v1/pets", nil)
	if _, err := a.send(req, http.Header{}); err != nil {
		t.Fatal(err)
	}
	if callers != 1 || a.sends != 1 {
		t.Errorf("after one GotConn: the caller's hook ran %d times, the attempt counted %d sends; want 1 and 1", callers, a.sends)
	}
}

// TestResendGate: which sends an attempt lets out, send by send, as the
// trace reports them: never a third that would write anything.
func TestResendGate(t *testing.T) {
	t.Parallel()
	type send struct {
		conn  int  // which connection: 1, 2, 3
		wrote bool // WroteHeaders follows
	}
	tests := []struct {
		name  string
		h2    bool // the connections negotiated HTTP/2 over TLS; else HTTP/1
		sends []send
		stop  bool // the last send is stopped
	}{
		{"one send", false, []send{{1, true}}, false},
		{"two sends", true, []send{{1, true}, {2, true}}, false},
		{"two sends and bounces that wrote nothing", true, []send{{1, false}, {2, true}, {2, false}, {3, true}}, false},
		{"a third send over HTTP/2", true, []send{{1, true}, {1, true}, {1, false}}, true},
		{"a third send over HTTP/1", false, []send{{1, true}, {2, true}, {3, false}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			conns := map[int]*closeCounter{}
			a := newAttempt(New(Transport{}), context.Background(), roundTripFunc(nil), nil, "https")
			defer a.end()
			for _, s := range tc.sends {
				c := conns[s.conn]
				if c == nil {
					c = &closeCounter{}
					conns[s.conn] = c
				}
				var conn net.Conn = c
				if tc.h2 {
					conn = h2Conn{c}
				}
				a.gotConn(httptrace.GotConnInfo{Conn: conn})
				if s.wrote {
					a.wroteHeaders()
				}
			}
			closed := 0
			for _, c := range conns {
				closed += c.closed
			}
			wantClosed := 0
			if tc.stop && !tc.h2 {
				wantClosed = 1 // the HTTP/1 connection of the stopped send; others' requests share an HTTP/2 one
			}
			stopped := a.ctx.Err() != nil
			if stopped != tc.stop || closed != wantClosed {
				t.Errorf("context ended %v, %d connections closed; want %v and %d", stopped, closed, tc.stop, wantClosed)
			}
			if tc.stop && a.failure(context.Canceled) != errResentTwice {
				t.Errorf("failure = %v; want errResentTwice", a.failure(context.Canceled))
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

// h2Conn is a connection that negotiated HTTP/2 over TLS.
type h2Conn struct{ *closeCounter }

func (h2Conn) ConnectionState() tls.ConnectionState {
	return tls.ConnectionState{NegotiatedProtocol: "h2"}
}

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

// TestDroppedUnread: the errors that show the server dropped a request
// unread, and look-alikes that do not.
func TestDroppedUnread(t *testing.T) {
	t.Parallel()
	wrap := func(cause string) string { return textCannotRetryPrefix + cause + textCannotRetrySuffix }
	tests := []struct {
		err  error
		want bool
	}{
		{errors.New(wrap(textGoAway)), true},
		{errors.New(wrap("stream error: stream ID 3; REFUSED_STREAM; received from peer")), true},
		{errors.New("stream error: stream ID 1; REFUSED_STREAM; received from peer"), true},
		{&url.Error{Op: "Post", URL: "https://petstore.test/v1/pets", Err: errors.New(textServerClosedIdle)}, true},
		{errors.New(wrap("stream error: stream ID 3; PROTOCOL_ERROR; received from peer")), false},
		{errors.New("stream error: stream ID 3; INTERNAL_ERROR; received from peer"), false},
		{errors.New("stream error: stream ID x; REFUSED_STREAM; received from peer"), false},
		{errors.New("stream error: stream ID 3; REFUSED_STREAM"), false}, // sent by the client itself
		{errors.New(wrap(textGoAway) + " and more"), false},
		{errors.New("http2: server sent GOAWAY and closed the connection; LastStreamID=1, ErrCode=NO_ERROR, debug=\"\""), false},
		{errors.New("unexpected EOF"), false},
		{nil, false},
	}
	var got, want []bool
	for _, tc := range tests {
		got, want = append(got, droppedUnread(tc.err)), append(want, tc.want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("droppedUnread, test by test (-want +got):\n%s", diff)
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
	if err == nil || err.Error() != textServerClosedIdle || !droppedUnread(err) {
		t.Errorf("second POST: %v; want %q, which droppedUnread knows", err, textServerClosedIdle)
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

// TestUnsent: a failed write on the connection of an HTTP/1 send shows
// that the request never left whole; a failed read, an HTTP/2 connection or
// no connection at all shows nothing.
func TestUnsent(t *testing.T) {
	t.Parallel()
	write := &net.OpError{Op: "write", Net: "tcp", Err: errors.New("broken pipe")}
	read := &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}
	plain, peer := net.Pipe()
	t.Cleanup(func() { plain.Close(); peer.Close() })
	tests := []struct {
		name string
		conn net.Conn
		base http.RoundTripper
		err  error
		want bool
	}{
		{"HTTP/1.1 over TLS, nothing written", alpnConn{plain, "http/1.1"}, &http.Transport{}, &url.Error{Op: "Post", Err: write}, true},
		{"TLS without ALPN, another RoundTripper", alpnConn{plain, ""}, roundTripFunc(nil), write, true},
		{"plain HTTP/1, part written", plain, &http.Transport{}, fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", write), true},
		{"HTTP/2", alpnConn{plain, "h2"}, &http.Transport{}, write, false},
		{"HTTP/1, a failed read", plain, &http.Transport{}, read, false},
		{"HTTP/1, no failed write", plain, &http.Transport{}, errors.New("write tcp: broken pipe"), false},
		{"no connection", nil, &http.Transport{}, write, false},
	}
	var got, want []bool
	for _, tc := range tests {
		a := &attempt{conn: tc.conn, base: tc.base}
		got, want = append(got, a.unsent(tc.err)), append(want, tc.want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unsent, test by test (-want +got):\n%s", diff)
	}
}

// alpnConn is a TLS connection, as far as its ConnectionState goes, that
// negotiated proto.
type alpnConn struct {
	net.Conn
	proto string
}

func (c alpnConn) ConnectionState() tls.ConnectionState {
	return tls.ConnectionState{NegotiatedProtocol: c.proto}
}

// TestDroppedUnreadTexts pins droppedUnread to what net/http returns, on
// the Go that runs the test (CI runs the oldest and the newest): a POST
// without GetBody over HTTP/2, which a server reads whole and then ends as
// each case says.
func TestDroppedUnreadTexts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		end  func(c h2fault.Control)
		want bool
	}{
		{"GOAWAY excluding the stream", func(c h2fault.Control) { c.GoAway(c.StreamID()-2, http2.ErrCodeNo) }, true},
		{"REFUSED_STREAM", func(c h2fault.Control) { c.ResetStream(http2.ErrCodeRefusedStream) }, true},
		{"PROTOCOL_ERROR", func(c h2fault.Control) { c.ResetStream(http2.ErrCodeProtocol) }, false},
		{"INTERNAL_ERROR", func(c h2fault.Control) { c.ResetStream(http2.ErrCodeInternal) }, false},
		{"GOAWAY including the stream, then the connection closed", func(c h2fault.Control) { c.GoAway(c.StreamID(), http2.ErrCodeNo); c.CloseConn() }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := h2fault.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				tc.end(w.(h2fault.Control))
			}))
			tr := &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: &tls.Config{RootCAs: h2fault.CertPool()}}
			defer tr.CloseIdleConnections()
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
			if got := droppedUnread(err); got != tc.want {
				t.Errorf("droppedUnread(%q) = %v; want %v", err, got, tc.want)
			}
		})
	}
}
