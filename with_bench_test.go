package petstore

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
)

// TestWithCost: c.With(WithMaxRetries(0)) and c.With(WithObserver(f)) cost
// at most 3 allocations and 1 KiB, the options included. Not parallel:
// testing.AllocsPerRun and runtime.MemStats count every goroutine's.
func TestWithCost(t *testing.T) {
	c, _ := newTestClient(t)
	f := func(context.Context, Attempt) {}
	for name, with := range withCases(c, f) {
		allocs := testing.AllocsPerRun(100, with)
		var before, after runtime.MemStats
		const runs = 1000
		runtime.ReadMemStats(&before)
		for range runs {
			with()
		}
		runtime.ReadMemStats(&after)
		bytes := (after.TotalAlloc - before.TotalAlloc) / runs
		t.Logf("%s: %v allocations, %d bytes", name, allocs, bytes)
		if allocs > 3 || bytes > 1024 {
			t.Errorf("%s: %v allocations, %d bytes; want at most 3 and 1024", name, allocs, bytes)
		}
	}
}

var sink atomic.Pointer[Client]

// withCases are the calls of With that TestWithCost and BenchmarkWith
// measure.
func withCases(c *Client, f func(context.Context, Attempt)) map[string]func() {
	return map[string]func(){
		"With(WithMaxRetries(0))": func() { n, _ := c.With(WithMaxRetries(0)); sink.Store(n) },
		"With(WithObserver(f))":   func() { n, _ := c.With(WithObserver(f)); sink.Store(n) },
	}
}

// BenchmarkWith measures a Client for one call:
//
//	go test -run '^$' -bench 'BenchmarkWith$' -benchmem .
func BenchmarkWith(b *testing.B) {
	c, err := NewClient(testKey, WithBaseURL(testBase))
	if err != nil {
		b.Fatal(err)
	}
	for name, with := range withCases(c, func(context.Context, Attempt) {}) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				with()
			}
		})
	}
}
