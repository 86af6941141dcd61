package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Limits of what an attempt reads of a response body.
const (
	MaxSuccessBody = 10 << 20 // a larger 2xx body is an error (ErrBodyTooLarge)
	MaxErrorBody   = 64 << 10 // of any other body, the rest is dropped
)

// ErrBodyTooLarge is a 2xx body over MaxSuccessBody (not retried).
var ErrBodyTooLarge = fmt.Errorf("response body exceeds %d MiB", MaxSuccessBody>>20)

// maxFirstBuffer bounds read's first buffer: a server that promises 10 MiB
// in Content-Length and sends nothing costs next to nothing.
const maxFirstBuffer = 32 << 10

// read reads and closes resp's body: a 2xx up to MaxSuccessBody, whole or
// an error; any other up to MaxErrorBody (the rest dropped), keeping what
// arrived, with cut saying what cut it short. Should the attempt's context
// end first, the read ends with its error (see readApart).
func (a *attempt) read(resp *http.Response) (body []byte, cut, err error) {
	if resp.Body == nil {
		return nil, nil, nil
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
	if a.bounded && resp.StatusCode != http.StatusSwitchingProtocols {
		// net/http ends the read, and Close at once, when the request's
		// context ends (not a 101's: it hands over the connection).
		body, err = readAll(resp.Body, size, limit+1)
		resp.Body.Close()
	} else {
		body, err = a.readApart(resp.Body, size, limit+1)
	}
	if err != nil {
		if ctxErr := a.ctx.Err(); ctxErr != nil {
			return nil, nil, ctxErr
		}
		if success {
			return nil, nil, err
		}
	}
	if int64(len(body)) > limit {
		if success {
			return nil, nil, ErrBodyTooLarge
		}
		body = body[:limit]
	}
	return body, err, nil
}

// readApart reads body as readAll does, and closes it, in a goroutine of its
// own: another RoundTripper's body, or a 101's, may block in Read whatever
// the context says, and Close wait for that Read or drain without end. When
// the attempt's context ends first, context.AfterFunc closes the body, and
// the read and close are left behind, as is the close of a body read to max.
func (a *attempt) readApart(body io.ReadCloser, size, max int64) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	closed := make(chan struct{})
	stop := context.AfterFunc(a.ctx, func() { body.Close() })
	go func() {
		defer close(closed)
		data, err := readAll(body, size, max)
		done <- result{data, err}
		if stop() {
			body.Close()
		}
	}()
	select {
	case r := <-done:
		if int64(len(r.data)) >= max { // the rest is not wanted: Close may drain it without end
			return r.data, r.err
		}
		select {
		case <-closed:
		case <-a.ctx.Done(): // a Close that blocks
		}
		return r.data, r.err
	case <-a.ctx.Done():
		return nil, a.ctx.Err()
	}
}

var errBadRead = errors.New("response body: Read returned an impossible count")

const maxEmptyReads = 100 // Reads in a row of no byte and no error end readAll (bufio's rule)

// readAll is io.ReadAll(io.LimitReader(r, max)) with a first buffer of size
// bytes (an exact Content-Length: one allocation), which ends with
// io.ErrNoProgress after maxEmptyReads empty Reads rather than spin.
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
