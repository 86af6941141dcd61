package h2fault

import (
	"bytes"
	"sync"
)

// h2Body is a request body: the stream's DATA, buffered without limit as
// the read loop delivers it (it never waits on a handler), until io.EOF at
// END_STREAM or the error that ended the stream.
type h2Body struct {
	mu     sync.Mutex
	cond   sync.Cond
	buf    bytes.Buffer
	err    error // io.EOF, or why the stream ended; set once
	closed bool  // Close was called: data is discarded
}

// Read reads the body, waiting for DATA.
func (b *h2Body) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.buf.Len() == 0 && b.err == nil && !b.closed {
		b.cond.Wait()
	}
	switch {
	case b.closed:
		return 0, errBodyClosed
	case b.buf.Len() > 0:
		return b.buf.Read(p)
	default:
		return 0, b.err
	}
}

// Close discards the body, what is buffered and what is still to come.
func (b *h2Body) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.buf.Reset()
	b.cond.Broadcast()
	return nil
}

func (b *h2Body) write(p []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil && !b.closed {
		b.buf.Write(p)
		b.cond.Broadcast()
	}
}

func (b *h2Body) closeWithError(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil {
		b.err = err
		b.cond.Broadcast()
	}
}
