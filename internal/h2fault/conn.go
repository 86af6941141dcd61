package h2fault

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2Conn is one connection of a Server.
type h2Conn struct {
	srv *Server
	raw net.Conn
	tc  *tls.Conn       // nil on an unencrypted server
	nc  net.Conn        // what the frames go over: tc, or raw
	ctx context.Context // ends with the connection; parent of the streams'
	fr  *http2.Framer

	dead atomic.Bool // the connection is closed or broken: nothing is sent

	// wmu serializes every frame written, and guards what follows.
	wmu      sync.Mutex
	henc     *hpack.Encoder
	hbuf     bytes.Buffer
	maxFrame uint32 // the client's SETTINGS_MAX_FRAME_SIZE

	// mu guards what follows.
	mu         sync.Mutex
	streams    map[uint32]*h2Stream // streams whose handler runs
	goingAway  bool                 // a GOAWAY was sent
	goAwayLast uint32               // the lowest last stream id sent in a GOAWAY
	acted      uint32               // the highest stream id whose handler has acted (see Act)
	closing    bool                 // the close after a GOAWAY has begun
}

// kill closes the connection at once; its read loop then ends it.
func (c *h2Conn) kill() {
	c.dead.Store(true)
	c.raw.Close()
}

// serve runs the connection: the TLS handshake, the client's preface, the
// server's SETTINGS, then the frames the client sends, until it ends.
func (c *h2Conn) serve() {
	defer c.srv.wg.Done()
	ctx, cancel := context.WithCancelCause(c.srv.ctx)
	c.ctx = ctx
	defer func() {
		c.kill()
		cancel(errConnClosed)
		c.mu.Lock()
		for _, st := range c.streams {
			st.stopped.Store(true)
			st.body.closeWithError(errConnClosed)
		}
		c.mu.Unlock()
		c.srv.mu.Lock()
		delete(c.srv.open, c)
		c.srv.mu.Unlock()
	}()

	c.nc = c.raw
	if !c.srv.plain {
		c.tc = tls.Server(c.raw, c.srv.tlsConf)
		if err := c.tc.HandshakeContext(ctx); err != nil {
			return
		}
		if c.tc.ConnectionState().NegotiatedProtocol != "h2" {
			return
		}
		c.nc = c.tc
	}
	br := bufio.NewReader(c.nc)
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(br, preface); err != nil || string(preface) != http2.ClientPreface {
		return
	}
	c.fr = http2.NewFramer(c.nc, br)
	c.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil) // the connection's one decoder
	c.henc = hpack.NewEncoder(&c.hbuf)
	if err := c.write(func() error {
		return c.fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 1000})
	}); err != nil {
		return
	}
	c.readLoop()
}

// write runs f, which writes frames, under wmu unless the connection is
// dead; an error of f other than errH2Stopped (a write to the connection
// failed) kills the connection.
func (c *h2Conn) write(f func() error) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.writeLocked(f)
}

func (c *h2Conn) writeLocked(f func() error) error {
	if c.dead.Load() {
		return errConnClosed
	}
	err := f()
	if err != nil && err != errH2Stopped { // a write to the connection failed
		c.kill()
	}
	return err
}

// readLoop reads the client's frames until the connection ends.
func (c *h2Conn) readLoop() {
	var maxStreamID uint32
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			var se http2.StreamError
			if errors.As(err, &se) {
				c.write(func() error { return c.fr.WriteRSTStream(se.StreamID, se.Code) })
				continue
			}
			var ce http2.ConnectionError
			if errors.As(err, &ce) {
				c.write(func() error { return c.fr.WriteGoAway(maxStreamID, http2.ErrCode(ce), nil) })
			}
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if f.IsAck() {
				continue
			}
			c.write(func() error {
				f.ForeachSetting(func(s http2.Setting) error {
					switch s.ID {
					case http2.SettingMaxFrameSize:
						c.maxFrame = s.Val
					case http2.SettingHeaderTableSize:
						c.henc.SetMaxDynamicTableSizeLimit(s.Val)
					}
					return nil
				})
				return c.fr.WriteSettingsAck()
			})
		case *http2.PingFrame:
			if !f.IsAck() {
				c.write(func() error { return c.fr.WritePing(true, f.Data) })
			}
		case *http2.MetaHeadersFrame:
			id := f.StreamID
			if id <= maxStreamID { // trailers: only their END_STREAM counts
				if st := c.stream(id); st != nil && f.StreamEnded() {
					st.remoteClosed.Store(true)
					st.body.closeWithError(io.EOF)
				}
				continue
			}
			maxStreamID = id
			c.srv.streams.Add(1)
			c.startStream(f)
		case *http2.DataFrame:
			id := f.StreamID
			st := c.stream(id)
			if st != nil {
				st.body.write(f.Data()) // copies
				if f.StreamEnded() {
					st.remoteClosed.Store(true)
					st.body.closeWithError(io.EOF)
				}
			}
			if n := f.Length; n > 0 {
				c.write(func() error {
					if err := c.fr.WriteWindowUpdate(0, n); err != nil {
						return err
					}
					if st != nil && !f.StreamEnded() && !st.ended && !st.stopped.Load() {
						return c.fr.WriteWindowUpdate(id, n)
					}
					return nil
				})
			}
		case *http2.RSTStreamFrame:
			if st := c.stream(f.StreamID); st != nil {
				err := resetByClient{f.ErrCode}
				st.stopped.Store(true)
				st.remoteClosed.Store(true)
				st.body.closeWithError(err)
				st.cancel(err)
			}
		}
		// WINDOW_UPDATE (the client's receive windows are ignored), GOAWAY
		// (the client closes the connection next), PRIORITY and unknown
		// frames: nothing to do.
	}
}

// stream is the stream id whose handler runs, or nil.
func (c *h2Conn) stream(id uint32) *h2Stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams[id]
}

// startStream makes the request of a new stream and runs the handler on it,
// unless a GOAWAY excludes the stream.
func (c *h2Conn) startStream(f *http2.MetaHeadersFrame) {
	id := f.StreamID
	ctx, cancel := context.WithCancelCause(c.ctx)
	st := &h2Stream{c: c, id: id, cancel: cancel, hdr: http.Header{}}
	st.body.cond.L = &st.body.mu

	req := &http.Request{
		Method:     f.PseudoValue("method"),
		Proto:      "HTTP/2.0",
		ProtoMajor: 2,
		Header:     http.Header{},
		Host:       f.PseudoValue("authority"),
		RequestURI: f.PseudoValue("path"),
		RemoteAddr: c.raw.RemoteAddr().String(),
	}
	if c.tc != nil {
		state := c.tc.ConnectionState()
		req.TLS = &state
	}
	for _, hf := range f.RegularFields() {
		req.Header.Add(hf.Name, hf.Value)
	}
	if cookies := req.Header.Values("Cookie"); len(cookies) > 1 {
		req.Header.Set("Cookie", strings.Join(cookies, "; "))
	}
	if req.Host == "" {
		req.Host = req.Header.Get("Host")
	}
	u, err := url.ParseRequestURI(req.RequestURI)
	if err != nil {
		u = &url.URL{Path: req.RequestURI}
	}
	req.URL = u
	if f.StreamEnded() {
		st.remoteClosed.Store(true)
		req.ContentLength = 0
		req.Body = http.NoBody
	} else {
		req.ContentLength = -1
		if n, err := strconv.ParseInt(req.Header.Get("Content-Length"), 10, 64); err == nil && n >= 0 {
			req.ContentLength = n
		}
		req.Body = &st.body
	}
	req = req.WithContext(ctx)

	c.mu.Lock()
	if c.goingAway && id > c.goAwayLast {
		c.mu.Unlock()
		cancel(errGoneAway)
		return
	}
	c.streams[id] = st
	c.srv.wg.Add(1)
	c.mu.Unlock()
	go st.run(req)
}

// closeGracefully closes the connection after the frames sent: a TLS
// close_notify (over TLS), then FIN.
func (c *h2Conn) closeGracefully() {
	c.wmu.Lock()
	c.dead.Store(true)
	c.nc.Close()
	c.wmu.Unlock()
}
