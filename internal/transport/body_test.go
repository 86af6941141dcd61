package transport

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestBodyReadEndsWithContext: every read of a response, 2xx or not, ends
// when the context or the attempt's time ends, whatever the transport does;
// the error then matches the context's.
func TestBodyReadEndsWithContext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		setup   func(t *testing.T, started chan struct{}) (*Transport, string)
		timeout bool // the attempt times out; else the test cancels the context
	}{
		{"101 upgrade, context canceled", func(t *testing.T, started chan struct{}) (*Transport, string) {
			return &Transport{User: headersArrived(started)}, rawServer(t, stall(upgradeHead))
		}, false},
		{"101 upgrade, attempt timeout", func(t *testing.T, started chan struct{}) (*Transport, string) {
			return New(Transport{User: headersArrived(started), Timeout: 200 * time.Millisecond}), rawServer(t, stall(upgradeHead))
		}, true},
		{"2xx body from a transport that ignores the context", func(t *testing.T, started chan struct{}) (*Transport, string) {
			return &Transport{User: &http.Client{Transport: blockingTransport(200, `[{"id":1,`, started)}}, "http://petstore.test"
		}, false},
		{"2xx body from a transport that ignores the context, attempt timeout", func(t *testing.T, started chan struct{}) (*Transport, string) {
			return New(Transport{User: &http.Client{Transport: blockingTransport(200, `[{"id":1,`, started)}, Timeout: 200 * time.Millisecond}), "http://petstore.test"
		}, true},
		{"404 body from a transport that ignores the context", func(t *testing.T, started chan struct{}) (*Transport, string) {
			return &Transport{User: &http.Client{Transport: blockingTransport(404, `{"code":"not_found",`, started)}}, "http://petstore.test"
		}, false},
		{"404 body over loopback", func(t *testing.T, started chan struct{}) (*Transport, string) {
			head := "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n" + `{"code":"not_found",`
			return &Transport{User: headersArrived(started)}, rawServer(t, stall(head))
		}, false},
		{"500 body over loopback", func(t *testing.T, started chan struct{}) (*Transport, string) {
			head := "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n" + `{"code":"oops",`
			return &Transport{User: headersArrived(started)}, rawServer(t, stall(head))
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			started := make(chan struct{}, 1)
			tr, base := tc.setup(t, started)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if !tc.timeout {
				go func() { <-started; cancel() }()
			}
			var r Result
			wait(t, 10*time.Second, func() { r = get(ctx, tr, base) })
			want := context.Canceled
			if tc.timeout {
				want = context.DeadlineExceeded
			}
			if r.Body != nil || !errors.Is(r.Err, want) {
				t.Errorf("Send = %q, %v; want no body and an error that matches %v", r.Body, r.Err, want)
			}
			if tc.timeout && !errors.As(r.Err, new(*timeoutError)) {
				t.Errorf("Send: %v; want a *timeoutError", r.Err)
			}
		})
	}
}

// TestMemoryFollowsTheBytes: a response that promises 10 MiB and sends a
// few KiB costs memory for what arrived, not for what was promised. Not
// parallel: it counts the allocations of the whole program.
func TestMemoryFollowsTheBytes(t *testing.T) {
	tr := &Transport{User: &http.Client{Transport: canned(200, "["+strings.Repeat(" ", 4<<10), 10<<20, io.ErrUnexpectedEOF)}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := get(context.Background(), tr, "http://petstore.test")
	runtime.ReadMemStats(&after)
	if !errors.Is(r.Err, io.ErrUnexpectedEOF) {
		t.Fatalf("Send of a body cut short: %v; want io.ErrUnexpectedEOF", r.Err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("an attempt that received 4 KiB of a promised 10 MiB allocated %d bytes; want under 1 MiB", n)
	}
}

// TestBodies: what an attempt makes of each kind of body.
func TestBodies(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", MaxErrorBody+100)
	tests := []struct {
		name     string
		rt       http.RoundTripper
		wantErr  error // Result.Err
		wantBody string
		wantCut  error
	}{
		{"2xx, exact length", canned(200, `[]`, 2, nil), nil, `[]`, nil},
		{"2xx, unknown length", canned(200, `[{"id":1}]`, -1, nil), nil, `[{"id":1}]`, nil},
		{"2xx, longer than promised", canned(200, `[{"id":1}]`, 2, nil), nil, `[{"id":1}]`, nil},
		{"2xx cut short", canned(200, `[{"id"`, 100, io.ErrUnexpectedEOF), io.ErrUnexpectedEOF, "", nil},
		{"2xx over 10 MiB", canned(200, strings.Repeat(" ", MaxSuccessBody+1), -1, nil), ErrBodyTooLarge, "", nil},
		{"404 cut short", canned(404, `{"code"`, 100, io.ErrUnexpectedEOF), nil, `{"code"`, io.ErrUnexpectedEOF},
		{"500 over 64 KiB", canned(500, big, -1, nil), nil, big[:MaxErrorBody], nil},
		{"204, no body", roundTripFunc(func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 204, Header: http.Header{}}, nil
		}), nil, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := get(context.Background(), &Transport{User: &http.Client{Transport: tc.rt}}, "http://petstore.test")
			if !errors.Is(r.Err, tc.wantErr) || (tc.wantErr == nil && r.Err != nil) {
				t.Fatalf("Send: %v; want %v", r.Err, tc.wantErr)
			}
			if r.Err != nil {
				return
			}
			if diff := cmp.Diff(tc.wantBody, string(r.Body)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			if !errors.Is(r.Cut, tc.wantCut) || (tc.wantCut == nil && r.Cut != nil) {
				t.Errorf("cut by %v; want %v", r.Cut, tc.wantCut)
			}
		})
	}
}

// TestBodyReadEndsWhateverCloseDoes: a body whose Close does not interrupt
// its Read (io.NopCloser around a reader that blocks, as hand-written,
// recording and mock transports return) still ends with the context or the
// attempt's time; a body that makes no progress is an error, not a spin.
func TestBodyReadEndsWhateverCloseDoes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		status  int
		timeout bool // the attempt times out; else the test cancels the context
	}{
		{"2xx, context canceled", 200, false},
		{"2xx, attempt timeout", 200, true},
		{"503, context canceled", 503, false},
		{"503, attempt timeout", 503, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			reading := make(chan struct{}, 1)
			release := make(chan struct{})
			t.Cleanup(func() { close(release) }) // the abandoned Read returns, so no goroutine is left
			rt := roundTripFunc(func(*http.Request) (*http.Response, error) {
				body := io.NopCloser(io.MultiReader(strings.NewReader(`[{"id":1,`), stuckReader{reading, release}))
				return &http.Response{StatusCode: tc.status, Header: http.Header{}, Body: body, ContentLength: -1}, nil
			})
			tr := &Transport{User: &http.Client{Transport: rt}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			want := context.Canceled
			if tc.timeout {
				tr.Timeout, want = 200*time.Millisecond, context.DeadlineExceeded
			} else {
				go func() { <-reading; cancel() }()
			}
			var r Result
			wait(t, 10*time.Second, func() { r = get(ctx, tr, "http://petstore.test") })
			if r.Body != nil || !errors.Is(r.Err, want) {
				t.Errorf("Send = %q, %v; want no body and an error that matches %v", r.Body, r.Err, want)
			}
		})
	}
	t.Run("no progress", func(t *testing.T) {
		t.Parallel()
		for _, status := range []int{200, 503} {
			rt := roundTripFunc(func(*http.Request) (*http.Response, error) {
				body := io.NopCloser(io.MultiReader(strings.NewReader(`{"code":`), zeroReader{}))
				return &http.Response{StatusCode: status, Header: http.Header{}, Body: body, ContentLength: -1}, nil
			})
			var r Result
			wait(t, 10*time.Second, func() {
				r = get(context.Background(), &Transport{User: &http.Client{Transport: rt}}, "http://petstore.test")
			})
			if status == 200 {
				if !errors.Is(r.Err, io.ErrNoProgress) {
					t.Errorf("%d: Send = %q, %v; want an error that matches io.ErrNoProgress", status, r.Body, r.Err)
				}
				continue
			}
			if r.Err != nil {
				t.Fatalf("%d: Send: %v; want the response, its body cut short", status, r.Err)
			}
			if string(r.Body) != `{"code":` || !errors.Is(r.Cut, io.ErrNoProgress) {
				t.Errorf("%d: Send = %q, %v; want %q, io.ErrNoProgress", status, r.Body, r.Cut, `{"code":`)
			}
		}
	})
}

// TestBodyOverCapEndsAtOnce: a body over the cap that never ends (1 TiB),
// from http.ReadResponse (whose Close drains it to the end), is cut at the cap at
// once: ErrBodyTooLarge for a 2xx, the first MaxErrorBody bytes of any
// other, without waiting for the drain (the attempt has no time limit here:
// the test's bound is for a broken build).
func TestBodyOverCapEndsAtOnce(t *testing.T) {
	t.Parallel()
	done := make(chan struct{})
	t.Cleanup(func() { close(done) }) // the drain left behind ends, so no goroutine is left
	for _, status := range []int{200, 503} {
		rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
			head := "HTTP/1.1 " + strconv.Itoa(status) + " X\r\nContent-Length: 1099511627776\r\n\r\n" // a keep-alive body: Close drains it
			return http.ReadResponse(bufio.NewReader(io.MultiReader(strings.NewReader(head), endless{done})), req)
		})
		var r Result
		wait(t, 10*time.Second, func() {
			r = get(context.Background(), &Transport{User: &http.Client{Transport: rt}}, "http://petstore.test")
		})
		if status == 200 && r.Err != ErrBodyTooLarge {
			t.Errorf("%d: Send: %v; want ErrBodyTooLarge", status, r.Err)
		}
		if status != 200 && (r.Err != nil || len(r.Body) != MaxErrorBody) {
			t.Errorf("%d: Send = %d bytes, %v; want %d bytes", status, len(r.Body), r.Err, MaxErrorBody)
		}
	}
}

// endless reads as a body that never ends, until done is closed.
type endless struct{ done <-chan struct{} }

func (r endless) Read(p []byte) (int, error) {
	select {
	case <-r.done:
		return 0, io.EOF
	default:
	}
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// stuckReader blocks every Read until release is closed, signalling
// reading first; Close on an io.NopCloser around it does nothing.
type stuckReader struct {
	reading chan<- struct{}
	release <-chan struct{}
}

func (r stuckReader) Read([]byte) (int, error) {
	select {
	case r.reading <- struct{}{}:
	default:
	}
	<-r.release
	return 0, io.EOF
}

// zeroReader returns (0, nil) forever, as io.ErrNoProgress describes.
type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }
