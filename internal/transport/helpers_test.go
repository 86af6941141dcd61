package transport

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// rawServer is a loopback server that hands each connection, once the
// request head has been read, to answer. answer may block: the server
// closes the connections when the test ends.
func rawServer(t *testing.T, answer func(c net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns := make(chan net.Conn, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns <- c
			go serveRaw(c, answer)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		close(conns)
		for c := range conns {
			c.Close()
		}
	})
	return "http://" + l.Addr().String()
}

// serveRaw reads one request head from c and lets answer write the rest.
func serveRaw(c net.Conn, answer func(c net.Conn)) {
	if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
		c.Close()
		return
	}
	answer(c)
}

// stall returns an answer that writes head and then says nothing more,
// until the connection is closed.
func stall(head string) func(net.Conn) {
	return func(c net.Conn) {
		io.WriteString(c, head)
		io.Copy(io.Discard, c) // until the client or the test closes it
	}
}

// headersArrived sends through http.DefaultTransport and signals arrived
// once a response's head has arrived: its body is read next.
func headersArrived(arrived chan<- struct{}) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err == nil {
			arrived <- struct{}{}
		}
		return resp, err
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// blockingBody is a response body that hands out prefix and then blocks
// until it is closed, as a RoundTripper that ignores the context might.
type blockingBody struct {
	prefix  *strings.Reader
	reading chan<- struct{} // signalled when a Read blocks
	closed  chan struct{}
	once    sync.Once
}

func (b *blockingBody) Read(p []byte) (int, error) {
	if b.prefix.Len() > 0 {
		return b.prefix.Read(p)
	}
	b.reading <- struct{}{}
	<-b.closed
	return 0, errors.New("read on closed body")
}

func (b *blockingBody) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}

// blockingTransport answers every request with status and a blockingBody.
func blockingTransport(status int, prefix string, reading chan<- struct{}) http.RoundTripper {
	return roundTripFunc(func(*http.Request) (*http.Response, error) {
		body := &blockingBody{prefix: strings.NewReader(prefix), reading: reading, closed: make(chan struct{})}
		return &http.Response{StatusCode: status, Header: http.Header{}, Body: body, ContentLength: -1}, nil
	})
}

// canned answers every request with status and body, whose Content-Length
// is contentLength (-1: unknown), and then err.
func canned(status int, body string, contentLength int64, err error) http.RoundTripper {
	return roundTripFunc(func(*http.Request) (*http.Response, error) {
		r := io.MultiReader(strings.NewReader(body), errReader{err})
		return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(r), ContentLength: contentLength}, nil
	})
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) {
	if r.err == nil {
		return 0, io.EOF
	}
	return 0, r.err
}
