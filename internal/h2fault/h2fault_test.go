package h2fault_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petstore/petstore-go/internal/h2fault"
	"golang.org/x/net/http2"
)

// Self-tests of Server, with net/http's own client,
// which they also document: what its HTTP/2 transport resends, after which
// faults, that the SDK has to prevent. They assert what net/http does today
// where it is deterministic; counts that depend on scheduling are logged.

// h2TestClient is a net/http client over HTTP/2 that trusts Server's
// certificate; its idle connections are closed when the test ends.
func h2TestClient(t *testing.T) *http.Client {
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: h2fault.CertPool()}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// h2Bound bounds a call that a broken build could leave waiting forever; it
// is never reached when things work, and nothing is asserted on time.
func h2Bound(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// h2Post is a POST of body made by http.NewRequest, which sets GetBody.
func h2Post(t *testing.T, ctx context.Context, url string, body []byte) *http.Request {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if req.GetBody == nil {
		t.Fatal("http.NewRequest set no GetBody for a bytes.Reader")
	}
	req.Header.Set("Content-Type", "application/json")
	return req
}

func TestH2ServerGETAndPOSTRoundTrip(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("0123456789abcdef"), 20000) // 320 KB: many DATA frames, past the initial windows
	type pet struct {
		Name string `json:"name"`
		Tag  string `json:"tag"`
	}
	srv := h2fault.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Proto != "HTTP/2.0" || r.ProtoMajor != 2 || r.TLS == nil || r.RemoteAddr == "" {
			t.Errorf("request %s %s: Proto %q, TLS %v, RemoteAddr %q", r.Method, r.URL, r.Proto, r.TLS != nil, r.RemoteAddr)
		}
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/pets":
			if got := r.URL.RawQuery; got != "limit=2&tag=a%20b" {
				t.Errorf("RawQuery = %q", got)
			}
			if got := r.Header.Get("X-Req"); got != "hello" {
				t.Errorf("X-Req = %q", got)
			}
			if r.ContentLength != 0 || r.Body != http.NoBody {
				t.Errorf("GET: ContentLength %d, Body %T", r.ContentLength, r.Body)
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Resp", "world")
			w.Write([]byte(`[{"name":"Rex"}]`))
		case r.Method == http.MethodPost && r.URL.Path == "/v1/pets":
			var p pet
			if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
				t.Errorf("POST body: %v", err)
			}
			if r.ContentLength != int64(len(`{"name":"Rex","tag":"dog"}`)) {
				t.Errorf("POST: ContentLength %d", r.ContentLength)
			}
			p.Tag += "!"
			out, _ := json.Marshal(p)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(out)))
			w.WriteHeader(http.StatusCreated)
			w.Write(out)
		case r.Method == http.MethodPut && r.URL.Path == "/echo":
			b, err := io.ReadAll(r.Body)
			if err != nil || !bytes.Equal(b, big) {
				t.Errorf("PUT body: %d bytes, %v", len(b), err)
			}
			w.Write(b)
		default:
			t.Errorf("unexpected %s %s", r.Method, r.URL)
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	c := h2TestClient(t)
	ctx := h2Bound(t)

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/v1/pets?limit=2&tag=a%20b", nil)
	req.Header.Set("X-Req", "hello")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || resp.ProtoMajor != 2 || string(body) != `[{"name":"Rex"}]` ||
		resp.Header.Get("X-Resp") != "world" || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("GET: %d, HTTP/%d, %v, %q, %v", resp.StatusCode, resp.ProtoMajor, resp.Header, body, err)
	}

	resp, err = c.Do(h2Post(t, ctx, srv.URL+"/v1/pets", []byte(`{"name":"Rex","tag":"dog"}`)))
	if err != nil {
		t.Fatal(err)
	}
	var got pet
	err = json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusCreated || resp.ProtoMajor != 2 || got != (pet{"Rex", "dog!"}) ||
		resp.ContentLength != int64(len(`{"name":"Rex","tag":"dog!"}`)) {
		t.Errorf("POST: %d, HTTP/%d, ContentLength %d, %+v, %v", resp.StatusCode, resp.ProtoMajor, resp.ContentLength, got, err)
	}

	req, _ = http.NewRequestWithContext(ctx, http.MethodPut, srv.URL+"/echo", bytes.NewReader(big))
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(body, big) {
		t.Errorf("PUT echo: %d bytes of %d, %v", len(body), len(big), err)
	}
	if srv.Conns() != 1 || srv.Streams() != 3 {
		t.Errorf("%d connections, %d streams; want 1, 3", srv.Conns(), srv.Streams())
	}
}

// TestH2Server64ConcurrentStreamsOnOneConn: 64 requests in flight at once
// (every handler waits until all 64 have arrived) on one connection.
func TestH2Server64ConcurrentStreamsOnOneConn(t *testing.T) {
	t.Parallel()
	const n = 64
	var arrived atomic.Int64
	all := make(chan struct{})
	srv := h2fault.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/warm" {
			return
		}
		if arrived.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
		case <-r.Context().Done():
			return
		}
		w.Write([]byte(r.URL.Query().Get("i")))
	}))
	c := h2TestClient(t)
	ctx := h2Bound(t)
	// One request first, so that the 64 find the connection made: without
	// it, net/http dials one per request and keeps one (closing the rest).
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/warm", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/c?i="+strconv.Itoa(i), nil)
			resp, err := c.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil || string(b) != strconv.Itoa(i) || resp.ProtoMajor != 2 {
				t.Errorf("request %d: %q, HTTP/%d, %v", i, b, resp.ProtoMajor, err)
			}
		}()
	}
	wg.Wait()
	if srv.Conns() != 1 || srv.Streams() != n+1 {
		t.Errorf("%d connections, %d streams; want 1, %d", srv.Conns(), srv.Streams(), n+1)
	}
}

// h2FirstFaulty is a handler that reads each request whole and counts it,
// then, the first time only, ends the stream as fault says; later requests
// get 201 and the body back.
type h2FirstFaulty struct {
	runs   atomic.Int64
	bodies [][]byte
	mu     sync.Mutex
	fault  func(w http.ResponseWriter, c h2fault.Control)
	read   bool // read the body before the fault
}

func (h *h2FirstFaulty) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	first := h.runs.Add(1) == 1
	if first && !h.read {
		h.fault(w, w.(h2fault.Control))
		return
	}
	b, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.bodies = append(h.bodies, b)
	h.mu.Unlock()
	if first {
		h.fault(w, w.(h2fault.Control))
		return
	}
	w.WriteHeader(http.StatusCreated)
	w.Write(b)
}

// h2ResendCase checks a POST with GetBody against a server whose first
// answer is a fault: net/http resends it, and the call succeeds, with the
// server having run the handler twice; bodiesSeen is how many of those
// runs read the body.
func h2ResendCase(t *testing.T, h *h2FirstFaulty, wantConns int64, bodiesSeen int) {
	srv := h2fault.NewServer(t, h)
	c := h2TestClient(t)
	body := []byte(`{"name":"Rex"}`)
	resp, err := c.Do(h2Post(t, h2Bound(t), srv.URL+"/v1/pets", body))
	if err != nil {
		t.Fatalf("Do: %v (handler runs %d)", err, h.runs.Load())
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusCreated || !bytes.Equal(got, body) {
		t.Errorf("response %d %q, %v", resp.StatusCode, got, err)
	}
	if h.runs.Load() != 2 || srv.Streams() != 2 || srv.Conns() != wantConns {
		t.Errorf("one client.Do: handler ran %d times, %d streams, %d connections; want 2, 2, %d",
			h.runs.Load(), srv.Streams(), srv.Conns(), wantConns)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.bodies) != bodiesSeen {
		t.Errorf("the handler read the body %d times; want %d", len(h.bodies), bodiesSeen)
	}
	for _, b := range h.bodies {
		if !bytes.Equal(b, body) {
			t.Errorf("body %q; want %q", b, body)
		}
	}
	t.Logf("one client.Do: handler ran %d times (read the body %d times), %d streams on %d connections",
		h.runs.Load(), len(h.bodies), srv.Streams(), srv.Conns())
}

// TestH2NetHTTPResendsPOSTAfterProtocolReset: a POST read whole, acted on,
// then RST_STREAM(PROTOCOL_ERROR): net/http resends it (the connection is
// not reused after a PROTOCOL_ERROR: a new one) and reports success. The
// server acted twice on one call.
func TestH2NetHTTPResendsPOSTAfterProtocolReset(t *testing.T) {
	t.Parallel()
	h2ResendCase(t, &h2FirstFaulty{read: true, fault: func(_ http.ResponseWriter, c h2fault.Control) {
		c.ResetStream(http2.ErrCodeProtocol)
	}}, 2, 2)
}

// TestH2NetHTTPResendsPOSTAfterGoAwayLie: a POST read whole, acted on, then
// a GOAWAY whose last stream id excludes it (a lie): net/http resends it on
// a new connection.
func TestH2NetHTTPResendsPOSTAfterGoAwayLie(t *testing.T) {
	t.Parallel()
	h2ResendCase(t, &h2FirstFaulty{read: true, fault: func(_ http.ResponseWriter, c h2fault.Control) {
		c.GoAway(c.StreamID()-2, http2.ErrCodeNo)
	}}, 2, 2)
}

// TestH2GoAwayBeforeProcessing: an honest GOAWAY excluding the stream,
// before its body is read: net/http resends on a new connection; the body
// is processed once.
func TestH2GoAwayBeforeProcessing(t *testing.T) {
	t.Parallel()
	h2ResendCase(t, &h2FirstFaulty{fault: func(_ http.ResponseWriter, c h2fault.Control) {
		c.GoAway(c.StreamID()-2, http2.ErrCodeNo)
	}}, 2, 1)
}

// TestH2RefusedStreamBeforeBody: RST_STREAM(REFUSED_STREAM) before the
// body is read: the handler never sees that body; net/http resends on the
// same connection, and the second run reads the body.
func TestH2RefusedStreamBeforeBody(t *testing.T) {
	t.Parallel()
	h2ResendCase(t, &h2FirstFaulty{fault: func(w http.ResponseWriter, c h2fault.Control) {
		c.ResetStream(http2.ErrCodeRefusedStream)
		if _, err := w.Write([]byte("dropped")); err == nil {
			t.Error("a write after ResetStream succeeded")
		}
	}}, 1, 1)
}

// TestH2NetHTTPNoResendWithoutGetBody: the same faults after the whole
// body was read, with a body net/http cannot rewind (no GetBody): no
// resend; the call fails.
func TestH2NetHTTPNoResendWithoutGetBody(t *testing.T) {
	t.Parallel()
	for name, fault := range map[string]func(http.ResponseWriter, h2fault.Control){
		"PROTOCOL_ERROR": func(_ http.ResponseWriter, c h2fault.Control) { c.ResetStream(http2.ErrCodeProtocol) },
		"GOAWAY":         func(_ http.ResponseWriter, c h2fault.Control) { c.GoAway(c.StreamID()-2, http2.ErrCodeNo) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := &h2FirstFaulty{read: true, fault: fault}
			srv := h2fault.NewServer(t, h)
			c := h2TestClient(t)
			req := h2Post(t, h2Bound(t), srv.URL+"/v1/pets", []byte(`{"name":"Rex"}`))
			req.GetBody = nil
			resp, err := c.Do(req)
			if err == nil {
				resp.Body.Close()
				t.Fatalf("Do: %d; want an error", resp.StatusCode)
			}
			if h.runs.Load() != 1 {
				t.Errorf("handler ran %d times; want 1", h.runs.Load())
			}
			t.Logf("handler ran %d times; Do: %v", h.runs.Load(), err)
		})
	}
}

// TestH2NetHTTPStormOnEveryFault: a server that faults on every stream,
// and a GET: net/http resends on a new connection each time, with no
// backoff, until the caller's context ends. The test cancels it once the
// server has counted 50 streams.
func TestH2NetHTTPStormOnEveryFault(t *testing.T) {
	t.Parallel()
	for name, fault := range map[string]func(h2fault.Control){
		"RST_STREAM(PROTOCOL_ERROR)": func(c h2fault.Control) { c.ResetStream(http2.ErrCodeProtocol) },
		"GOAWAY excluding it":        func(c h2fault.Control) { c.GoAway(c.StreamID()-2, http2.ErrCodeNo) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			const enough = 50
			var runs atomic.Int64
			fifty := make(chan struct{})
			srv := h2fault.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if runs.Add(1) == enough {
					close(fifty)
				}
				fault(w.(h2fault.Control))
			}))
			c := h2TestClient(t)
			ctx, cancel := context.WithCancel(h2Bound(t))
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/v1/pets", nil)
			done := make(chan error, 1)
			go func() {
				resp, err := c.Do(req)
				if err == nil {
					resp.Body.Close()
				}
				done <- err
			}()
			select {
			case <-fifty:
				cancel()
			case err := <-done:
				t.Fatalf("Do returned before %d streams (%d): %v", enough, runs.Load(), err)
			}
			err := <-done
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Do: %v; want context.Canceled", err)
			}
			if srv.Streams() < enough {
				t.Errorf("%d streams; want at least %d", srv.Streams(), enough)
			}
			t.Logf("one GET: %d handler runs, %d streams on %d connections before the cancel took effect",
				runs.Load(), srv.Streams(), srv.Conns())
		})
	}
}

// TestH2ResetMidBody: headers and half of the body, then
// RST_STREAM(INTERNAL_ERROR): the client has the headers, then the body
// fails.
func TestH2ResetMidBody(t *testing.T) {
	t.Parallel()
	h2MidBodyCase(t, func(c h2fault.Control) { c.ResetStream(http2.ErrCodeInternal) }, "INTERNAL_ERROR")
}

// TestH2CloseConnMidBody: headers and half of the body, then the TCP
// connection closed (reset): the client has the headers, then the body
// fails.
func TestH2CloseConnMidBody(t *testing.T) {
	t.Parallel()
	h2MidBodyCase(t, func(c h2fault.Control) { c.CloseConn() }, "")
}

func h2MidBodyCase(t *testing.T, fault func(h2fault.Control), wantInErr string) {
	half := bytes.Repeat([]byte("x"), 20000) // two DATA frames
	srv := h2fault.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(2*len(half)))
		w.Header().Set("X-Resp", "half")
		w.Write(half)
		fault(w.(h2fault.Control))
		if _, err := w.Write(half); err == nil {
			t.Error("a write after the fault succeeded")
		}
	}))
	c := h2TestClient(t)
	req, _ := http.NewRequestWithContext(h2Bound(t), http.MethodGet, srv.URL+"/v1/pets", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("Do: %v; want the response's headers", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("X-Resp") != "half" || resp.ContentLength != int64(2*len(half)) {
		t.Errorf("response %d, %v", resp.StatusCode, resp.Header)
	}
	b, err := io.ReadAll(resp.Body)
	if err == nil || !bytes.HasPrefix(half, b) {
		t.Errorf("body: %d bytes, error %v; want at most %d bytes of x, then an error", len(b), err, len(half))
	}
	if err != nil && !strings.Contains(err.Error(), wantInErr) {
		t.Errorf("body error %q; want it to name %s", err, wantInErr)
	}
	if srv.Conns() != 1 || srv.Streams() != 1 {
		t.Errorf("%d connections, %d streams; want 1, 1", srv.Conns(), srv.Streams())
	}
	t.Logf("body: %d bytes, then %v", len(b), err)
}
