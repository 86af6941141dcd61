//go:build go1.24

package petstore

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go/internal/transport"
)

// Tests of the shared transport's HTTP/2 health pings (Go 1.24 and later:
// http.HTTP2Config), through a proxy that black-holes the connection a
// call made: it stops forwarding in both directions and closes nothing, as
// a load balancer that fails over or a NAT that forgets a connection does.
// The waits are the ping times themselves (seconds): each case waits on
// what it needs (the client closing the dead connection, the call ending),
// with liveness bounds far above the values, so a loaded machine only makes
// them slower.

// blackHole is a loopback TCP proxy to one address. drop makes every
// connection it has then stop forwarding: what either side sends is read
// and thrown away, and nothing is closed, so a client learns of it only by
// its own means. Connections made after a drop are forwarded as usual.
type blackHole struct {
	ln     net.Listener
	to     string
	conns  atomic.Int64  // client connections accepted
	closed chan struct{} // closed when a client closes a dropped connection

	mu      sync.Mutex
	dropped []*atomic.Bool // per connection: stop forwarding
	all     []net.Conn
	once    sync.Once
}

func newBlackHole(t *testing.T, to string) *blackHole {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &blackHole{ln: ln, to: to, closed: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); p.accept(&wg) }()
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		for _, c := range p.all {
			c.Close()
		}
		p.mu.Unlock()
		wg.Wait()
	})
	return p
}

func (p *blackHole) accept(wg *sync.WaitGroup) {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.to)
		if err != nil {
			client.Close()
			continue
		}
		p.conns.Add(1)
		drop := new(atomic.Bool)
		p.mu.Lock()
		p.dropped = append(p.dropped, drop)
		p.all = append(p.all, client, server)
		p.mu.Unlock()
		wg.Add(2)
		go func() { defer wg.Done(); p.forward(server, client, drop, true) }()
		go func() { defer wg.Done(); p.forward(client, server, drop, false) }()
	}
}

// forward copies src to dst until src ends, or throws it away once drop is
// set. When the client (fromClient) ends a dropped connection, closed is
// closed; then both sides are.
func (p *blackHole) forward(dst, src net.Conn, drop *atomic.Bool, fromClient bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !drop.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				err = werr
			}
		}
		if err != nil {
			if fromClient && drop.Load() && err == io.EOF {
				p.once.Do(func() { close(p.closed) })
			}
			src.Close()
			dst.Close()
			return
		}
	}
}

// drop black-holes every connection the proxy has now.
func (p *blackHole) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range p.dropped {
		d.Store(true)
	}
}

// healthServer is an HTTP/2 server over TLS (trusted by the shared
// transport, see TestMain) that answers ListPets and CreatePet, counting
// the animals it stores and the requests that did not come over HTTP/2,
// behind a blackHole.
type healthServer struct {
	stored, notH2 atomic.Int64
	proxy         *blackHole
}

func newHealthServer(t *testing.T) *healthServer {
	t.Helper()
	s := &healthServer{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.ProtoMajor != 2 {
			s.notH2.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			id := s.stored.Add(1)
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id":`+strconv.FormatInt(id, 10)+`,"name":"Rex","categoryId":1}`)
			return
		}
		io.WriteString(w, onePet)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	s.proxy = newBlackHole(t, srv.Listener.Addr().String())
	return s
}

// client returns a Client of the shared transport that calls s through
// its proxy, after one ListPets that leaves an idle HTTP/2 connection in
// the pool.
func (s *healthServer) client(t *testing.T, opts ...Option) *Client {
	t.Helper()
	c, err := NewClient(testKey, append([]Option{WithBaseURL("https://" + s.proxy.ln.Addr().String() + "/v1")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListPets(context.Background(), ListPetsParams{}); err != nil {
		t.Fatalf("ListPets before the drop: %v", err)
	}
	if n := s.notH2.Load(); n > 0 {
		t.Fatalf("%d requests came over HTTP/1, want HTTP/2", n)
	}
	return c
}

// pingBound is how long after a drop the shared transport must have closed
// the dead connection: both ping times, and a margin for a loaded machine
// (a guard against a hang, not a timing expectation).
const pingBound = transport.PingAfter + transport.PingWait + 20*time.Second

// TestSilentlyDroppedConnection: after a black hole swallows the idle
// HTTP/2 connection of a client of the shared transport,
//   - a CreatePet sent once the pings have found the connection dead and
//     closed it goes on a new connection, succeeds and stores one animal;
//   - a ListPets sent right after the drop succeeds within 25 s (the ping
//     times and a retry), with the default options and with a 10 s attempt
//     limit (shorter than both ping times: an attempt ends by its limit, and
//     the next, on the same dead connection, by the pings), not after three
//     attempts' time limits.
//
// The cases run side by side, each with its own server and proxy, on
// goroutines of one test rather than as parallel subtests: they spend their
// time waiting, and should not hold -parallel's slots (GOMAXPROCS) from the
// package's other tests for it.
func TestSilentlyDroppedConnection(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the HTTP/2 ping times (about 15 s)")
	}
	t.Parallel()
	const within = 25 * time.Second
	cases := []struct {
		name string
		opts []Option
		call func(t named, s *healthServer, c *Client)
	}{
		{"CreatePet after the pings", nil, createAfterPings},
		{"ListPets at once, default options", nil, listAtOnce(within)},
		{"ListPets at once, WithTimeout 10s", []Option{WithTimeout(10 * time.Second)}, listAtOnce(within)},
	}
	var wg sync.WaitGroup
	for _, tc := range cases {
		s := newHealthServer(t)
		c := s.client(t, tc.opts...)
		s.proxy.drop()
		wg.Add(1)
		go func() {
			defer wg.Done()
			tc.call(named{t, tc.name}, s, c)
		}()
	}
	wg.Wait()
}

// named reports for a case of a test that runs on a goroutine of its own
// (so Errorf, never Fatalf), its messages starting with the case's name.
type named struct {
	t    *testing.T
	name string
}

func (n named) Errorf(format string, args ...any) {
	n.t.Helper()
	n.t.Errorf(n.name+": "+format, args...)
}

func (n named) Logf(format string, args ...any) {
	n.t.Helper()
	n.t.Logf(n.name+": "+format, args...)
}

// createAfterPings waits until the client has closed the dropped
// connection, then creates an animal.
func createAfterPings(t named, s *healthServer, c *Client) {
	start := time.Now()
	select {
	case <-s.proxy.closed:
		t.Logf("the dead connection was closed %v after the drop", time.Since(start).Round(time.Millisecond))
	case <-time.After(pingBound):
		t.Errorf("the black-holed connection is still open %v after the drop: no HTTP/2 health pings?", pingBound)
		return
	}
	pet, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1})
	if err != nil {
		t.Errorf("CreatePet after the dead connection was closed: %v", err)
		return
	}
	if got := s.stored.Load(); got != 1 || pet.ID != 1 {
		t.Errorf("the server stored %d animals (CreatePet returned id %d), want 1 (id 1)", got, pet.ID)
	}
	if got := s.proxy.conns.Load(); got != 2 {
		t.Errorf("%d connections, want 2 (the dropped one and a new one)", got)
	}
}

// listAtOnce returns a case that lists the animals right after the drop
// and wants it to succeed within limit.
func listAtOnce(limit time.Duration) func(t named, s *healthServer, c *Client) {
	return func(t named, s *healthServer, c *Client) {
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		start := time.Now()
		_, err := c.ListPets(ctx, ListPetsParams{})
		took := time.Since(start).Round(time.Millisecond)
		if err != nil {
			t.Errorf("ListPets right after the drop: %v after %v, want success within %v", err, took, limit)
			return
		}
		t.Logf("ListPets succeeded %v after the drop, on connection %d", took, s.proxy.conns.Load())
	}
}

// TestPingsOnlyOnTheSharedTransport: the shared transport has the health
// check's values; a WithHTTPClient transport is left as its caller made it,
// before and after a call through it.
func TestPingsOnlyOnTheSharedTransport(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, onePet)
	}))
	t.Cleanup(srv.Close)
	own := &http.Transport{}
	t.Cleanup(own.CloseIdleConnections)
	c, err := NewClient(testKey, WithBaseURL(srv.URL+"/v1"), WithHTTPClient(&http.Client{Transport: own}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListPets(context.Background(), ListPetsParams{}); err != nil {
		t.Fatal(err)
	}
	type pings struct{ SendPingTimeout, PingTimeout time.Duration }
	get := func(tr *http.Transport) *pings {
		if tr.HTTP2 == nil {
			return nil
		}
		return &pings{tr.HTTP2.SendPingTimeout, tr.HTTP2.PingTimeout}
	}
	for _, tc := range []struct {
		name string
		tr   *http.Transport
		want *pings
	}{
		{"shared transport", transport.Shared(), &pings{transport.PingAfter, transport.PingWait}},
		{"WithHTTPClient's transport", own, nil},
	} {
		if diff := cmp.Diff(tc.want, get(tc.tr)); diff != "" {
			t.Errorf("%s: HTTP2 health settings (-want +got):\n%s", tc.name, diff)
		}
	}
}
