package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Limits of what an attempt reads of a response body.
const (
	MaxSuccessBody = 10 << 20 // a larger 2xx body is an error (ErrBodyTooLarge)
	MaxErrorBody   = 64 << 10 // of any other body, the rest is dropped
)

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

// ErrBodyTooLarge is a 2xx body over MaxSuccessBody; the retry policy does
// not retry it.
var ErrBodyTooLarge = fmt.Errorf("response body exceeds %d MiB", MaxSuccessBody>>20)

// maxFirstBuffer bounds the buffer a Content-Length makes bufferBody start
// with: beyond it, the buffer grows with the bytes that arrive, so that a
// server that promises 10 MiB and sends nothing costs next to nothing.
const maxFirstBuffer = 32 << 10

// errBadRead is a Read that said it read more than it was given, or less
// than nothing.
var errBadRead = errors.New("response body: Read returned an impossible count")

// maxEmptyReads is how many Reads in a row may return no byte and no error
// before readAll gives up with io.ErrNoProgress, as bufio does.
const maxEmptyReads = 100

// readAll is io.ReadAll(io.LimitReader(r, max)) with a first buffer of size
// bytes: with an exact Content-Length, the body is read with one allocation.
// A reader that returns no byte and no error maxEmptyReads times in a row
// ends it with io.ErrNoProgress rather than a spin.
func readAll(r io.Reader, size, max int64) ([]byte, error) {
	b := make([]byte, 0, size)
	empty := 0
	for {
		if int64(len(b)) >= max {
			return b, nil // as io.LimitReader(r, max) would end
		}
		p := b[len(b):cap(b)]
		if rest := max - int64(len(b)); int64(len(p)) > rest {
			p = p[:rest]
		}
		n, err := r.Read(p)
		if n < 0 || n > len(p) {
			return b, errBadRead // io.ReadAll would panic
		}
		b = b[:len(b)+n]
		switch {
		case err == io.EOF:
			return b, nil
		case err != nil:
			return b, err
		case n > 0:
			empty = 0
		default:
			if empty++; empty >= maxEmptyReads {
				return b, io.ErrNoProgress
			}
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// NewBody returns the GetBody of a request whose body is data, which
// nothing may write to: each call returns a new reader over it. RoundTrip
// sends a request with a GetBody and no Body with a body from GetBody, made
// afresh for each attempt.
func NewBody(data []byte) func() (io.ReadCloser, error) {
	// A *bytes.Reader, which net/http knows to be in memory: it writes
	// such a body with the headers, where it flushes the headers of any
	// other first, in a write of their own.
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
}
