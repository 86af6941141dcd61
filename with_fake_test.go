package petstore_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

// TestWithNoRetryCreatePet: c.With(WithMaxRetries(0)).CreatePet against a
// fake answering 429 makes one request; c itself still retries.
func TestWithNoRetryCreatePet(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewServer()
	defer srv.Close()
	srv.InjectFault(petstoretest.Fault{Operation: "CreatePet", Count: 100, Status: http.StatusTooManyRequests})
	c, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL), petstore.WithRetryWait(time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	once, err := c.With(petstore.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, step := range []struct {
		name string
		c    *petstore.Client
		want int // requests the server has got in all
	}{
		{"c.With(WithMaxRetries(0))", once, 1},
		{"c", c, 4}, // the default: 2 retries
	} {
		_, err := step.c.CreatePet(ctx, petstore.NewPet{Name: "Rex", CategoryID: 1})
		if !errors.Is(err, petstore.ErrRateLimited) || !petstore.Retryable(err) {
			t.Errorf("%s: CreatePet: %v; want a retryable ErrRateLimited", step.name, err)
		}
		if got := srv.Requests(); got != step.want {
			t.Errorf("%s: the server has got %d requests; want %d", step.name, got, step.want)
		}
	}
}

// TestWithSharesConnections: the Clients With makes from c send through
// c's connection pool, over one HTTP/2 connection the server counts, with
// the shared transport and with a WithHTTPClient client; a Client of its
// own transport is counted as a second connection, which shows the count
// sees one.
func TestWithSharesConnections(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		opts      func(srv *petstoretest.Server) []petstore.Option
		wantConns int64
	}{
		{"shared transport", func(*petstoretest.Server) []petstore.Option { return nil }, 1},
		{"WithHTTPClient", func(srv *petstoretest.Server) []petstore.Option {
			return []petstore.Option{petstore.WithHTTPClient(srv.Client())}
		}, 1},
		{"control: a second Client with a transport of its own", func(srv *petstoretest.Server) []petstore.Option {
			return []petstore.Option{petstore.WithHTTPClient(&http.Client{Transport: srv.Client().Transport.(*http.Transport).Clone()})}
		}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var conns atomic.Int64
			srv := petstoretest.NewUnstartedServer()
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.StartTLS()
			defer srv.Close()
			opts := tc.opts(srv)
			c, err := petstore.NewClient(srv.APIKey, append([]petstore.Option{petstore.WithBaseURL(srv.URL)}, opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			// Not on the shared transport: there, CloseIdleConnections would
			// close every idle connection, those of the parallel tests that
			// count theirs (TestConnectionsAreReused, the sibling subtest);
			// srv.Close ends this test's, and TestMain the rest.
			if opts != nil {
				defer c.CloseIdleConnections()
			}
			clients := []*petstore.Client{c}
			for _, opt := range []petstore.Option{
				petstore.WithMaxRetries(0),
				petstore.WithObserver(func(context.Context, petstore.Attempt) {}),
				petstore.WithTimeout(time.Minute),
				petstore.WithUserAgent("other/1"),
				petstore.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
			} {
				n, err := c.With(opt)
				if err != nil {
					t.Fatal(err)
				}
				clients = append(clients, n)
			}
			if tc.wantConns == 2 { // the control: a Client of its own, on the shared transport
				other, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL))
				if err != nil {
					t.Fatal(err)
				}
				clients = append(clients, other)
			}
			for _, cl := range clients {
				if _, err := cl.ListPets(context.Background(), petstore.ListPetsParams{}); err != nil {
					t.Fatal(err)
				}
			}
			if got := conns.Load(); got != tc.wantConns {
				t.Errorf("the server accepted %d connections; want %d", got, tc.wantConns)
			}
		})
	}
}
