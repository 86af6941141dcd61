package petstore

import (
	"context"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
	"github.com/petstore/petstore-go/internal/h2fault"
	"golang.org/x/net/http2"
)

// callOp makes one call of o with c and returns its error; bad asks for
// parameters the SDK refuses.
func callOp(ctx context.Context, c *Client, o op, bad bool) error {
	var err error
	switch o {
	case opListPets:
		p := ListPetsParams{}
		if bad {
			p.Limit = 101
		}
		_, err = c.ListPets(ctx, p)
	case opCreatePet:
		p := NewPet{Name: "Rex", CategoryID: 1}
		if bad {
			p.Name = ""
		}
		_, err = c.CreatePet(ctx, p)
	case opGetPet:
		if bad {
			return callOp(ctx, c, opListPets, true) // GetPet takes no parameter the SDK refuses
		}
		_, err = c.GetPet(ctx, 7)
	}
	return err
}

// retryableCase is a row of Retryable's table: how a call ends, and what
// Retryable says of its error for a GET and for CreatePet.
type retryableCase struct {
	name      string
	get, post bool
	call      func(t *testing.T, o op) error
}

// mockCall returns a retryableCase's call that answers every request with
// r, through a client made with no retries and opts.
func mockCall(r httpmock.Responder, opts ...Option) func(*testing.T, op) error {
	return func(t *testing.T, o op) error {
		c, mt := newTestClient(t, append([]Option{WithMaxRetries(0)}, opts...)...)
		mt.RegisterNoResponder(r)
		return callOp(context.Background(), c, o, false)
	}
}

// failWith is a responder that fails every request with err.
func failWith(err error) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) { return nil, err }
}

// blockUntilDone is a responder that reads the request's body, as a server
// that got the request does, runs f, if not nil, and then waits until the
// request's context ends, and fails with its error.
func blockUntilDone(f func()) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		if req.Body != nil {
			io.Copy(io.Discard, req.Body)
		}
		if f != nil {
			f()
		}
		<-req.Context().Done()
		return nil, req.Context().Err()
	}
}

// failingBody is a 2xx body that ends with an error after a few bytes.
type failingBody struct{ sent bool }

func (b *failingBody) Read(p []byte) (int, error) {
	if b.sent {
		return 0, io.ErrUnexpectedEOF
	}
	b.sent = true
	return copy(p, `{"id":1,`), nil
}

func (b *failingBody) Close() error { return nil }

func statusCases() []retryableCase {
	var cases []retryableCase
	for _, s := range []struct {
		status    int
		get, post bool
	}{
		{429, true, true},
		{408, true, false}, {500, true, false}, {502, true, false}, {503, true, false}, {504, true, false},
		{400, false, false}, {401, false, false}, {403, false, false}, {404, false, false},
		{409, false, false}, {422, false, false}, {501, false, false}, {505, false, false},
	} {
		cases = append(cases, retryableCase{"status " + strconv.Itoa(s.status), s.get, s.post,
			mockCall(jsonResponder(s.status, `{"code":"x","message":"y"}`))})
	}
	return cases
}

func retryableCases() []retryableCase {
	return append(statusCases(), []retryableCase{
		{"429 with a Retry-After over the max wait", true, true, mockCall(func(*http.Request) (*http.Response, error) {
			resp := httpmock.NewStringResponse(429, "")
			resp.Header.Set("Retry-After", "3600")
			return resp, nil
		}, WithMaxRetries(2))},
		{"503 after retries", true, false, mockCall(jsonResponder(503, ""), WithMaxRetries(2))},
		{"no connection: dial refused", true, true, mockCall(failWith(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}))},
		{"no connection: DNS", true, true, mockCall(failWith(&net.DNSError{Err: "no such host", Name: "petstore.test", IsNotFound: true}))},
		{"no connection: a refused port, retried", true, true, refusedPort},
		{"no connection: the TLS handshake cut", true, true, handshakeCut},
		{"every send refused (REFUSED_STREAM)", true, true, refusedStreams},
		{"reset after sending: ErrOutcomeUnknown for a create", true, false, mockCall(afterReading(errors.New("read: connection reset by peer")))},
		{"the per-attempt timeout: ErrOutcomeUnknown for a create", true, false, mockCall(blockUntilDone(nil), WithTimeout(50*time.Millisecond))},
		{"a 2xx body cut short: ErrOutcomeUnknown for a create", true, false, mockCall(func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 201, Header: http.Header{}, Body: &failingBody{}}, nil
		})},
		{"an untrusted certificate", false, false, mockCall(failWith(x509.UnknownAuthorityError{}))},
		{"a 2xx body over 10 MiB", false, false, mockCall(func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(io.LimitReader(zeros{}, 10<<20+1))}, nil
		})},
		{"a 2xx body that is not a Pet", false, false, mockCall(jsonResponder(200, `"hello"`))},
		{"the caller cancels during an attempt", false, false, callerEnds(false)},
		{"the caller's deadline during an attempt", false, false, callerEnds(true)},
		{"the caller cancels in a retry wait", false, false, canceledInWait},
		{"the context was done before the call", false, false, func(t *testing.T, o op) error {
			c, _ := newTestClient(t)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return callOp(ctx, c, o, false)
		}},
		{"invalid parameters", false, false, func(t *testing.T, o op) error {
			c, _ := newTestClient(t)
			return callOp(context.Background(), c, o, true)
		}},
	}...)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// refusedPort calls a loopback port nobody listens on, with the default
// transport: every attempt's dial is refused.
func refusedPort(t *testing.T, o op) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := NewClient(testKey, WithBaseURL("http://"+addr+"/v1"), WithRetryWait(time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	return callOp(context.Background(), c, o, false)
}

// handshakeCut calls, over https, a loopback server that closes every
// connection it accepts before the TLS handshake: no connection is had.
func handshakeCut(t *testing.T, o op) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); <-done })
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	c, err := NewClient(testKey, WithBaseURL("https://"+ln.Addr().String()+"/v1"), WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	return callOp(context.Background(), c, o, false)
}

// refusedStreams calls an HTTP/2 server that refuses every stream.
func refusedStreams(t *testing.T, o op) error {
	srv := h2fault.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.(h2fault.Control).ResetStream(http2.ErrCodeRefusedStream)
	}))
	c := sdkClients(t, srv.URL, WithMaxRetries(0))["default transport"]
	return callOp(context.Background(), c, o, false)
}

// callerEnds returns a call whose context the caller ends during the
// attempt: canceled, or past its deadline.
func callerEnds(deadline bool) func(*testing.T, op) error {
	return func(t *testing.T, o op) error {
		ctx, cancel := context.WithCancel(context.Background())
		if deadline {
			ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
		}
		defer cancel()
		c, mt := newTestClient(t)
		mt.RegisterNoResponder(blockUntilDone(func() {
			if !deadline {
				cancel()
			}
		}))
		return callOp(ctx, c, o, false)
	}
}

// canceledInWait answers 429 (retried for every operation) and cancels the
// call's context from the observer, before the wait: the wait ends at once.
func canceledInWait(t *testing.T, o op) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, mt := newTestClient(t, WithRetryWait(time.Hour, time.Hour), WithObserver(func(context.Context, Attempt) { cancel() }))
	mt.RegisterNoResponder(jsonResponder(429, ""))
	err := callOp(ctx, c, o, false)
	if !errors.Is(err, context.Canceled) || !errors.As(err, new(*APIError)) {
		t.Errorf("err = %v; want context.Canceled and an *APIError", err)
	}
	return err
}

// TestRetryable walks Retryable's table (its doc comment) for each
// operation: the error of a call that ended as the row says, and what
// Retryable says of it.
func TestRetryable(t *testing.T) {
	t.Parallel()
	for _, tc := range retryableCases() {
		for o := range numOps {
			name := operations[o].name
			want := tc.get
			if operations[o].method == http.MethodPost {
				want = tc.post
			}
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				err := tc.call(t, o)
				if err == nil {
					t.Fatal("no error")
				}
				if got := Retryable(err); got != want {
					t.Errorf("Retryable(%v) = %v; want %v", err, got, want)
				}
				if want && errors.Is(err, ErrOutcomeUnknown) {
					t.Errorf("Retryable holds for %v, which matches ErrOutcomeUnknown", err)
				}
				if operations[o].method == http.MethodPost && strings.Contains(tc.name, "ErrOutcomeUnknown") && !errors.Is(err, ErrOutcomeUnknown) {
					t.Errorf("err = %v; want ErrOutcomeUnknown", err)
				}
			})
		}
	}
	for _, err := range []error{nil, ErrMissingAPIKey, ErrInvalidParams, ErrOutcomeUnknown, ErrRateLimited, ErrServerError, context.Canceled} {
		if Retryable(err) {
			t.Errorf("Retryable(%v) = true; want false", err)
		}
	}
}

// TestStatusSentinels: ErrRateLimited and ErrServerError match an
// *APIError by its status, as the other three sentinels do, whatever the
// operation.
func TestStatusSentinels(t *testing.T) {
	t.Parallel()
	sentinels := []error{ErrBadRequest, ErrUnauthorized, ErrNotFound, ErrRateLimited, ErrServerError}
	tests := []struct {
		status int
		want   []error
	}{
		{400, []error{ErrBadRequest}},
		{401, []error{ErrUnauthorized}},
		{404, []error{ErrNotFound}},
		{408, nil},
		{429, []error{ErrRateLimited}},
		{499, nil},
		{500, []error{ErrServerError}},
		{503, []error{ErrServerError}},
		{599, []error{ErrServerError}},
		{600, nil},
	}
	for _, tc := range tests {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t, WithMaxRetries(0))
			mt.RegisterNoResponder(jsonResponder(tc.status, ""))
			for o := range numOps {
				err := callOp(context.Background(), c, o, false)
				var got []error
				for _, s := range sentinels {
					if errors.Is(err, s) {
						got = append(got, s)
					}
				}
				if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
					t.Errorf("%s: sentinels of %v (-want +got):\n%s", operations[o].name, err, diff)
				}
			}
		})
	}
}
