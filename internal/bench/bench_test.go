package bench

import (
	"context"
	"net/http/httptest"
	"testing"
)

// BenchmarkClient measures one call of each operation with each client,
// over an in-process transport that returns canned responses (only the
// client's work counts) and over loopback HTTP. Each client's result is
// checked first, so that a broken client cannot win.
//
// Names are Client/transport=X/op=Y/client=Z, for benchstat -col /client.
func BenchmarkClient(b *testing.B) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		transport string
		clients   []string
	}{{"inproc", Clients}, {"loopback", LoopbackClients}} {
		transport := tc.transport
		for _, op := range Ops {
			for _, name := range tc.clients {
				b.Run("transport="+transport+"/op="+op+"/client="+name, func(b *testing.B) {
					var c *Client
					var err error
					if transport == "inproc" {
						c, err = InProcess(name)
					} else {
						c, err = Loopback(name, srv.URL)
					}
					if err != nil {
						b.Fatal(err)
					}
					call := c.Call[op]
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						if err := call(ctx); err != nil {
							b.Fatal(err)
						}
					}
					b.StopTimer()
					if err := c.Check(ctx, op); err != nil {
						b.Fatal(err)
					}
				})
			}
		}
	}
}

// TestClients checks every client on every operation, in process and over
// loopback.
func TestClients(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	for _, name := range Clients {
		if _, err := InProcess(name); err != nil {
			t.Error(err)
		}
	}
	for _, name := range LoopbackClients {
		if _, err := Loopback(name, srv.URL); err != nil {
			t.Error(err)
		}
	}
}

// TestConcurrentCalls makes every operation of every client from 64
// goroutines at once over loopback, as cmd/callgrind -g 64 does, and then
// checks the client's result: under -race it finds any state that the
// goroutines' calls share (the floor's map of bodies was, and crashed the
// run with concurrent map writes).
func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	ctx := context.Background()
	for _, name := range LoopbackClients {
		t.Run(name, func(t *testing.T) {
			c, err := Loopback(name, srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			cs := c.Split(64)
			for _, op := range Ops {
				if err := Run(ctx, cs, op, 2*len(cs)); err != nil {
					t.Errorf("%s %s from %d goroutines: %v", name, op, len(cs), err)
				}
				if err := c.Check(ctx, op); err != nil {
					t.Error(err)
				}
			}
		})
	}
}
