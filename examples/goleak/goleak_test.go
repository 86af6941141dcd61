// This test package is one a user of the SDK writes, with
// go.uber.org/goleak: the two patterns the README shows, which close the
// SDK's idle connections before goleak looks, and the one that fails,
// because deferred calls run before cleanups.
//
//	go test ./examples/goleak
package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
	"go.uber.org/goleak"
)

// TestMain is the first pattern: goleak.VerifyTestMain looks once every
// test, cleanups included, has run, so a t.Cleanup(c.CloseIdleConnections)
// has closed the pool by then.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// start starts a fake and returns it with a client of it; the caller closes
// both, in the order under test.
func start(t *testing.T) (*petstoretest.Server, *petstore.Client) {
	t.Helper()
	srv := petstoretest.NewServer()
	c, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL))
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	return srv, c
}

// listOnce makes one call through c, which leaves a kept-alive connection,
// and its two goroutines, in the SDK's pool.
func listOnce(t *testing.T, c *petstore.Client) {
	t.Helper()
	if _, err := c.ListPets(context.Background(), petstore.ListPetsParams{}); err != nil {
		t.Fatal(err)
	}
}

// TestCleanupOrder is the second pattern: goleak.VerifyNone registered as
// the first cleanup, so that it runs last, after the fake's Close and the
// client's CloseIdleConnections.
func TestCleanupOrder(t *testing.T) {
	t.Cleanup(func() {
		settle()
		goleak.VerifyNone(t)
	})
	srv, c := start(t)
	t.Cleanup(srv.Close)
	t.Cleanup(c.CloseIdleConnections)
	listOnce(t, c)
}

// TestDeferOrder is the same with defers alone: they run last first.
func TestDeferOrder(t *testing.T) {
	defer func() {
		settle()
		goleak.VerifyNone(t)
	}()
	srv, c := start(t)
	defer srv.Close()
	defer c.CloseIdleConnections()
	listOnce(t, c)
}

// TestDeferBeforeCleanupFails: "defer goleak.VerifyNone(t)" with
// "t.Cleanup(c.CloseIdleConnections)" reports the pool's connection as a
// leak (net/http's persistConn.readLoop and writeLoop), because the
// deferred call runs before the cleanup. The leak is real when goleak
// looks, so it is found whatever the machine's speed.
func TestDeferBeforeCleanupFails(t *testing.T) {
	var report recorder
	func() {
		// What the failing test does, with a recorder in place of its t.
		defer goleak.VerifyNone(&report)
		srv, c := start(t)
		t.Cleanup(srv.Close)
		t.Cleanup(c.CloseIdleConnections)
		listOnce(t, c)
	}()
	if report.text == "" {
		t.Error("goleak.VerifyNone deferred before the cleanups found no leak; want the pool's connection")
	}
	t.Logf("goleak reported: %.300s", report.text)
}

// recorder is a goleak.TestingT that keeps what goleak reports.
type recorder struct{ text string }

func (r *recorder) Error(args ...any) { r.text += fmt.Sprint(args...) }

// settle waits, for at most 10s, until goleak finds no goroutine: one that
// a closed connection leaves may not have run yet on a loaded machine, and
// goleak alone retries for about half a second. A user's test does not
// need it; this repository's CI, on a busy machine, does. A true leak (the
// pool's connection, idle for 90s) stays, and goleak.VerifyNone reports it.
func settle() {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if goleak.Find() == nil {
			return
		}
	}
}
