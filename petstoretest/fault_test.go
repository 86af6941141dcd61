package petstoretest_test

import (
	"context"
	"errors"
	"math"
	"net/http"
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
