package errbody

import "testing"

// TestDecodeAllocs checks that decoding an Error body allocates its two
// strings and nothing else. Not parallel: testing.AllocsPerRun counts every
// goroutine's allocations.
func TestDecodeAllocs(t *testing.T) {
	body := []byte(`{"code":"not_found","message":"pet 7 not found","status":404}`)
	if n := testing.AllocsPerRun(10, func() { _, _ = Decode(body, false) }); n > 2 {
		t.Errorf("Decode: %v allocations; want at most 2", n)
	}
}
