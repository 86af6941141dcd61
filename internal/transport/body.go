package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/petstore/petstore-go/internal/retry"
)

// Limits of what an attempt reads of a response body.
const (
	MaxSuccessBody = 10 << 20 // a larger 2xx body is an error (ErrBodyTooLarge)
	MaxErrorBody   = 64 << 10 // of any other body, the rest is dropped
)

// guard ends one attempt when its time runs out or the call's context ends:
// it cancels the attempt's context (so that net/http stops dialling or
// waiting) and closes the body being read, whatever the transport does with
// the context. net/http, for one, stops watching it once it hands over the
// body of a 101 Switching Protocols; a RoundTripper may never watch it.
type guard struct {
	cancel context.CancelCauseFunc // of the attempt's context; nil without a timeout
	timer  *time.Timer

	mu      sync.Mutex
	body    io.Closer // the body being read
	ended   bool      // the attempt has ended: a body is closed at once
	expired bool      // its time ran out
}

// errAttemptTimeout is the cause of an attempt's context that ran out of time.
var errAttemptTimeout = errors.New("attempt timed out")

// timeUp runs when the attempt's time runs out. It marks the attempt
// expired before it cancels it, so that whoever sees the cancellation also
// sees why.
func (g *guard) timeUp() {
	g.mu.Lock()
	g.expired = true
	g.mu.Unlock()
	g.cancel(errAttemptTimeout)
	g.end()
}

// end closes the body being read, if any, and any body watched later.
func (g *guard) end() {
	g.mu.Lock()
	body := g.body
	g.body, g.ended = nil, true
	g.mu.Unlock()
	if body != nil {
		body.Close()
	}
}

func (g *guard) timedOut() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.expired
}

// release stops the timer and cancels the attempt's context.
func (g *guard) release() {
	g.timer.Stop()
	g.cancel(context.Canceled)
}

// watch makes body the one to close should the attempt end, and reports
// false if it has ended already.
func (g *guard) watch(body io.Closer) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended {
		return false
	}
	g.body = body
	return true
}

// unwatch takes the body back from the guard: it reports true if the
// caller is to close it, false if the guard has closed it or is closing it.
func (g *guard) unwatch() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	mine := g.body != nil
	g.body = nil
	return mine
}

// err is the error of a read that the attempt's end may have cut short:
// the call's context's, or the attempt's timeout; nil if neither ended.
func (g *guard) err(parent context.Context) error {
	if err := parent.Err(); err != nil {
		return err
	}
	if g.timedOut() {
		return context.DeadlineExceeded
	}
	return nil
}

// bufferedBody is a response body read into memory.
type bufferedBody struct {
	data []byte
	off  int   // of the next Read
	cut  error // the error that cut a non-2xx body short, if any
}

func (b *bufferedBody) Read(p []byte) (int, error) {
	if b.off >= len(b.data) {
		return 0, io.EOF
	}
	n := copy(p, b.data[b.off:])
	b.off += n
	return n, nil
}

func (b *bufferedBody) Close() error { return nil }

// Contents returns what the body of a response from RoundTrip holds,
// without copying it, and, for a non-2xx body cut short, the error that cut
// it. Any other body (RoundTrip returns none) is an error.
func Contents(body io.ReadCloser) ([]byte, error) {
	if b, ok := body.(*bufferedBody); ok {
		return b.data, b.cut
	}
	return nil, errors.New("response body not read by the SDK's transport")
}

// ErrBodyTooLarge is a 2xx body over MaxSuccessBody; it is not retried.
var ErrBodyTooLarge = fmt.Errorf("response body exceeds %d MiB: %w", MaxSuccessBody>>20, retry.ErrNotRetryable)

// maxFirstBuffer bounds the buffer a Content-Length makes bufferBody start
// with: beyond it, the buffer grows with the bytes that arrive, so that a
// server that promises 10 MiB and sends nothing costs next to nothing.
const maxFirstBuffer = 32 << 10

// bufferBody replaces resp.Body by its contents: up to MaxSuccessBody for a
// 2xx (more is an error), up to MaxErrorBody otherwise (the rest is dropped).
// A 2xx body that cannot be read whole is an error; any other response keeps
// what could be read of its body, so that its status is not lost. Should the
// attempt end first (parent, the call's context, ends, or the attempt's time
// runs out), the body is closed and the read ends with the context's error.
// The original body is closed on every path.
func (g *guard) bufferBody(parent context.Context, resp *http.Response) error {
	body := resp.Body
	if !g.watch(body) {
		body.Close()
		return g.err(parent)
	}
	if parent.Done() != nil {
		stop := context.AfterFunc(parent, g.end)
		defer stop()
	}
	success := resp.StatusCode >= 200 && resp.StatusCode <= 299
	limit := int64(MaxErrorBody)
	if success {
		limit = MaxSuccessBody
	}
	size := int64(512)
	if resp.ContentLength >= 0 {
		size = min(resp.ContentLength, limit, maxFirstBuffer) + 1 // +1: room to see EOF
	}
	data, err := readAll(body, size, limit+1)
	if g.unwatch() {
		body.Close()
	}
	if err != nil {
		if ctxErr := g.err(parent); ctxErr != nil {
			return ctxErr
		}
		if success {
			return err
		}
	}
	if int64(len(data)) > limit {
		if limit == MaxSuccessBody {
			return ErrBodyTooLarge
		}
		data = data[:limit]
	}
	resp.Body = &bufferedBody{data: data, cut: err}
	return nil
}

// readAll is io.ReadAll(io.LimitReader(r, max)) with a first buffer of size
// bytes: with an exact Content-Length, the body is read with one allocation.
func readAll(r io.Reader, size, max int64) ([]byte, error) {
	b := make([]byte, 0, size)
	for {
		if int64(len(b)) >= max {
			return b, nil // as io.LimitReader(r, max) would end
		}
		p := b[len(b):cap(b)]
		if rest := max - int64(len(b)); int64(len(p)) > rest {
			p = p[:rest]
		}
		n, err := r.Read(p)
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}
