package petstoretest_test

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

func TestInjectFaultPanics(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewServer()
	t.Cleanup(srv.Close)
	tests := []struct {
		f    petstoretest.Fault
		want any
	}{
		{petstoretest.Fault{Operation: "listPets", Status: 503}, `petstoretest: InjectFault: unknown Operation "listPets"; want ListPets, CreatePet, GetPet or empty`},
		{petstoretest.Fault{Status: 503, Count: -1}, "petstoretest: InjectFault: negative Count, Delay or RetryAfter"},
		{petstoretest.Fault{Delay: -time.Second}, "petstoretest: InjectFault: negative Count, Delay or RetryAfter"},
		{petstoretest.Fault{Status: 503, RetryAfter: -time.Second}, "petstoretest: InjectFault: negative Count, Delay or RetryAfter"},
		{petstoretest.Fault{Status: 200}, "petstoretest: InjectFault: Status 200 is not an error status (400..599)"},
		{petstoretest.Fault{Status: 600}, "petstoretest: InjectFault: Status 600 is not an error status (400..599)"},
		{petstoretest.Fault{Delay: time.Second, RetryAfter: time.Second}, "petstoretest: InjectFault: RetryAfter needs a Status"},
		{petstoretest.Fault{Operation: "GetPet", Count: 3}, "petstoretest: InjectFault: a Fault needs a Status, a Delay, Disconnect or CutBody"},
		{petstoretest.Fault{Body: "<html></html>"}, "petstoretest: InjectFault: Body needs a Status"},
		{petstoretest.Fault{Delay: time.Second, Body: "<html></html>"}, "petstoretest: InjectFault: Body needs a Status"},
		{petstoretest.Fault{Disconnect: true, Status: 503}, "petstoretest: InjectFault: Disconnect sends nothing: it cannot go with Status, Body or CutBody"},
		{petstoretest.Fault{Disconnect: true, CutBody: true}, "petstoretest: InjectFault: Disconnect sends nothing: it cannot go with Status, Body or CutBody"},
	}
	for _, tc := range tests {
		got := panicOf(func() { srv.InjectFault(tc.f) })
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("InjectFault(%+v) panic mismatch (-want +got):\n%s", tc.f, diff)
		}
	}
	// None of them was installed.
	if got := do(t, srv, "GET", "/pets", "Bearer "+srv.APIKey, ""); got.Status != http.StatusOK {
		t.Errorf("after refused faults: status %d, want 200", got.Status)
	}
}

// call is one SDK call of a fault test.
type call struct {
	op         string // ListPets, CreatePet or GetPet
	wantStatus int    // 0: success; else the *APIError's Status
	wantAfter  time.Duration
}

func TestFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		faults       []petstoretest.Fault
		maxRetries   int
		calls        []call
		wantRequests int
	}{
		{
			name:         "503 twice, then success after two retries",
			faults:       []petstoretest.Fault{{Status: 503, Count: 2}},
			maxRetries:   2,
			calls:        []call{{op: "ListPets"}},
			wantRequests: 3,
		},
		{
			name:         "503 three times exhausts two retries",
			faults:       []petstoretest.Fault{{Operation: "ListPets", Status: 503, Count: 3}},
			maxRetries:   2,
			calls:        []call{{op: "ListPets", wantStatus: 503}, {op: "ListPets"}},
			wantRequests: 4,
		},
		{
			name:         "Count 0 means one request",
			faults:       []petstoretest.Fault{{Status: 500}},
			maxRetries:   0,
			calls:        []call{{op: "ListPets", wantStatus: 500}, {op: "ListPets"}},
			wantRequests: 2,
		},
		{
			name:       "a fault for one operation leaves the others alone",
			faults:     []petstoretest.Fault{{Operation: "CreatePet", Status: 503}},
			maxRetries: 2,
			calls: []call{
				{op: "ListPets"},
				{op: "GetPet"},
				{op: "CreatePet", wantStatus: 503}, // POST is not retried on 5xx
				{op: "CreatePet"},
			},
			wantRequests: 4,
		},
		{
			name:         "faults apply in order",
			faults:       []petstoretest.Fault{{Status: 502}, {Status: 504}, {Status: 500}},
			maxRetries:   1,
			calls:        []call{{op: "ListPets", wantStatus: 504}, {op: "ListPets"}},
			wantRequests: 4,
		},
		{
			name:         "429 on CreatePet is retried",
			faults:       []petstoretest.Fault{{Operation: "CreatePet", Status: 429}},
			maxRetries:   1,
			calls:        []call{{op: "CreatePet"}},
			wantRequests: 2,
		},
		{
			name:         "a Retry-After longer than the wait is not waited for",
			faults:       []petstoretest.Fault{{Status: 429, RetryAfter: time.Hour}},
			maxRetries:   2,
			calls:        []call{{op: "ListPets", wantStatus: 429, wantAfter: time.Hour}},
			wantRequests: 1,
		},
		{
			name:         "any error status, here 404",
			faults:       []petstoretest.Fault{{Operation: "GetPet", Status: 404, Count: 2}},
			maxRetries:   2,
			calls:        []call{{op: "GetPet", wantStatus: 404}, {op: "GetPet", wantStatus: 404}, {op: "GetPet"}},
			wantRequests: 3,
		},
		{
			name:         "a Delay alone serves normally",
			faults:       []petstoretest.Fault{{Delay: time.Millisecond, Count: 2}},
			maxRetries:   0,
			calls:        []call{{op: "CreatePet"}, {op: "ListPets"}},
			wantRequests: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			for _, f := range tc.faults {
				srv.InjectFault(f)
			}
			c := newClient(t, srv, petstore.WithMaxRetries(tc.maxRetries))
			for i, call := range tc.calls {
				err := callOp(c, call.op)
				var got call2
				var apiErr *petstore.APIError
				switch {
				case errors.As(err, &apiErr):
					got = call2{apiErr.Status, apiErr.RetryAfter}
				case err != nil:
					t.Fatalf("call %d (%s): %v, want nil or an *APIError", i, call.op, err)
				}
				if diff := cmp.Diff(call2{call.wantStatus, call.wantAfter}, got); diff != "" {
					t.Errorf("call %d (%s) mismatch (-want +got):\n%s", i, call.op, diff)
				}
			}
			if got := srv.Requests(); got != tc.wantRequests {
				t.Errorf("Requests() = %d, want %d", got, tc.wantRequests)
			}
		})
	}
}

// call2 is the outcome of a call: the APIError status and RetryAfter, or
// zeros for success.
type call2 struct {
	Status     int
	RetryAfter time.Duration
}

func TestFaultRetryAfterHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		retryAfter time.Duration
		want       response
	}{
		{0, response{503, jsonHeader, errBody(503, "service_unavailable", "fault injected by petstoretest")}},
		{time.Second, response{503, map[string]string{"Content-Type": "application/json", "Retry-After": "1"},
			errBody(503, "service_unavailable", "fault injected by petstoretest")}},
		{1500 * time.Millisecond, response{503, map[string]string{"Content-Type": "application/json", "Retry-After": "2"},
			errBody(503, "service_unavailable", "fault injected by petstoretest")}},
		// Within a second of the largest Duration: no overflow to a negative value.
		{math.MaxInt64, response{503, map[string]string{"Content-Type": "application/json", "Retry-After": "9223372037"},
			errBody(503, "service_unavailable", "fault injected by petstoretest")}},
	}
	for _, tc := range tests {
		srv := newServer(t)
		srv.InjectFault(petstoretest.Fault{Status: 503, RetryAfter: tc.retryAfter})
		got := do(t, srv, "GET", "/pets", "", "") // a fault answers before the key check
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("RetryAfter %v: mismatch (-want +got):\n%s", tc.retryAfter, diff)
		}
	}
}

func TestFaultDelayTimesOutAttempt(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	// Stalls far longer than the test: only the client's timeout ends it.
	// The timeout must also let the retry's normal answer through, on a
	// loaded machine with -race too: 2s, not a few hundred milliseconds.
	srv.InjectFault(petstoretest.Fault{Operation: "ListPets", Delay: time.Hour})
	c := newClient(t, srv, petstore.WithMaxRetries(1), petstore.WithTimeout(2*time.Second))
	pets, err := c.ListPets(context.Background(), petstore.ListPetsParams{Limit: 1})
	if err != nil {
		t.Fatalf("ListPets: %v, want success on the retry", err)
	}
	if diff := cmp.Diff([]petstore.Pet{{ID: 1, Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable}}, pets); diff != "" {
		t.Errorf("ListPets mismatch (-want +got):\n%s", diff)
	}
	if got := srv.Requests(); got != 2 {
		t.Errorf("Requests() = %d, want 2", got)
	}
}

func TestFaultDelayWithContext(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.InjectFault(petstoretest.Fault{Delay: time.Hour, Status: 503})
	c := newClient(t, srv, petstore.WithMaxRetries(0))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.ListPets(ctx, petstore.ListPetsParams{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ListPets: %v, want context.DeadlineExceeded", err)
	}
}

// TestFaultKindsThroughSDK checks that each fault makes the SDK do what its
// README says, over both protocols: a GET is retried after a dropped
// connection, a body cut short or a proxy's 502 page; a POST whose request
// was sent is never sent again, whatever came back.
func TestFaultKindsThroughSDK(t *testing.T) {
	t.Parallel()
	const page = "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>"
	tests := []struct {
		name        string
		fault       petstoretest.Fault
		op          string
		wantStatus  int // the *APIError's Status; 0: success or another error
		wantErr     bool
		wantCreated int
		want        []seen
	}{
		{
			name:  "a GET is retried after a disconnect",
			fault: petstoretest.Fault{Operation: "ListPets", Disconnect: true},
			op:    "ListPets",
			want:  []seen{{"ListPets", 0, true}, {"ListPets", 200, false}},
		},
		{
			name:    "a POST is not retried after a disconnect",
			fault:   petstoretest.Fault{Operation: "CreatePet", Disconnect: true},
			op:      "CreatePet",
			wantErr: true,
			want:    []seen{{"CreatePet", 0, true}},
		},
		{
			name:  "a GET is retried after a delayed disconnect",
			fault: petstoretest.Fault{Operation: "GetPet", Disconnect: true, Delay: time.Millisecond},
			op:    "GetPet",
			want:  []seen{{"GetPet", 0, true}, {"GetPet", 200, false}},
		},
		{
			name:  "a GET is retried after a body cut short",
			fault: petstoretest.Fault{Operation: "ListPets", CutBody: true},
			op:    "ListPets",
			want:  []seen{{"ListPets", 200, true}, {"ListPets", 200, false}},
		},
		{
			name:        "a POST whose answer was cut short is not retried, and created its animal",
			fault:       petstoretest.Fault{Operation: "CreatePet", CutBody: true},
			op:          "CreatePet",
			wantErr:     true,
			wantCreated: 1,
			want:        []seen{{"CreatePet", 201, true}},
		},
		{
			name:  "a GET is retried after an error body cut short",
			fault: petstoretest.Fault{Operation: "GetPet", CutBody: true, Status: 503},
			op:    "GetPet",
			want:  []seen{{"GetPet", 503, true}, {"GetPet", 200, false}},
		},
		{
			name:       "a proxy's HTML 502 page ends a GET as an APIError once retries are spent",
			fault:      petstoretest.Fault{Status: 502, Body: page, Count: 3},
			op:         "ListPets",
			wantStatus: 502,
			want:       []seen{{"ListPets", 502, true}, {"ListPets", 502, true}, {"ListPets", 502, true}},
		},
		{
			name:       "a POST is not retried after a proxy's HTML 502 page",
			fault:      petstoretest.Fault{Status: 502, Body: page},
			op:         "CreatePet",
			wantStatus: 502,
			want:       []seen{{"CreatePet", 502, true}},
		},
	}
	for _, proto := range protocols {
		for _, tc := range tests {
			t.Run(proto.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv, opts := startServer(t, proto.tls)
				srv.InjectFault(tc.fault)
				c, err := petstore.NewClient(srv.APIKey, append(opts, petstore.WithMaxRetries(2))...)
				if err != nil {
					t.Fatal(err)
				}
				err = callOp(c, tc.op)
				var apiErr *petstore.APIError
				switch {
				case tc.wantStatus != 0:
					if !errors.As(err, &apiErr) || apiErr.Status != tc.wantStatus {
						t.Fatalf("%s: error %v, want an *APIError with Status %d", tc.op, err, tc.wantStatus)
					}
					if tc.fault.Body != "" && string(apiErr.Body) != tc.fault.Body {
						t.Errorf("APIError.Body = %q, want the fault's page %q", apiErr.Body, tc.fault.Body)
					}
				case tc.wantErr:
					if err == nil || errors.As(err, &apiErr) {
						t.Fatalf("%s: error %v, want a transport error", tc.op, err)
					}
				case err != nil:
					t.Fatalf("%s: %v, want success after a retry", tc.op, err)
				}
				if diff := cmp.Diff(tc.want, journal(srv)); diff != "" {
					t.Errorf("journal mismatch (-want +got):\n%s", diff)
				}
				if got := len(srv.Created()); got != tc.wantCreated {
					t.Errorf("len(Created()) = %d, want %d", got, tc.wantCreated)
				}
			})
		}
	}
}

func TestFaultBodyContentType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body, want string
	}{
		{"<html><body>Bad gateway</body></html>", "text/html; charset=utf-8"},
		{"upstream connect error or disconnect/reset before headers", "text/plain; charset=utf-8"},
		{`{"error":"overloaded"}`, "text/plain; charset=utf-8"}, // what DetectContentType says of JSON
	}
	for _, tc := range tests {
		srv := newServer(t)
		srv.InjectFault(petstoretest.Fault{Status: 502, Body: tc.body})
		resp, err := srv.Client().Get(srv.URL + "/pets")
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := []string{strconv.Itoa(resp.StatusCode), resp.Header.Get("Content-Type"), string(data)}
		if diff := cmp.Diff([]string{"502", tc.want, tc.body}, got); diff != "" {
			t.Errorf("Body %q: answer mismatch (-want +got):\n%s", tc.body, diff)
		}
	}
}

func TestClearFaults(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.InjectFault(petstoretest.Fault{Status: 503, Count: 5})
	srv.InjectFault(petstoretest.Fault{Operation: "GetPet", Disconnect: true})
	c := newClient(t, srv, petstore.WithMaxRetries(0))
	if err := callOp(c, "ListPets"); err == nil {
		t.Fatal("ListPets succeeded, want the first fault's 503")
	}
	srv.ClearFaults()
	for _, op := range []string{"ListPets", "GetPet", "CreatePet"} {
		if err := callOp(c, op); err != nil {
			t.Errorf("%s after ClearFaults: %v", op, err)
		}
	}
}

func TestFaultCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		code   string
	}{
		{429, "too_many_requests"},
		{418, "i_m_a_teapot"},
		{500, "internal_server_error"},
		{503, "service_unavailable"},
		{505, "http_version_not_supported"},
		{599, "fault"},
	}
	srv := newServer(t)
	for _, tc := range tests {
		srv.InjectFault(petstoretest.Fault{Status: tc.status})
		want := response{tc.status, jsonHeader, errBody(tc.status, tc.code, "fault injected by petstoretest")}
		if diff := cmp.Diff(want, do(t, srv, "GET", "/pets", "", "")); diff != "" {
			t.Errorf("Status %d: mismatch (-want +got):\n%s", tc.status, diff)
		}
	}
}
