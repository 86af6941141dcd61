package otelcheck

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/petstore/petstore-go"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// hideErrorText is docs/observability.md's remedy ("Tracing with OpenTelemetry"),
// word for word: a transport under otelhttp whose errors keep their cause
// for errors.Is and errors.As but not their text, which can quote what a
// server sent.
type hideErrorText struct{ next http.RoundTripper }

func (h hideErrorText) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := h.next.RoundTrip(req)
	if err != nil {
		return nil, textless{err}
	}
	return resp, nil
}

// textless is an error whose text says only what kind of error it is.
type textless struct{ err error }

func (e textless) Error() string { return fmt.Sprintf("transport error (%T)", e.err) }
func (e textless) Unwrap() error { return e.err }

// TestEchoedKeyInTransportError: a server that echoes the key in a response
// head that is not HTTP makes net/http's error quote it. The SDK redacts
// its own errors, but otelhttp, below the SDK, records that text in the
// span's status and an exception event; docs/observability.md says so, and its remedy,
// hideErrorText under otelhttp, keeps the key out of the span.
func TestEchoedKeyInTransportError(t *testing.T) {
	t.Parallel()
	base := echoingServer(t)
	for _, tc := range []struct {
		name     string
		under    http.RoundTripper // the transport otelhttp wraps
		wantLeak bool              // the span's status description holds the key
	}{
		{"otelhttp over http.DefaultTransport, as the README sets it up", http.DefaultTransport, true},
		{"with the README's hideErrorText under otelhttp", hideErrorText{http.DefaultTransport}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			hc := &http.Client{Transport: otelhttp.NewTransport(tc.under, otelhttp.WithTracerProvider(tp))}
			c, err := petstore.NewClient(apiKey, petstore.WithBaseURL(base), petstore.WithHTTPClient(hc), petstore.WithMaxRetries(0))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.ListPets(context.Background(), petstore.ListPetsParams{})
			if err == nil || strings.Contains(strings.ToLower(err.Error()), strings.ToLower(apiKey)) {
				t.Fatalf("ListPets: %v; want an error without the key", err)
			}
			spans := rec.Ended()
			if len(spans) != 1 {
				t.Fatalf("%d spans; want 1", len(spans))
			}
			where := findKey(spans[0], apiKey)
			if leak := slices.Contains(where, "status description"); leak != tc.wantLeak || !tc.wantLeak && len(where) > 0 {
				t.Errorf("the span holds the key in %q; want the status description among them: %v", where, tc.wantLeak)
			}
		})
	}
	t.Run("docs/observability.md shows hideErrorText", func(t *testing.T) {
		t.Parallel()
		readme, err := os.ReadFile("../../docs/observability.md")
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile("echo_test.go")
		if err != nil {
			t.Fatal(err)
		}
		start := strings.Index(string(src), "type hideErrorText")
		end := strings.Index(string(src), "// TestEchoedKeyInTransportError")
		snippet := strings.TrimSpace(string(src[start:end]))
		if !strings.Contains(string(readme), snippet) {
			t.Errorf("docs/observability.md does not show hideErrorText and textless as this file has them:\n%s", snippet)
		}
	})
}

// echoingServer answers every request with a response head that is not
// HTTP and holds the key of the request's Authorization header.
func echoingServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := l.Accept()
			if errors.Is(err, net.ErrClosed) {
				return
			} else if err != nil {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				key := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
				fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nX-Echo %s\r\n\r\n", key)
			}()
		}
	}()
	return "http://" + l.Addr().String() + "/v1"
}
