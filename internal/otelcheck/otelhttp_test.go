package otelcheck

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
	"github.com/petstore/petstore-go"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// apiKey is distinctive and of mixed case, so that no span holds it by
// chance and a copy in another case is found too.
const apiKey = "OtelCheck-Key.Zq7xW3"

// The attribute keys otelhttp records on a client span (semantic conventions
// 1.26 and later, the ones the pinned otelhttp emits).
const (
	keyMethod = attribute.Key("http.request.method")
	keyStatus = attribute.Key("http.response.status_code")
)

// clientSpan is what the test asserts of one recorded span.
type clientSpan struct {
	Kind   trace.SpanKind
	Method string     // http.request.method
	Status int64      // http.response.status_code
	Code   codes.Code // the span's status
	Parent string     // "none" (a root span), "caller" (the span in the call's context), or an id
	Keys   []string   // every attribute key, sorted: no header among them
}

// TestTracingWithOtelHTTP makes a Client as docs/observability.md's "Tracing with
// OpenTelemetry" section does, with an otelhttp transport in WithHTTPClient,
// and a server that answers 503, 503, 200. It checks that the call records
// exactly three spans, one client span per attempt, with the method and the
// status of each and no header among their attributes; that with a parent span in the context the three are its
// children, in its trace; and that no span holds the API key.
func TestTracingWithOtelHTTP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		withParent bool
		wantParent string
	}{
		{name: "no span in the context", withParent: false, wantParent: "none"},
		{name: "a parent span in the context", withParent: true, wantParent: "caller"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := newFlakyServer(t, http.StatusServiceUnavailable, http.StatusServiceUnavailable, http.StatusOK)
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

			hc := &http.Client{Transport: otelhttp.NewTransport(base, otelhttp.WithTracerProvider(tp))}
			c, err := petstore.NewClient(apiKey,
				petstore.WithBaseURL("https://petstore.test/v1"),
				petstore.WithHTTPClient(hc),
				petstore.WithRetryWait(time.Millisecond, 2*time.Millisecond),
			)
			if err != nil {
				t.Fatalf("NewClient: %v", err)
			}

			ctx := context.Background()
			var caller trace.Span = trace.SpanFromContext(ctx) // a no-op span, with an invalid SpanContext
			if tc.withParent {
				ctx, caller = tp.Tracer("otelcheck").Start(ctx, "caller")
			}
			pets, err := c.ListPets(ctx, petstore.ListPetsParams{})
			caller.End()
			if err != nil {
				t.Errorf("ListPets: %v", err) // the spans below tell more
			}
			if diff := cmp.Diff([]petstore.Pet{}, pets); diff != "" {
				t.Errorf("ListPets mismatch (-want +got):\n%s", diff)
			}

			// The key did go through otelhttp, in the header of every
			// attempt: its absence from the spans below means something.
			want := "Bearer " + apiKey
			if diff := cmp.Diff([]string{want, want, want}, base.authorizations()); diff != "" {
				t.Errorf("Authorization headers the server got mismatch (-want +got):\n%s", diff)
			}

			spans := spansOfCall(rec, caller.SpanContext())
			got := make([]clientSpan, len(spans))
			ids := map[trace.SpanID]bool{}
			for i, s := range spans {
				got[i] = summarize(s, caller.SpanContext())
				ids[s.SpanContext().SpanID()] = true
			}
			// What otelhttp records of a request: its method and URL, the
			// server's name, the protocol; none of its headers.
			okKeys := []string{"http.request.method", "http.response.status_code", "network.protocol.version", "server.address", "url.full"}
			errKeys := []string{"error.type", "http.request.method", "http.response.status_code", "network.protocol.version", "server.address", "url.full"}
			wantSpans := []clientSpan{
				{Kind: trace.SpanKindClient, Method: http.MethodGet, Status: 503, Code: codes.Error, Parent: tc.wantParent, Keys: errKeys},
				{Kind: trace.SpanKindClient, Method: http.MethodGet, Status: 503, Code: codes.Error, Parent: tc.wantParent, Keys: errKeys},
				{Kind: trace.SpanKindClient, Method: http.MethodGet, Status: 200, Code: codes.Unset, Parent: tc.wantParent, Keys: okKeys},
			}
			if diff := cmp.Diff(wantSpans, got); diff != "" {
				t.Errorf("spans of the call mismatch (-want +got):\n%s", diff)
			}
			if len(ids) != len(spans) {
				t.Errorf("%d spans share %d span ids; want one span per attempt", len(spans), len(ids))
			}
			if len(rec.Started()) != len(rec.Ended()) {
				t.Errorf("%d spans started, %d ended: a span of the call was never ended", len(rec.Started()), len(rec.Ended()))
			}

			for _, s := range spans {
				if diff := cmp.Diff([]string(nil), findKey(s, apiKey)); diff != "" {
					t.Errorf("span %q holds the API key (-want +got):\n%s", s.Name(), diff)
				}
			}
		})
	}
}

// TestFindKey checks findKey on spans that do hold the key, in each place it
// looks and in each case, so that TestTracingWithOtelHTTP's check that no
// span holds it cannot pass by looking nowhere.
func TestFindKey(t *testing.T) {
	t.Parallel()
	upper, lower := strings.ToUpper(apiKey), strings.ToLower(apiKey)
	for _, tc := range []struct {
		name string
		span tracetest.SpanStub
		want []string
	}{
		{name: "clean", span: tracetest.SpanStub{Name: "HTTP GET", Attributes: []attribute.KeyValue{keyMethod.String("GET")}}},
		{name: "name", span: tracetest.SpanStub{Name: "GET " + apiKey}, want: []string{"name"}},
		{
			name: "attribute value, as is and upper case",
			span: tracetest.SpanStub{Attributes: []attribute.KeyValue{
				attribute.String("http.request.header.authorization", "Bearer "+apiKey),
				attribute.StringSlice("url.full", []string{"https://petstore.test/v1/pets?key=" + upper}),
			}},
			want: []string{"attribute http.request.header.authorization", "attribute url.full"},
		},
		{
			name: "attribute key, lower case",
			span: tracetest.SpanStub{Attributes: []attribute.KeyValue{attribute.Bool("x."+lower, true)}},
			want: []string{"attribute x." + lower},
		},
		{
			name: "event name and event attribute",
			span: tracetest.SpanStub{Events: []sdktrace.Event{
				{Name: "sent " + apiKey},
				{Name: "exception", Attributes: []attribute.KeyValue{attribute.String("exception.message", "bad key "+lower)}},
			}},
			want: []string{"event 0 name", "event 1 attribute exception.message"},
		},
		{
			name: "status description",
			span: tracetest.SpanStub{Status: sdktrace.Status{Code: codes.Error, Description: "401 for " + upper}},
			want: []string{"status description"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, findKey(tc.span.Snapshot(), apiKey)); diff != "" {
				t.Errorf("findKey mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// flakyServer is an httpmock transport that answers every request with the
// next of its statuses (the last one once they run out) and keeps the
// Authorization header of each request.
type flakyServer struct {
	*httpmock.MockTransport
	mu    sync.Mutex
	auths []string
}

func newFlakyServer(t *testing.T, statuses ...int) *flakyServer {
	t.Helper()
	s := &flakyServer{MockTransport: httpmock.NewMockTransport()}
	s.RegisterResponder(http.MethodGet, "https://petstore.test/v1/pets", func(req *http.Request) (*http.Response, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.auths = append(s.auths, req.Header.Get("Authorization"))
		status := statuses[min(len(s.auths), len(statuses))-1]
		if status != http.StatusOK {
			return httpmock.NewJsonResponse(status, map[string]any{"code": "unavailable", "message": "try again", "status": status})
		}
		return httpmock.NewJsonResponse(status, []petstore.Pet{})
	})
	return s
}

func (s *flakyServer) authorizations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.auths)
}

// spansOfCall returns the ended spans other than the caller's, in the order
// they started.
func spansOfCall(rec *tracetest.SpanRecorder, caller trace.SpanContext) []sdktrace.ReadOnlySpan {
	var spans []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if !caller.IsValid() || s.SpanContext().SpanID() != caller.SpanID() {
			spans = append(spans, s)
		}
	}
	slices.SortStableFunc(spans, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	return spans
}

func summarize(s sdktrace.ReadOnlySpan, caller trace.SpanContext) clientSpan {
	cs := clientSpan{Kind: s.SpanKind(), Code: s.Status().Code}
	for _, a := range s.Attributes() {
		cs.Keys = append(cs.Keys, string(a.Key))
		switch a.Key {
		case keyMethod:
			cs.Method = a.Value.AsString()
		case keyStatus:
			cs.Status = a.Value.AsInt64()
		}
	}
	slices.Sort(cs.Keys)
	switch p := s.Parent(); {
	case !p.IsValid():
		cs.Parent = "none"
	case caller.IsValid() && p.SpanID() == caller.SpanID() && s.SpanContext().TraceID() == caller.TraceID():
		cs.Parent = "caller"
	default:
		cs.Parent = p.TraceID().String() + "/" + p.SpanID().String()
	}
	return cs
}

// findKey returns where in s the key is, in any case: the span's name, an
// attribute's key or value, an event's name or attribute, a link's
// attribute, the status description.
func findKey(s sdktrace.ReadOnlySpan, key string) []string {
	key = strings.ToLower(key)
	has := func(v string) bool { return strings.Contains(strings.ToLower(v), key) }
	var where []string
	attrs := func(prefix string, kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			if has(string(kv.Key)) || has(kv.Value.Emit()) {
				where = append(where, prefix+"attribute "+string(kv.Key))
			}
		}
	}
	if has(s.Name()) {
		where = append(where, "name")
	}
	attrs("", s.Attributes())
	for i, e := range s.Events() {
		if has(e.Name) {
			where = append(where, "event "+strconv.Itoa(i)+" name")
		}
		attrs("event "+strconv.Itoa(i)+" ", e.Attributes)
	}
	for i, l := range s.Links() {
		attrs("link "+strconv.Itoa(i)+" ", l.Attributes)
	}
	if has(s.Status().Description) {
		where = append(where, "status description")
	}
	return where
}
