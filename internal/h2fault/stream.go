package h2fault

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2Stream is one request stream, and the ResponseWriter of its handler.
type h2Stream struct {
	c      *h2Conn
	id     uint32
	cancel context.CancelCauseFunc
	body   h2Body

	remoteClosed atomic.Bool // END_STREAM or RST_STREAM received
	stopped      atomic.Bool // the response is abandoned: writes send nothing

	// Under c.wmu:
	ended bool // END_STREAM or RST_STREAM sent

	// Of the handler's goroutine:
	hdr         http.Header
	wroteHeader bool
}

var (
	_ http.ResponseWriter = (*h2Stream)(nil)
	_ http.Flusher        = (*h2Stream)(nil)
	_ Control             = (*h2Stream)(nil)
)

// run runs the handler, then ends the stream: the response, if the handler
// sent none, then END_STREAM, and RST_STREAM(NO_ERROR) if the client is
// still sending the request body (as net/http's server does). A panic of
// http.ErrAbortHandler resets the stream with INTERNAL_ERROR.
func (st *h2Stream) run(req *http.Request) {
	c := st.c
	defer c.srv.wg.Done()
	defer func() {
		st.cancel(errHandlerDone)
		c.mu.Lock()
		delete(c.streams, st.id)
		closeNow := c.goingAway && !c.closing && len(c.streams) == 0
		c.closing = c.closing || closeNow
		c.mu.Unlock()
		if closeNow {
			c.closeGracefully()
		}
	}()
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			st.ResetStream(http2.ErrCodeInternal)
		}
	}()
	c.srv.handler.ServeHTTP(st, req)
	if !st.wroteHeader {
		st.writeHeaders(http.StatusOK, true)
		return
	}
	c.write(func() error {
		if st.ended || st.stopped.Load() {
			return nil
		}
		st.ended = true
		if err := c.fr.WriteData(st.id, true, nil); err != nil {
			return err
		}
		if !st.remoteClosed.Load() {
			return c.fr.WriteRSTStream(st.id, http2.ErrCodeNo)
		}
		return nil
	})
}

// Header is the response's header, sent by WriteHeader.
func (st *h2Stream) Header() http.Header { return st.hdr }

// WriteHeader sends the response's HEADERS, with :status code (any number;
// 1xx are sent as informational responses), and the header fields, in
// lower case, but those HTTP/2 forbids. Later calls do nothing.
func (st *h2Stream) WriteHeader(code int) {
	if st.wroteHeader {
		return
	}
	if code >= 100 && code < 200 {
		st.writeHeaders(code, false)
		return
	}
	st.wroteHeader = true
	st.writeHeaders(code, false)
}

// writeHeaders sends a HEADERS frame (and CONTINUATION frames if the block
// is larger than the client's max frame size), with END_STREAM if end.
func (st *h2Stream) writeHeaders(code int, end bool) {
	st.wroteHeader = st.wroteHeader || end
	keys := make([]string, 0, len(st.hdr))
	for k := range st.hdr {
		switch strings.ToLower(k) {
		case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	c := st.c
	c.write(func() error {
		if st.ended || st.stopped.Load() {
			return nil
		}
		c.hbuf.Reset()
		c.henc.WriteField(hpack.HeaderField{Name: ":status", Value: strconv.Itoa(code)})
		for _, k := range keys {
			for _, v := range st.hdr[k] {
				c.henc.WriteField(hpack.HeaderField{Name: strings.ToLower(k), Value: v})
			}
		}
		block := c.hbuf.Bytes()
		max := int(c.maxFrame)
		first := block
		if len(first) > max {
			first = first[:max]
		}
		block = block[len(first):]
		if end {
			st.ended = true
		}
		if err := c.fr.WriteHeaders(http2.HeadersFrameParam{
			StreamID: st.id, BlockFragment: first, EndStream: end, EndHeaders: len(block) == 0,
		}); err != nil {
			return err
		}
		for len(block) > 0 {
			frag := block
			if len(frag) > max {
				frag = frag[:max]
			}
			block = block[len(frag):]
			if err := c.fr.WriteContinuation(st.id, len(block) == 0, frag); err != nil {
				return err
			}
		}
		if end && !st.remoteClosed.Load() {
			return c.fr.WriteRSTStream(st.id, http2.ErrCodeNo)
		}
		return nil
	})
}

// errH2Stopped is the error of a write on a stream whose response is
// abandoned (reset by either side, excluded by a GOAWAY, connection gone).
var errH2Stopped = errors.New("h2fault: stream closed: nothing sent")

// Write sends p in DATA frames of at most the client's max frame size,
// after the HEADERS (status 200) if WriteHeader was not called. It sends
// nothing and returns an error once the stream is reset, abandoned by a
// GOAWAY, or its connection is gone.
func (st *h2Stream) Write(p []byte) (int, error) {
	if !st.wroteHeader {
		st.WriteHeader(http.StatusOK)
	}
	c := st.c
	n := 0
	for len(p) > 0 {
		err := c.write(func() error {
			if st.ended || st.stopped.Load() {
				return errH2Stopped
			}
			chunk := p
			if len(chunk) > int(c.maxFrame) {
				chunk = chunk[:c.maxFrame]
			}
			if err := c.fr.WriteData(st.id, false, chunk); err != nil {
				return err
			}
			n += len(chunk)
			p = p[len(chunk):]
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Flush sends the HEADERS if they are not sent yet; frames are written to
// the connection as they are made, so nothing else waits.
func (st *h2Stream) Flush() {
	if !st.wroteHeader {
		st.WriteHeader(http.StatusOK)
	}
}

// StreamID implements Control.
func (st *h2Stream) StreamID() uint32 { return st.id }

// ResetStream implements Control.
func (st *h2Stream) ResetStream(code http2.ErrCode) {
	c := st.c
	c.write(func() error {
		if st.ended {
			return nil
		}
		st.ended = true
		return c.fr.WriteRSTStream(st.id, code)
	})
	st.stopped.Store(true)
	st.body.closeWithError(errResetByServer)
	st.cancel(errResetByServer)
}

// GoAway implements Control.
func (st *h2Stream) GoAway(lastStreamID uint32, code http2.ErrCode) {
	if lastStreamID >= 1<<31 {
		lastStreamID = 0
	}
	c := st.c
	c.wmu.Lock()
	c.mu.Lock()
	lastStreamID = max(lastStreamID, c.acted) // never exclude a stream that has acted
	if c.goingAway {
		lastStreamID = min(lastStreamID, c.goAwayLast) // a later GOAWAY never raises it
	}
	c.writeLocked(func() error { return c.fr.WriteGoAway(lastStreamID, code, nil) })
	if !c.goingAway || lastStreamID < c.goAwayLast {
		c.goAwayLast = lastStreamID
	}
	c.goingAway = true
	for id, s := range c.streams {
		if id > c.goAwayLast {
			s.stopped.Store(true)
		}
	}
	closeNow := !c.closing && len(c.streams) == 0 // called after the handler returned
	c.closing = c.closing || closeNow
	c.mu.Unlock()
	c.wmu.Unlock()
	if closeNow {
		c.closeGracefully()
	}
}

// Act implements Control.
func (st *h2Stream) Act(f func()) bool {
	c := st.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.goingAway && st.id > c.goAwayLast {
		return false
	}
	c.acted = max(c.acted, st.id)
	f()
	return true
}

// Excluded implements Control.
func (st *h2Stream) Excluded() bool {
	c := st.c
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.goingAway && st.id > c.goAwayLast
}

// Ping implements Control.
func (st *h2Stream) Ping() {
	st.c.write(func() error { return st.c.fr.WritePing(false, [8]byte{'h', '2', 'f', 'a', 'u', 'l', 't'}) })
}

// CloseConn implements Control.
func (st *h2Stream) CloseConn() {
	c := st.c
	c.dead.Store(true)
	if tcp, ok := c.raw.(*net.TCPConn); ok {
		tcp.SetLinger(0)
	}
	c.raw.Close()
}

// String describes the stream, for test logs.
func (st *h2Stream) String() string {
	return fmt.Sprintf("h2 stream %d of %s", st.id, st.c.raw.RemoteAddr())
}
