package petstore

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petstore/petstore-go/internal/h2fault"
	"golang.org/x/net/http2"
)

// Tests of the SDK over HTTP/2 with TLS, the protocol production speaks,
// against internal/h2fault's server, which can send what net/http's own
// server never does: a RST_STREAM or a GOAWAY at any point of a request.
// Each client is the SDK's default (the shared transport, which trusts the
// test certificate, see TestMain), unless a test passes its own.

// h2Counts counts what an h2fault.Server's handler saw: requests it read whole
// (a POST's body included) and the animals it stored.
type h2Counts struct {
	requests atomic.Int64
	stored   atomic.Int64
}

// resettingHandler reads each request whole, stores a POST's animal, and
// then ends the stream as end says, answering nothing.
func (n *h2Counts) handler(end func(w http.ResponseWriter, c h2fault.Control)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		n.requests.Add(1)
		if r.Method == http.MethodPost {
			n.stored.Add(1)
		}
		end(w, w.(h2fault.Control))
	})
}

// sdkClients are the clients each HTTP/2 test runs with: the SDK's default,
// and a caller's HTTP/2-capable transport through WithHTTPClient.
func sdkClients(t *testing.T, base string, opts ...Option) map[string]*Client {
	t.Helper()
	own := &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: testTLSConfig()} // trusts the test certificate
	t.Cleanup(own.CloseIdleConnections)
	clients := map[string]*Client{}
	for name, extra := range map[string][]Option{
		"default transport":     nil,
		"caller's h2 transport": {WithHTTPClient(&http.Client{Transport: own})},
	} {
		c, err := NewClient(testKey, append(append([]Option{WithBaseURL(base + "/v1"), WithRetryWait(time.Millisecond, 2*time.Millisecond)}, opts...), extra...)...)
		if err != nil {
			t.Fatal(err)
		}
		clients[name] = c
	}
	return clients
}

// TestPOSTIsNeverSentTwiceOverHTTP2: a server that reads a CreatePet
// request whole, stores the animal and then resets the stream (as a proxy
// does when its upstream's answer is malformed), or sends a GOAWAY that
// excludes it, gets one POST, and the call fails with an error that says
// so, not an *APIError: net/http's HTTP/2 client would resend it on a new
// connection at once.
func TestPOSTIsNeverSentTwiceOverHTTP2(t *testing.T) {
	t.Parallel()
	ends := map[string]func(w http.ResponseWriter, c h2fault.Control){
		"RST_STREAM(PROTOCOL_ERROR) after the request": func(_ http.ResponseWriter, c h2fault.Control) { c.ResetStream(http2.ErrCodeProtocol) },
		"GOAWAY excluding the stream after the request": func(_ http.ResponseWriter, c h2fault.Control) {
			c.GoAway(c.StreamID()-2, http2.ErrCodeNo)
		},
	}
	for name, end := range ends {
		for client := range map[string]bool{"default transport": true, "caller's h2 transport": true} {
			t.Run(name+", "+client, func(t *testing.T) {
				t.Parallel()
				var n h2Counts
				srv := h2fault.NewServer(t, n.handler(end))
				c := sdkClients(t, srv.URL)[client]
				pet, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1})
				if got := n.stored.Load(); got != 1 {
					t.Errorf("the server stored %d animals; want 1", got)
				}
				var apiErr *APIError
				if pet != nil || err == nil || errors.As(err, &apiErr) {
					t.Errorf("CreatePet = %v, %v; want no pet and an error that is not *APIError", pet, err)
				}
				t.Logf("CreatePet: %v", err)
			})
		}
	}
}

// TestNoStormOverHTTP2: a server that resets every stream, or answers every
// request with a GOAWAY, gets at most two requests per attempt (net/http's
// one allowed resend), not hundreds per second on as many new connections.
func TestNoStormOverHTTP2(t *testing.T) {
	t.Parallel()
	ends := map[string]func(w http.ResponseWriter, c h2fault.Control){
		"every stream reset (PROTOCOL_ERROR)": func(_ http.ResponseWriter, c h2fault.Control) { c.ResetStream(http2.ErrCodeProtocol) },
		"every request a GOAWAY":              func(_ http.ResponseWriter, c h2fault.Control) { c.GoAway(c.StreamID()-2, http2.ErrCodeNo) },
	}
	for name, end := range ends {
		for _, retries := range []int{0, 2} {
			for client := range map[string]bool{"default transport": true, "caller's h2 transport": true} {
				t.Run(name+", "+client+", retries "+strconv.Itoa(retries), func(t *testing.T) {
					t.Parallel()
					var n h2Counts
					srv := h2fault.NewServer(t, n.handler(end))
					c := sdkClients(t, srv.URL, WithMaxRetries(retries))[client]
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound for a broken build, never reached
					defer cancel()
					pets, err := c.ListPets(ctx, ListPetsParams{})
					attempts := int64(retries + 1)
					if got := n.requests.Load(); got > 2*attempts || got < attempts {
						t.Errorf("the server got %d requests for %d attempts; want %d..%d", got, attempts, attempts, 2*attempts)
					}
					// A bound against a storm (thousands of connections),
					// not an exact count: an attempt uses at most two, but
					// on a loaded machine one run in about twenty saw one
					// more, which net/http dialled and no request used.
					if got := srv.Conns(); got > 2*attempts+1 {
						t.Errorf("%d connections for %d attempts; want at most %d", got, attempts, 2*attempts+1)
					}
					if pets != nil || err == nil || errors.Is(err, context.DeadlineExceeded) {
						t.Errorf("ListPets = %v, %v; want a transport error before the deadline", pets, err)
					}
					t.Logf("%d requests on %d connections; ListPets: %v", n.requests.Load(), srv.Conns(), err)
				})
			}
		}
	}
}
