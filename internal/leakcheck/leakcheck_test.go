package leakcheck

import (
	"strings"
	"testing"
)

// TestFind: a goroutine blocked for good is found, and once it ends, none
// is. No t.Parallel: find sees every goroutine of the process, and wait is
// shortened for this test only.
func TestFind(t *testing.T) {
	long := wait
	defer func() { wait = long }()
	wait = 0 // a blocked goroutine stays blocked: one look is enough to find it
	release := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		<-release
	}()
	err := find()
	if err == nil || !strings.Contains(err.Error(), "leakcheck.TestFind") {
		t.Errorf("find() with a goroutine blocked = %v, want an error naming its function", err)
	}
	close(release)
	<-ended
	wait = long // the goroutine has ended, but its exit may not be done yet
	if err := find(); err != nil {
		t.Errorf("find() after the goroutine ended: %v", err)
	}
}
