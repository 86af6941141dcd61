package check

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// maxCapture bounds the copy of a body a capture keeps: the SDK reads no
// more of a 2xx body (10 MiB).
const maxCapture = 10 << 20

// capture is the http.RoundTripper under a Run's client. It rewrites each
// request with rewrite, if set (to send what the SDK refuses to: a limit of
// 101, no key, a body without a name), and keeps what the last attempt
// received, for what the SDK does not show: the status of a 2xx, the
// headers, the body as it came. The SDK still reads, bounds, retries and
// redacts as it does for any transport.
type capture struct {
	base    http.RoundTripper
	rewrite func(*http.Request) *http.Request

	mu sync.Mutex
	x  *exchange // the last attempt's; nil before the first
}

// exchange is one attempt as a capture saw it.
type exchange struct {
	request string      // method and path with query, as sent
	token   string      // the bearer token sent: the key, never shown
	status  int         // 0 when no response arrived
	header  http.Header // the response's
	body    []byte      // the start of the response body, up to maxCapture
	whole   bool        // body is all of it: the read reached its end
}

// success reports whether a 2xx arrived whole.
func (x exchange) success() bool { return x.status >= 200 && x.status <= 299 && x.whole }

// last returns a copy of what the last attempt received.
func (c *capture) last() exchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.x == nil {
		return exchange{}
	}
	return *c.x
}

// RoundTrip rewrites req, sends it through c.base and keeps what comes back.
func (c *capture) RoundTrip(req *http.Request) (*http.Response, error) {
	token, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if c.rewrite != nil {
		req = c.rewrite(req)
	}
	x := &exchange{request: req.Method + " " + req.URL.RequestURI(), token: token}
	c.mu.Lock()
	c.x = x
	c.mu.Unlock()
	resp, err := c.base.RoundTrip(req)
	if err != nil || resp == nil {
		return resp, err
	}
	c.mu.Lock()
	x.status, x.header = resp.StatusCode, resp.Header.Clone()
	c.mu.Unlock()
	if resp.Body != nil {
		resp.Body = &tee{ReadCloser: resp.Body, c: c, x: x}
	}
	return resp, nil
}

// tee copies what the SDK reads of a body into its exchange.
type tee struct {
	io.ReadCloser
	c *capture
	x *exchange
}

func (t *tee) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.x.body = append(t.x.body, p[:min(n, maxCapture-len(t.x.body))]...)
	if err == io.EOF && len(t.x.body) < maxCapture {
		t.x.whole = true
	}
	return n, err
}

// withoutKey is a rewrite: the request without its Authorization header.
func withoutKey(req *http.Request) *http.Request {
	r := req.Clone(req.Context())
	r.Header.Del("Authorization")
	return r
}

// withLimit returns a rewrite that sets the query's limit to n.
func withLimit(n int) func(*http.Request) *http.Request {
	return func(req *http.Request) *http.Request {
		r := req.Clone(req.Context())
		q := r.URL.Query()
		q.Set("limit", strconv.Itoa(n))
		r.URL.RawQuery = q.Encode()
		return r
	}
}

// withBody returns a rewrite that sends b as the request body. Its GetBody
// asks the SDK's first (which refuses to send a POST again once it may have
// reached the server) before it hands out b again.
func withBody(b []byte) func(*http.Request) *http.Request {
	return func(req *http.Request) *http.Request {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper closes the body it was given
		}
		r := req.Clone(req.Context())
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		r.GetBody = func() (io.ReadCloser, error) {
			if req.GetBody != nil {
				rc, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				rc.Close()
			}
			return io.NopCloser(bytes.NewReader(b)), nil
		}
		return r
	}
}
