package main

import (
	"context"
	"strings"
	"testing"

	"github.com/petstore/petstore-go"
	"go.uber.org/goleak"
)

// TestCloseIdleConnections: a test against the fake in another process, as
// a user's would run, leaves the SDK's pooled keep-alive connection behind
// (goleak finds net/http's readLoop and writeLoop), until
// Client.CloseIdleConnections closes it; then goleak finds nothing. Not
// parallel: goleak looks at every goroutine of the process, and a
// sequential test runs alone.
func TestCloseIdleConnections(t *testing.T) {
	f := startFake(t, build(t, false), "-addr", "127.0.0.1:0")
	base, key := f.exports(t)
	before := goleak.IgnoreCurrent() // the test's own: those that copy the program's output
	c := newSDKClient(t, base, key)  // the shared transport, as a user's client has it
	if _, err := c.ListPets(context.Background(), petstore.ListPetsParams{}); err != nil {
		t.Fatalf("ListPets: %v", err)
	}
	if err := goleak.Find(before); err == nil || !strings.Contains(err.Error(), "persistConn") {
		t.Fatalf("before CloseIdleConnections, goleak.Find = %v; want the pooled connection's goroutines", err)
	}
	c.CloseIdleConnections()
	// The connection's goroutines end once they see it closed; a loaded
	// machine may take a while to run them. Each Find retries for about
	// half a second; 20 of them bound the wait, as a liveness guard.
	var err error
	for range 20 {
		if err = goleak.Find(before); err == nil {
			return
		}
	}
	t.Errorf("after CloseIdleConnections: %v", err)
}
