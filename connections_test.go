package petstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/petstore/petstore-go/internal/h2fault"
)

func TestDefaultTransportIsSharedAndPooled(t *testing.T) {
	t.Parallel()
	c1, err1 := NewClient(testKey, WithBaseURL(testBase))
	c2, err2 := NewClient(testKey, WithBaseURL(StagingURL))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	b1, b2 := c1.transport.Base(), c2.transport.Base()
	if b1 != b2 {
		t.Error("two Clients without WithHTTPClient use different transports")
	}
	if b1 == http.DefaultTransport {
		t.Error("the shared transport is http.DefaultTransport itself; want a clone")
	}
	tr, ok := b1.(*http.Transport)
	if !ok {
		t.Fatalf("shared transport is %T", b1)
	}
	if tr.MaxIdleConnsPerHost < 64 || tr.Proxy == nil || tr.DialContext == nil {
		t.Errorf("shared transport: MaxIdleConnsPerHost %d, Proxy set %v, DialContext set %v; want >= 64, true, true",
			tr.MaxIdleConnsPerHost, tr.Proxy != nil, tr.DialContext != nil)
	}
}

// countingServer is an httptest server with the /v1 path that counts the
// connections it accepts.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// netHTTPWriteWait is net/http's maxWriteWaitBeforeConnReuse: when a
// response has been read to its end before the Transport's writer goroutine
// has reported the request written, the reader waits this long for that
// report and then drops the connection rather than reuse it. On a loaded
// machine the writer can be kept off the CPU that long: a connection is
// then closed, and replaced by a new dial, through no fault of the SDK.
const netHTTPWriteWait = 50 * time.Millisecond

// connReuse follows, through httptrace, what becomes of the connection of
// every response to the calls made with a context from it: returned to the
// idle pool, refused by the pool (which is then too small), or dropped.
// A connection whose response was read to the end is returned or refused
// before the read ends; one that is neither was closed because its body was
// not read to the end, or by net/http itself, as netHTTPWriteWait says,
// which keeps the reader waiting at least that long after the response's
// first byte. A drop sooner than that is the SDK's.
type connReuse struct {
	mu sync.Mutex
	n  connCounts
}

// connCounts are the counts of a connReuse.
type connCounts struct {
	responses int      // responses received
	returned  int      // connections back in the idle pool after a response
	refused   []string // why the pool refused a connection back
	dropped   int      // connections dropped sooner than netHTTPWriteWait: the SDK's
	netDrops  int      // connections dropped after netHTTPWriteWait: maybe net/http's
}

// connOfCall is the state of one call's connection: a response whose
// connection is neither returned nor refused yet.
type connOfCall struct {
	r       *connReuse
	pending bool
	first   time.Time // when the pending response's first byte came
}

// call returns a context that traces a call, and a func to call when it has
// returned.
func (r *connReuse) call(parent context.Context) (context.Context, func()) {
	c := &connOfCall{r: r}
	trace := &httptrace.ClientTrace{
		GetConn:              func(string) { c.settle() }, // the next attempt
		GotFirstResponseByte: c.response,
		PutIdleConn:          c.put,
	}
	return httptrace.WithClientTrace(parent, trace), c.settle
}

func (c *connOfCall) response() {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	c.r.n.responses++
	c.pending, c.first = true, time.Now()
}

func (c *connOfCall) put(err error) {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	c.pending = false
	if err != nil {
		c.r.n.refused = append(c.r.n.refused, err.Error())
		return
	}
	c.r.n.returned++
}

// settle counts the pending response's connection as dropped: its attempt
// is over, and a connection is returned or refused before that.
func (c *connOfCall) settle() {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	if !c.pending {
		return
	}
	c.pending = false
	if time.Since(c.first) < netHTTPWriteWait {
		c.r.n.dropped++
	} else {
		c.r.n.netDrops++
	}
}

// take returns the counts so far and starts anew.
func (r *connReuse) take() connCounts {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := r.n
	r.n = connCounts{}
	return got
}

// check fails the test if the pool refused a connection or the SDK dropped
// one; what tells how many responses.
func (r connCounts) check(t *testing.T, what string) {
	t.Helper()
	if len(r.refused) > 0 {
		t.Errorf("%s: the idle pool refused %d of %d connections: %q", what, len(r.refused), r.responses, r.refused[0])
	}
	if r.dropped > 0 {
		t.Errorf("%s: %d of %d connections were closed at once after their response, not returned to the pool: a body not read to its end?", what, r.dropped, r.responses)
	}
	if r.netDrops > 0 {
		t.Logf("%s: %d of %d connections were dropped after %v or more, as net/http does on a loaded machine", what, r.netDrops, r.responses, netHTTPWriteWait)
	}
}

// TestConnectionsAreReused: 60 sequential calls, with error responses,
// over the shared transport, reuse one connection. Not parallel: it counts
// dials through the shared transport, whose idle connections a parallel
// test may close (CloseIdleConnections closes every host's) or evict (the
// pool is bounded across hosts), and the call after would dial.
func TestConnectionsAreReused(t *testing.T) {
	big := `{"code":"not_found","message":"` + strings.Repeat("x", 20000) + `","status":404}`
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/pets":
			fmt.Fprint(w, `[{"id":1,"name":"Rex","categoryId":2}]`)
		case "/v1/pets/1":
			w.WriteHeader(404)
			fmt.Fprint(w, big)
		default:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(500)
			fmt.Fprint(w, "<html>oops</html>")
		}
	})
	c, err := NewClient(testKey, WithBaseURL(srv.URL+"/v1"), WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	reuse := new(connReuse)
	for i := 0; i < 20; i++ {
		for _, call := range []struct {
			name string
			do   func(ctx context.Context) error
			want func(error) bool
		}{
			{"ListPets", func(ctx context.Context) error { _, err := c.ListPets(ctx, ListPetsParams{}); return err },
				func(err error) bool { return err == nil }},
			{"GetPet(1)", func(ctx context.Context) error { _, err := c.GetPet(ctx, 1); return err },
				func(err error) bool { return errors.Is(err, ErrNotFound) }},
			{"GetPet(2)", func(ctx context.Context) error { _, err := c.GetPet(ctx, 2); return err },
				func(err error) bool { return errors.As(err, new(*APIError)) }},
		} {
			ctx, done := reuse.call(context.Background())
			err := call.do(ctx)
			done()
			if !call.want(err) {
				t.Fatalf("%s: unexpected error %v", call.name, err)
			}
		}
	}
	got := reuse.take()
	got.check(t, "60 sequential calls")
	// One after the other, each call finds the connection of the one
	// before in the pool, unless net/http dropped it: then it dials one
	// (none after the last call).
	if n := conns.Load(); n < int64(max(1, got.netDrops)) || n > int64(1+got.netDrops) {
		t.Errorf("60 sequential calls opened %d connections; want 1, and 1 more per connection net/http dropped (%d) but the last", n, got.netDrops)
	}
}

// TestConcurrentUseSharesConnections runs 64 goroutines on one Client with
// the default transport. A first round holds all 64 requests at the server
// at once, so the pool gets exactly one connection per goroutine (without
// that, net/http may dial a few spares while connections are handed over).
// Then 64 goroutines x 20 calls must return every connection to the pool
// after its response, which must keep it: no churn, without error responses
// and with them (401, 404, 400, 429 with and without retries, 503 and an
// HTML 500 retried, a refused redirect). So no new connection is opened,
// unless net/http dropped one itself on a loaded machine (netHTTPWriteWait):
// the pool is then one short, and net/http dials.
func TestConcurrentUseSharesConnections(t *testing.T) {
	// Not parallel, nor its subtests: it counts dials through the shared transport, whose idle pool, bounded across hosts, other tests fill.
	const goroutines, calls = 64, 20
	pet := `{"id":1,"name":"Rex","categoryId":2}`
	type call struct {
		do         func(ctx context.Context, c *Client) error
		wantStatus int // of the *APIError the call must fail with; 0: success
	}
	list := func(p ListPetsParams, want int) call {
		return call{func(ctx context.Context, c *Client) error { _, err := c.ListPets(ctx, p); return err }, want}
	}
	get := func(id int64, want int) call {
		return call{func(ctx context.Context, c *Client) error { _, err := c.GetPet(ctx, id); return err }, want}
	}
	create := func(name string, want int) call {
		return call{func(ctx context.Context, c *Client) error {
			_, err := c.CreatePet(ctx, NewPet{Name: name, CategoryID: 2})
			return err
		}, want}
	}
	for _, tc := range []struct {
		name  string
		calls []call
	}{
		{"without error responses", []call{list(ListPetsParams{Limit: 10}, 0), get(1, 0), create("Rex", 0)}},
		{"with error responses", []call{
			list(ListPetsParams{Limit: 10}, 0),
			list(ListPetsParams{Status: PetStatusSold}, 401),    // JSON Error body
			list(ListPetsParams{Status: PetStatusPending}, 503), // retried, then given up
			list(ListPetsParams{Limit: 13}, 500),                // HTML page, retried
			get(404, 404),                                       // JSON Error body
			get(302, 302),                                       // a redirect to another origin, refused
			get(429, 429),                                       // Retry-After over the max: not retried
			create("Rex", 0),
			create("rate-limited", 429), // POST retried on 429
			create("bad", 400),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The first requests, one per goroutine, are held at the server
			// until all have arrived: the pool then holds one connection
			// per goroutine, without the spare ones net/http may dial when
			// connections are handed over during a warm-up (a dial race).
			var arrived sync.WaitGroup
			arrived.Add(goroutines)
			var held atomic.Int64
			srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
				if held.Add(1) <= goroutines {
					arrived.Done()
					arrived.Wait()
				}
				errorBody := func(status int) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(status)
					fmt.Fprintf(w, `{"code":"c%d","message":"m","status":%d}`, status, status)
				}
				q := r.URL.Query()
				switch {
				case r.Method == http.MethodPost:
					var p NewPet
					json.NewDecoder(r.Body).Decode(&p)
					switch p.Name {
					case "rate-limited":
						errorBody(429)
					case "bad":
						errorBody(400)
					default:
						w.WriteHeader(201)
						fmt.Fprint(w, pet)
					}
				case q.Get("status") == "sold":
					errorBody(401)
				case q.Get("status") == "pending":
					errorBody(503)
				case q.Get("limit") == "13":
					w.Header().Set("Content-Type", "text/html")
					w.WriteHeader(500)
					fmt.Fprint(w, "<html><body>"+strings.Repeat("oops ", 2000)+"</body></html>")
				case r.URL.Path == "/v1/pets/404":
					errorBody(404)
				case r.URL.Path == "/v1/pets/302":
					http.Redirect(w, r, "https://elsewhere.test/v1/pets/302", http.StatusFound)
				case r.URL.Path == "/v1/pets/429":
					w.Header().Set("Retry-After", "3600")
					errorBody(429)
				case r.URL.Path == "/v1/pets/1":
					fmt.Fprint(w, pet)
				default:
					fmt.Fprint(w, "["+pet+"]")
				}
			})
			c, err := NewClient(testKey, WithBaseURL(srv.URL+"/v1"), WithRetryWait(time.Millisecond, time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			reuse := new(connReuse)
			run := func(calls int) {
				var wg sync.WaitGroup
				errs := make(chan error, goroutines*calls)
				for g := 0; g < goroutines; g++ {
					wg.Add(1)
					go func(g int) {
						defer wg.Done()
						for i := 0; i < calls; i++ {
							call := tc.calls[(g+i)%len(tc.calls)]
							ctx, done := reuse.call(context.Background())
							err := call.do(ctx, c)
							done()
							var apiErr *APIError
							switch {
							case call.wantStatus == 0 && err != nil:
								errs <- err
							case call.wantStatus != 0 && (!errors.As(err, &apiErr) || apiErr.Status != call.wantStatus):
								errs <- fmt.Errorf("error %v; want an *APIError with Status %d", err, call.wantStatus)
							}
						}
					}(g)
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Error(err)
				}
			}
			run(1)
			afterWarmUp := conns.Load()
			warmUp := reuse.take()
			warmUp.check(t, "warm-up")
			if afterWarmUp != goroutines && warmUp.netDrops == 0 {
				t.Errorf("warm-up with %d requests in flight opened %d connections; want %d", goroutines, afterWarmUp, goroutines)
			}
			run(calls)
			steady := reuse.take()
			steady.check(t, fmt.Sprintf("%d goroutines x %d calls", goroutines, calls))
			if n := conns.Load(); n != afterWarmUp && steady.netDrops == 0 {
				t.Errorf("%d goroutines x %d calls opened %d new connections; want 0", goroutines, calls, n-afterWarmUp)
			}
			t.Logf("%d goroutines, %d requests: %d connections", goroutines, held.Load(), conns.Load())
		})
	}
}

// TestStaleKeepAliveConnectionIsResent: over HTTP/1.1, a request that meets
// a kept-alive connection the server has closed (its write fails, nothing of
// it written) is sent again by net/http on a new connection, within the
// attempt, a GET and a POST alike: the server cannot have processed it.
func TestStaleKeepAliveConnectionIsResent(t *testing.T) {
	t.Parallel()
	var gets, posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			posts.Add(1)
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"id":1,"name":"Rex","categoryId":1}`)
			return
		}
		gets.Add(1)
		fmt.Fprint(w, `[]`)
	}))
	t.Cleanup(srv.Close)
	// Every connection's second request fails to write, as on a
	// connection the server closed while it was idle.
	tr := staleTransport(t)
	c, err := NewClient(testKey, WithBaseURL(srv.URL+"/v1"), WithHTTPClient(&http.Client{Transport: tr}), WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 3 {
		if _, err := c.ListPets(ctx, ListPetsParams{}); err != nil {
			t.Fatalf("ListPets %d: %v", i+1, err)
		}
		if _, err := c.CreatePet(ctx, NewPet{Name: "Rex", CategoryID: 1}); err != nil {
			t.Fatalf("CreatePet %d: %v", i+1, err)
		}
	}
	if gets.Load() != 3 || posts.Load() != 3 {
		t.Errorf("the server got %d GETs and %d POSTs; want 3 and 3", gets.Load(), posts.Load())
	}
}

// staleTransport returns a transport whose connections are staleAfterOne.
func staleTransport(t *testing.T) *http.Transport {
	t.Helper()
	tr := &http.Transport{DialContext: dialWrapped(func(c net.Conn) net.Conn { return &staleAfterOne{Conn: c} })}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// dialWrapped returns a DialContext that dials as net.Dialer does and hands
// back wrap of the connection.
func dialWrapped(wrap func(net.Conn) net.Conn) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return wrap(c), nil
	}
}

// staleAfterOne is a connection whose writes fail, with nothing written,
// once it has carried one request: once a response has begun to arrive.
type staleAfterOne struct {
	net.Conn
	answered atomic.Bool
}

func (c *staleAfterOne) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.answered.Store(true)
	}
	return n, err
}

func (c *staleAfterOne) Write(p []byte) (int, error) {
	if c.answered.Load() {
		return 0, &net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}
	}
	return c.Conn.Write(p)
}

// TestStaleKeepAliveWithoutGetBodyIsResent: as
// TestStaleKeepAliveConnectionIsResent, where the request carries no GetBody
// (over HTTPS, whose connection may turn out to be HTTP/2, and through a
// RoundTripper that is not an *http.Transport): a CreatePet that meets a
// kept-alive HTTP/1.1 connection whose write fails, nothing written, is sent
// again at once (API.md: "an HTTP/1.1 kept-alive connection the server had
// already closed, before any byte of a POST").
func TestStaleKeepAliveWithoutGetBodyIsResent(t *testing.T) {
	t.Parallel()
	var posts atomic.Int64
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id":1,"name":"Rex","categoryId":1}`)
	})
	tlsSrv := httptest.NewTLSServer(handler) // HTTP/1.1 only: no h2 offered
	t.Cleanup(tlsSrv.Close)
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	tests := []struct {
		name string
		srv  *httptest.Server
		wrap bool // through a RoundTripper around the *http.Transport
	}{
		{"HTTPS, HTTP/1.1", tlsSrv, false},
		{"HTTPS, HTTP/1.1, another RoundTripper", tlsSrv, true},
		{"http://, another RoundTripper", srv, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var conns []*staleWhenTold
			tr := &http.Transport{DialContext: dialWrapped(func(c net.Conn) net.Conn {
				s := &staleWhenTold{Conn: c}
				mu.Lock()
				conns = append(conns, s)
				mu.Unlock()
				return s
			})}
			if tc.srv == tlsSrv {
				tr.TLSClientConfig = tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
			}
			t.Cleanup(tr.CloseIdleConnections)
			var rt http.RoundTripper = tr
			if tc.wrap {
				rt = roundTripFunc(tr.RoundTrip)
			}
			c, err := NewClient(testKey, WithBaseURL(tc.srv.URL+"/v1"), WithHTTPClient(&http.Client{Transport: rt}), WithMaxRetries(0))
			if err != nil {
				t.Fatal(err)
			}
			posts.Store(0)
			if _, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1}); err != nil {
				t.Fatalf("CreatePet 1: %v", err)
			}
			mu.Lock()
			for _, s := range conns {
				s.stale.Store(true) // the kept-alive connection is now stale
			}
			mu.Unlock()
			if _, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1}); err != nil {
				t.Errorf("CreatePet 2 on a stale connection: %v; want it sent again on a new one", err)
			}
			if got := posts.Load(); got != 2 {
				t.Errorf("the server got %d POSTs; want 2", got)
			}
		})
	}
}

// staleWhenTold is a connection whose writes fail, with nothing written,
// once stale is set.
type staleWhenTold struct {
	net.Conn
	stale atomic.Bool
}

func (c *staleWhenTold) Write(p []byte) (int, error) {
	if c.stale.Load() {
		return 0, &net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}
	}
	return c.Conn.Write(p)
}

// TestTwoStaleConnectionsPOSTIsRetried: a CreatePet whose two sends within
// one attempt met kept-alive connections the server had closed (nothing of
// either written, the body never read) has created nothing: it is sent a
// third time, after a pause of about a second, and the call succeeds.
func TestTwoStaleConnectionsPOSTIsRetried(t *testing.T) {
	t.Parallel()
	var posts atomic.Int64
	both := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if posts.Add(1) == 2 {
			once.Do(func() { close(both) })
		}
		<-both // the warm-up's two calls hold two connections at once
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id":1,"name":"Rex","categoryId":1}`)
	}))
	t.Cleanup(srv.Close)
	tr := staleTransport(t)
	c, err := NewClient(testKey, WithBaseURL(srv.URL+"/v1"), WithHTTPClient(&http.Client{Transport: tr}),
		WithRetryWait(time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1}); err != nil {
				t.Errorf("warm-up CreatePet: %v", err)
			}
		}()
	}
	wg.Wait()
	// Two idle connections, both stale.
	if _, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1}); err != nil {
		t.Errorf("CreatePet after two stale connections: %v; want it retried (nothing was created)", err)
	}
	if got := posts.Load(); got != 3 {
		t.Errorf("the server got %d POSTs; want 3", got)
	}
}

// TestPOSTAfterProcessingOverHTTP1: over HTTP/1.1, a server that reads a
// CreatePet request whole, stores the animal and closes the connection
// without an answer gets one POST, and the call's error matches
// ErrOutcomeUnknown; a GET it treats the same way is sent at most twice per
// attempt.
func TestPOSTAfterProcessingOverHTTP1(t *testing.T) {
	t.Parallel()
	var n h2Counts
	srv := httptest.NewServer(n.handler(func(w http.ResponseWriter, _ h2fault.Control) {
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			c.Close()
		}
	}))
	t.Cleanup(srv.Close)
	own := &http.Transport{}
	t.Cleanup(own.CloseIdleConnections)
	for name, extra := range map[string][]Option{"default transport": nil, "caller's transport": {WithHTTPClient(&http.Client{Transport: own})}} {
		n.requests.Store(0)
		n.stored.Store(0)
		c, err := NewClient(testKey, append([]Option{WithBaseURL(srv.URL + "/v1"), WithRetryWait(time.Millisecond, 2*time.Millisecond)}, extra...)...)
		if err != nil {
			t.Fatal(err)
		}
		pet, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1})
		t.Logf("%s:", name)
		checkOutcomeUnknown(t, &n, pet, err, false)

		n.requests.Store(0)
		if _, err := c.ListPets(context.Background(), ListPetsParams{}); err == nil || errors.Is(err, ErrOutcomeUnknown) {
			t.Errorf("%s: ListPets: %v; want a transport error", name, err)
		}
		if got := n.requests.Load(); got < 3 || got > 6 {
			t.Errorf("%s: the server got %d requests for 3 attempts; want 3..6", name, got)
		}
	}
}
