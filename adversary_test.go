package petstore

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/petstore/petstore-go/internal/h2fault"
	"golang.org/x/net/http2"
)

// Attacks on the first safety promise (issue 27) with servers and
// RoundTrippers the resend matrix does not use: a CreatePet is never stored
// twice; one the server never read succeeds where the evidence reaches the
// SDK; one processed and then failed ends in ErrOutcomeUnknown.

// adversaryWant is what a case of the adversary tests expects.
type adversaryWant struct {
	stored  int64
	success bool // else an error matching ErrOutcomeUnknown
	either  bool // the animal, or an error matching ErrOutcomeUnknown
}

// checkAdversary checks a CreatePet's outcome against want.
func checkAdversary(t *testing.T, want adversaryWant, stored int64, pet *Pet, err error) {
	t.Helper()
	t.Logf("CreatePet = %v, %v; %d stored", pet, err, stored)
	switch {
	case stored != want.stored:
		t.Errorf("the server stored %d animals; want %d (CreatePet = %v, %v)", stored, want.stored, pet, err)
	case want.either && (err == nil) == (pet == nil), want.either && err != nil && !errors.Is(err, ErrOutcomeUnknown):
		t.Errorf("CreatePet = %v, %v; want the animal or an error matching ErrOutcomeUnknown", pet, err)
	case want.either:
	case want.success && (err != nil || pet == nil):
		t.Errorf("CreatePet = %v, %v; want the animal", pet, err)
	case !want.success && (!errors.Is(err, ErrOutcomeUnknown) || pet != nil):
		t.Errorf("CreatePet = %v, %v; want an error matching ErrOutcomeUnknown", pet, err)
	}
	if err != nil && (strings.Contains(err.Error(), "GetBody") || strings.Contains(err.Error(), testKey)) {
		t.Errorf("CreatePet's error %q names GetBody or the key", err)
	}
}

// adversaryTransport is a caller's *http.Transport that trusts the test
// servers, whose dials dial runs (nil: a plain dial).
func adversaryTransport(t *testing.T, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *http.Transport {
	t.Helper()
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	tr := &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: &tls.Config{RootCAs: h2fault.CertPool()}, DialContext: dial}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// createThrough runs a CreatePet through wrap(a caller's *http.Transport)
// to a server of kind that stores and answers every POST; it returns the
// animals stored and what CreatePet returned.
func createThrough(t *testing.T, kind string, wrap func(*http.Transport) http.RoundTripper, opts ...Option) (int64, *Pet, error) {
	t.Helper()
	var stored atomic.Int64
	url := matrixServer(t, kind, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		stored.Add(1)
		created(w)
	})
	c := adversaryClient(t, url, wrap(adversaryTransport(t, nil)), opts...)
	pet, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1})
	return stored.Load(), pet, err
}

// adversaryClient is a Client of the server at url through rt.
func adversaryClient(t *testing.T, url string, rt http.RoundTripper, opts ...Option) *Client {
	t.Helper()
	all := append([]Option{WithBaseURL(url + "/v1"), WithHTTPClient(&http.Client{Transport: rt}),
		WithRetryWait(time.Millisecond, time.Millisecond)}, opts...)
	c, err := NewClient(testKey, all...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAdversaryDialErrorAfterProcessedPOST: a RoundTripper that retries
// (go-retryablehttp's) sends a CreatePet that the server processes, and
// whose connection then drops; its own retries find the server restarting
// (connection refused) and it gives up with the dial's error. The send
// that got a connection may have been processed (Result.Reached), so the
// SDK's retry policy must not send the POST again because the last error
// is a dial error: that stored the animal twice, with a nil error.
func TestAdversaryDialErrorAfterProcessedPOST(t *testing.T) {
	t.Parallel()
	var stored, refuse atomic.Int64
	url := matrixServer(t, overH1, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if stored.Add(1) == 1 {
			refuse.Store(3) // go-retryablehttp's three retries find the server down
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		created(w)
	})
	tr := adversaryTransport(t, func(ctx context.Context, network, addr string) (net.Conn, error) {
		if refuse.Add(-1) >= 0 {
			return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	})
	rc := retryablehttp.NewClient()
	rc.HTTPClient = &http.Client{Transport: tr}
	rc.Logger, rc.RetryMax, rc.RetryWaitMin, rc.RetryWaitMax = nil, 3, time.Millisecond, time.Millisecond
	c := adversaryClient(t, url, &retryablehttp.RoundTripper{Client: rc})
	pet, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1})
	checkAdversary(t, adversaryWant{stored: 1}, stored.Load(), pet, err)
}

// dumpingRT logs each request as httputil.DumpRequestOut(req, true) shows
// it, as many logging RoundTrippers do (Terraform's, say), then sends it.
// DumpRequestOut runs the request through an *http.Transport of its own
// over a fake connection: under the request's context, the SDK's trace
// sees a send that wrote its headers, which it cannot tell from a real one.
// detached dumps a clone under a context of its own instead, out of the
// trace, and sends the request with the dump's copy of the body (the
// documented way: docs/reliability.md).
type dumpingRT struct {
	base     http.RoundTripper
	detached bool
	mu       sync.Mutex
	log      bytes.Buffer
}

func (d *dumpingRT) RoundTrip(req *http.Request) (*http.Response, error) {
	if !d.detached {
		if err := d.dump(req); err != nil {
			return nil, err
		}
		return d.base.RoundTrip(req)
	}
	c := req.Clone(context.Background())
	if err := d.dump(c); err != nil {
		return nil, err
	}
	r := req.Clone(req.Context())
	r.Body = c.Body // the dump read req's body and left c a copy of it
	return d.base.RoundTrip(r)
}

func (d *dumpingRT) dump(req *http.Request) error {
	dump, err := httputil.DumpRequestOut(req, true)
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.log.Write(dump)
	d.mu.Unlock()
	return nil
}

// TestAdversaryDumpingRoundTripper: a CreatePet through a RoundTripper that
// logs with httputil.DumpRequestOut under the request's context fails safe:
// the dump's send, over a fake connection, looks like a first send that
// wrote its headers, so the real one is stopped before it writes anything
// (nothing stored, ErrOutcomeUnknown: the SDK cannot prove otherwise). A
// dump of a clone under a context of its own reaches the server, once.
func TestAdversaryDumpingRoundTripper(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{overH1, overH2} {
		for _, detached := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/detached=%v", kind, detached), func(t *testing.T) {
				t.Parallel()
				stored, pet, err := createThrough(t, kind, func(tr *http.Transport) http.RoundTripper {
					return &dumpingRT{base: tr, detached: detached}
				}, WithMaxRetries(0))
				want := adversaryWant{stored: 0}
				if detached {
					want = adversaryWant{stored: 1, success: true}
				}
				checkAdversary(t, want, stored, pet, err)
			})
		}
	}
}

// lateCopyRT is a hedging RoundTripper in the interleaving where its copy
// gets a connection only after it has returned the first answer (its hedge
// timer fired as the answer came, and the copy's goroutine ran late): here
// the copy goes out as the caller starts reading the first answer's body,
// and the read waits for the copy's answer.
type lateCopyRT struct {
	base http.RoundTripper
}

func (l *lateCopyRT) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil {
		return l.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	send := func() (*http.Response, error) {
		r := req.Clone(req.Context())
		r.Body = io.NopCloser(bytes.NewReader(body))
		return l.base.RoundTrip(r)
	}
	resp, err := send()
	if err != nil {
		return nil, err
	}
	resp.Body = &onFirstRead{ReadCloser: resp.Body, f: func() {
		if r, err := send(); err == nil {
			r.Body.Close()
		}
	}}
	return resp, nil
}

// onFirstRead runs f before the first Read of its body.
type onFirstRead struct {
	io.ReadCloser
	once sync.Once
	f    func()
}

func (o *onFirstRead) Read(p []byte) (int, error) {
	o.once.Do(o.f)
	return o.ReadCloser.Read(p)
}

// TestAdversaryLateHedge: a hedging RoundTripper's copy of a CreatePet that
// gets its connection after the first answer returned is a second send of
// the attempt: it must be stopped before it is written, not ignored (the
// animal was stored twice and the call returned nil).
func TestAdversaryLateHedge(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{overH1, overH2} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			stored, pet, err := createThrough(t, kind, func(tr *http.Transport) http.RoundTripper { return &lateCopyRT{base: tr} }, WithMaxRetries(0))
			checkAdversary(t, adversaryWant{stored: 1, either: true}, stored, pet, err)
		})
	}
}

// rawAnswer is a handler that stores the POST, then writes raw as the
// whole answer on the connection and closes it.
func rawAnswer(stored *atomic.Int64, raw string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		stored.Add(1)
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		buf.WriteString(raw)
		buf.Flush()
		conn.Close()
	}
}

// TestAdversaryServers: a CreatePet the server processed and answered
// in a way the matrix does not use (HTTP/1.1 over TLS).
func TestAdversaryServers(t *testing.T) {
	t.Parallel()
	const pet = `{"id":1,"name":"Rex","categoryId":1}`
	tests := []struct {
		name string
		post func(stored *atomic.Int64) http.HandlerFunc
		opts []Option
		want adversaryWant
	}{
		{"a 201 whose body never comes", func(stored *atomic.Int64) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				stored.Add(1)
				w.Header().Set("Content-Length", "40")
				w.WriteHeader(http.StatusCreated)
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			}
		}, []Option{WithTimeout(2 * time.Second)}, adversaryWant{stored: 1}},
		{"a 201 whose Content-Length is longer than its body", func(stored *atomic.Int64) http.HandlerFunc {
			return rawAnswer(stored, "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"+pet)
		}, nil, adversaryWant{stored: 1}},
		{"a 201 whose Content-Length is shorter than its body", func(stored *atomic.Int64) http.HandlerFunc {
			return rawAnswer(stored, "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n"+pet)
		}, nil, adversaryWant{stored: 1}},
		{"a 201 after 100 Continue and 103 Early Hints", func(stored *atomic.Int64) http.HandlerFunc {
			return rawAnswer(stored, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"+
				"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 36\r\n\r\n"+pet)
		}, nil, adversaryWant{stored: 1, success: true}},
		{"a 201 chunked, cut before its last chunk", func(stored *atomic.Int64) http.HandlerFunc {
			return rawAnswer(stored, "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n24\r\n"+pet+"\r\n")
		}, nil, adversaryWant{stored: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stored atomic.Int64
			url := matrixServer(t, overH1, tc.post(&stored))
			c := adversaryClient(t, url, adversaryTransport(t, nil), tc.opts...)
			pet, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1})
			checkAdversary(t, tc.want, stored.Load(), pet, err)
		})
	}
}

// TestAdversaryRoundTrippers: a CreatePet through a RoundTripper that
// breaks its contract, to a healthy server (HTTP/1.1 over TLS).
func TestAdversaryRoundTrippers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rt   func(base http.RoundTripper) http.RoundTripper
		want adversaryWant
	}{
		{"it returns the answer and an error", func(base http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(req *http.Request) (*http.Response, error) {
				resp, err := base.RoundTrip(req)
				if err != nil {
					return nil, err
				}
				return resp, errors.New("round tripper: something went wrong")
			})
		}, adversaryWant{stored: 1}},
		{"it sends, then returns no answer and no error", func(base http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(req *http.Request) (*http.Response, error) {
				if resp, err := base.RoundTrip(req); err == nil {
					resp.Body.Close()
				}
				return nil, nil
			})
		}, adversaryWant{stored: 1}},
		{"it returns no answer and no error once, without reading the body", func(base http.RoundTripper) http.RoundTripper {
			var once atomic.Bool
			return roundTripFunc(func(req *http.Request) (*http.Response, error) {
				if req.Body != nil && once.CompareAndSwap(false, true) {
					return nil, nil
				}
				return base.RoundTrip(req)
			})
		}, adversaryWant{stored: 1, success: true}},
		{"it reads part of the body, then fails", func(base http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(req *http.Request) (*http.Response, error) {
				if req.Body != nil {
					req.Body.Read(make([]byte, 5))
				}
				return nil, errors.New("round tripper: broken pipe")
			})
		}, adversaryWant{stored: 0}},
		{"it sends, then fails with the request's dump (the key in it)", func(base http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(req *http.Request) (*http.Response, error) {
				dump, _ := httputil.DumpRequest(req, false)
				if resp, err := base.RoundTrip(req); err == nil {
					resp.Body.Close()
				}
				return nil, errors.New("round tripper: lost the answer to " + strings.ToUpper(string(dump)) + string(dump))
			})
		}, adversaryWant{stored: 1}},
		{"it asks for 100-continue", func(base http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(req *http.Request) (*http.Response, error) {
				r := req.Clone(req.Context())
				r.Header.Set("Expect", "100-continue")
				return base.RoundTrip(r)
			})
		}, adversaryWant{stored: 1, success: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stored, pet, err := createThrough(t, overH1, func(tr *http.Transport) http.RoundTripper {
				tr.ExpectContinueTimeout = time.Minute // the server's 100 Continue, never the timer
				return tc.rt(tr)
			})
			checkAdversary(t, tc.want, stored, pet, err)
		})
	}
}

// TestAdversaryGETBound: a RoundTripper that retries a GET ten times by
// itself (go-retryablehttp's), against a server that drops every request:
// the attempt sends it at most seven times.
func TestAdversaryGETBound(t *testing.T) {
	t.Parallel()
	var gets atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gets.Add(1)
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the connections it drops
	srv.StartTLS()
	t.Cleanup(srv.Close)
	url := srv.URL
	rc := retryablehttp.NewClient()
	rc.HTTPClient = &http.Client{Transport: adversaryTransport(t, nil)}
	rc.Logger, rc.RetryMax, rc.RetryWaitMin, rc.RetryWaitMax = nil, 10, time.Millisecond, time.Millisecond
	c := adversaryClient(t, url, &retryablehttp.RoundTripper{Client: rc}, WithMaxRetries(0))
	_, err := c.ListPets(context.Background(), ListPetsParams{})
	if err == nil || gets.Load() > 7 || strings.Contains(err.Error(), testKey) {
		t.Errorf("ListPets: %v after %d GETs; want an error after 7 at most", err, gets.Load())
	}
}

// init adds to the resend matrix (TestResendMatrix) a transport it did not
// run: x/net/http2's h2c registered for http:// on a caller's
// *http.Transport. Its connections are neither TLS nor the
// *http.Transport's own: the protocol is not known (a processed POST was
// sent six times, and stored six times, while the gate took it for HTTP/1).
func init() {
	vias = append(vias, via{name: "x/net/http2 h2c registered on an *http.Transport (RegisterProtocol)", servers: []string{overH2C}, rt: func(t *testing.T, r *rig) http.RoundTripper {
		h2c := &http2.Transport{AllowHTTP: true, DialTLSContext: func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
			return r.dial(ctx, network, addr)
		}}
		t.Cleanup(h2c.CloseIdleConnections)
		tr := &http.Transport{}
		tr.RegisterProtocol("http", h2c)
		t.Cleanup(tr.CloseIdleConnections)
		return tr
	}})
}

// TestAdversaryCallerEndsIn201: the caller's context ends while a 201's
// body is on its way: the animal was created, and the error says so.
func TestAdversaryCallerEndsIn201(t *testing.T) {
	t.Parallel()
	var stored atomic.Int64
	headers := make(chan struct{})
	url := matrixServer(t, overH1, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		stored.Add(1)
		w.Header().Set("Content-Length", "40")
		w.WriteHeader(http.StatusCreated)
		w.(http.Flusher).Flush()
		close(headers)
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-headers; cancel() }()
	c := adversaryClient(t, url, adversaryTransport(t, nil))
	pet, err := c.CreatePet(ctx, NewPet{Name: "Rex", CategoryID: 1})
	checkAdversary(t, adversaryWant{stored: 1}, stored.Load(), pet, err)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("CreatePet's error %v does not match context.Canceled", err)
	}
}
