package petstoretest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

// newServer starts a fake with three animals (ids 1, 2, 3) and closes it at
// the end of the test.
func newServer(t *testing.T) *petstoretest.Server {
	t.Helper()
	srv := petstoretest.NewServer()
	t.Cleanup(srv.Close)
	srv.AddPet(petstore.NewPet{Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable})
	srv.AddPet(petstore.NewPet{Name: "Tom", CategoryID: 2, Status: petstore.PetStatusPending})
	srv.AddPet(petstore.NewPet{Name: "Kiwi", CategoryID: 3})
	return srv
}

// newClient returns an SDK client for srv with fast retries.
func newClient(t *testing.T, srv *petstoretest.Server, opts ...petstore.Option) *petstore.Client {
	t.Helper()
	opts = append([]petstore.Option{
		petstore.WithBaseURL(srv.URL),
		petstore.WithRetryWait(time.Millisecond, 2*time.Millisecond),
	}, opts...)
	c, err := petstore.NewClient(srv.APIKey, opts...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// response is what a raw request got back: the status, the headers the
// tests look at, and the body decoded as generic JSON.
type response struct {
	Status int
	Header map[string]string
	Body   any
}

// checkedHeaders are the response headers compared by the raw tests.
var checkedHeaders = []string{"Content-Type", "Deprecation", "Sunset", "WWW-Authenticate", "Allow", "Retry-After"}

// do sends a raw request to srv (path is relative to srv.URL) with the
// given Authorization header ("" for none) and returns the response.
func do(t *testing.T, srv *petstoretest.Server, method, path, auth, body string) response {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	got := response{Status: resp.StatusCode, Header: map[string]string{}}
	for _, h := range checkedHeaders {
		if v := resp.Header.Get(h); v != "" {
			got.Header[h] = v
		}
	}
	if method != http.MethodHead {
		if err := json.Unmarshal(data, &got.Body); err != nil {
			t.Fatalf("%s %s: body %q is not JSON: %v", method, path, data, err)
		}
	}
	return got
}

// errBody is an Error body as generic JSON.
func errBody(status int, code, message string) map[string]any {
	return map[string]any{"code": code, "message": message, "status": float64(status)}
}

// pet is a Pet as generic JSON.
func pet(id int, name string, categoryID int, status string) map[string]any {
	p := map[string]any{"id": float64(id), "name": name, "categoryId": float64(categoryID)}
	if status != "" {
		p["status"] = status
	}
	return p
}

var (
	jsonHeader       = map[string]string{"Content-Type": "application/json"}
	deprecatedHeader = map[string]string{
		"Content-Type": "application/json",
		"Deprecation":  "@1735689600",
		"Sunset":       "Thu, 05 Dec 2030 00:00:00 GMT",
	}
)

func TestServerHTTP(t *testing.T) {
	t.Parallel()
	const good = "" // stands for "Bearer <srv.APIKey>"
	rex, tom, kiwi := pet(1, "Rex", 1, "available"), pet(2, "Tom", 2, "pending"), pet(3, "Kiwi", 3, "")
	tests := []struct {
		name         string
		method, path string
		auth         string // good, or a literal header value ("-" for none)
		body         string
		want         response
	}{
		// Authentication.
		{"no key", "GET", "/pets", "-", "", response{401, map[string]string{"Content-Type": "application/json", "WWW-Authenticate": `Bearer realm="petstore"`},
			errBody(401, "unauthorized", "missing API key: send Authorization: Bearer <key>")}},
		{"wrong key", "GET", "/pets", "Bearer nope", "", response{401, map[string]string{"Content-Type": "application/json", "WWW-Authenticate": `Bearer realm="petstore"`},
			errBody(401, "unauthorized", "invalid API key")}},
		{"not bearer", "POST", "/pets", "Basic dXNlcjpwYXNz", `{"name":"A","categoryId":1}`, response{401, map[string]string{"Content-Type": "application/json", "WWW-Authenticate": `Bearer realm="petstore"`},
			errBody(401, "unauthorized", "invalid API key")}},
		{"wrong key on deprecated route", "GET", "/pets/1", "Bearer nope", "", response{401, map[string]string{"Content-Type": "application/json", "WWW-Authenticate": `Bearer realm="petstore"`, "Deprecation": "@1735689600", "Sunset": "Thu, 05 Dec 2030 00:00:00 GMT"},
			errBody(401, "unauthorized", "invalid API key")}},

		// GET /pets.
		{"list all", "GET", "/pets", good, "", response{200, jsonHeader, []any{rex, tom, kiwi}}},
		{"list limit 1", "GET", "/pets?limit=1", good, "", response{200, jsonHeader, []any{rex}}},
		{"list limit 100", "GET", "/pets?limit=100", good, "", response{200, jsonHeader, []any{rex, tom, kiwi}}},
		{"list available", "GET", "/pets?status=available", good, "", response{200, jsonHeader, []any{rex}}},
		{"list pending limit 5", "GET", "/pets?status=pending&limit=5", good, "", response{200, jsonHeader, []any{tom}}},
		{"list sold is empty", "GET", "/pets?status=sold", good, "", response{200, jsonHeader, []any{}}},
		{"list limit 0", "GET", "/pets?limit=0", good, "", response{400, jsonHeader,
			errBody(400, "invalid_parameter", `limit must be an integer from 1 to 100, got "0"`)}},
		{"list limit 101", "GET", "/pets?limit=101", good, "", response{400, jsonHeader,
			errBody(400, "invalid_parameter", `limit must be an integer from 1 to 100, got "101"`)}},
		{"list limit not a number", "GET", "/pets?limit=ten", good, "", response{400, jsonHeader,
			errBody(400, "invalid_parameter", `limit must be an integer from 1 to 100, got "ten"`)}},
		{"list limit empty", "GET", "/pets?limit=", good, "", response{400, jsonHeader,
			errBody(400, "invalid_parameter", `limit must be an integer from 1 to 100, got ""`)}},
		{"list unknown status", "GET", "/pets?status=lost", good, "", response{400, jsonHeader,
			errBody(400, "invalid_parameter", `status must be available, pending or sold, got "lost"`)}},
		{"list empty status", "GET", "/pets?status=", good, "", response{400, jsonHeader,
			errBody(400, "invalid_parameter", `status must be available, pending or sold, got ""`)}},

		// POST /pets.
		{"create", "POST", "/pets", good, `{"name":"Bella","categoryId":7,"status":"sold"}`, response{201, jsonHeader, pet(4, "Bella", 7, "sold")}},
		{"create without status", "POST", "/pets", good, `{"name":"Bella","categoryId":-7}`, response{201, jsonHeader, pet(4, "Bella", -7, "")}},
		{"create ignores unknown fields", "POST", "/pets", good, `{"name":"Bella","categoryId":0,"id":99,"color":"red"}`, response{201, jsonHeader, pet(4, "Bella", 0, "")}},
		{"create without name", "POST", "/pets", good, `{"categoryId":1}`, response{400, jsonHeader, errBody(400, "invalid_body", "name is required")}},
		{"create with empty name", "POST", "/pets", good, `{"name":"","categoryId":1}`, response{400, jsonHeader, errBody(400, "invalid_body", "name must not be empty")}},
		{"create with numeric name", "POST", "/pets", good, `{"name":1,"categoryId":1}`, response{400, jsonHeader, errBody(400, "invalid_body", "name must be a string")}},
		{"create with null name", "POST", "/pets", good, `{"name":null,"categoryId":1}`, response{400, jsonHeader, errBody(400, "invalid_body", "name must be a string")}},
		{"create without categoryId", "POST", "/pets", good, `{"name":"A"}`, response{400, jsonHeader, errBody(400, "invalid_body", "categoryId is required")}},
		{"create with string categoryId", "POST", "/pets", good, `{"name":"A","categoryId":"1"}`, response{400, jsonHeader, errBody(400, "invalid_body", "categoryId must be an integer")}},
		{"create with fractional categoryId", "POST", "/pets", good, `{"name":"A","categoryId":1.5}`, response{400, jsonHeader, errBody(400, "invalid_body", "categoryId must be an integer")}},
		{"create with int64 overflow", "POST", "/pets", good, `{"name":"A","categoryId":9223372036854775808}`, response{400, jsonHeader, errBody(400, "invalid_body", "categoryId must be an integer")}},
		{"create with unknown status", "POST", "/pets", good, `{"name":"A","categoryId":1,"status":"lost"}`, response{400, jsonHeader, errBody(400, "invalid_body", "status must be available, pending or sold")}},
		{"create with null status", "POST", "/pets", good, `{"name":"A","categoryId":1,"status":null}`, response{400, jsonHeader, errBody(400, "invalid_body", "status must be available, pending or sold")}},
		{"create with bad JSON", "POST", "/pets", good, `{"name":`, response{400, jsonHeader, errBody(400, "invalid_body", "body is not a JSON object: unexpected EOF")}},
		{"create with an array", "POST", "/pets", good, `[]`, response{400, jsonHeader, errBody(400, "invalid_body", "body is not a JSON object: json: cannot unmarshal array into Go value of type map[string]json.RawMessage")}},
		{"create with null", "POST", "/pets", good, `null`, response{400, jsonHeader, errBody(400, "invalid_body", "body is not a JSON object")}},
		{"create with trailing data", "POST", "/pets", good, `{"name":"A","categoryId":1} {}`, response{400, jsonHeader, errBody(400, "invalid_body", "body has data after the JSON object")}},
		{"create with empty body", "POST", "/pets", good, ``, response{400, jsonHeader, errBody(400, "invalid_body", "body is not a JSON object: EOF")}},

		// GET /pets/{petId} (deprecated).
		{"get", "GET", "/pets/2", good, "", response{200, deprecatedHeader, tom}},
		{"get absent", "GET", "/pets/42", good, "", response{404, deprecatedHeader, errBody(404, "not_found", "pet 42 not found")}},
		{"get negative", "GET", "/pets/-1", good, "", response{404, deprecatedHeader, errBody(404, "not_found", "pet -1 not found")}},
		{"get non-integer id", "GET", "/pets/rex", good, "", response{400, deprecatedHeader, errBody(400, "invalid_parameter", `petId must be an integer, got "rex"`)}},

		// Outside the interface.
		{"unknown path", "GET", "/orders", good, "", response{404, jsonHeader, errBody(404, "not_found", "no such path: /v1/orders")}},
		{"delete pets", "DELETE", "/pets", good, "", response{405, map[string]string{"Content-Type": "application/json", "Allow": "GET, POST"},
			errBody(405, "method_not_allowed", "DELETE is not allowed on /v1/pets")}},
		{"put pet", "PUT", "/pets/1", good, `{}`, response{405, map[string]string{"Content-Type": "application/json", "Allow": "GET"},
			errBody(405, "method_not_allowed", "PUT is not allowed on /v1/pets/1")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			auth := tc.auth
			switch auth {
			case good:
				auth = "Bearer " + srv.APIKey
			case "-":
				auth = ""
			}
			got := do(t, srv, tc.method, tc.path, auth, tc.body)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s %s mismatch (-want +got):\n%s", tc.method, tc.path, diff)
			}
		})
	}
}

func TestServerBearerSchemeIsCaseInsensitive(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	got := do(t, srv, "GET", "/pets?limit=1", "bearer "+srv.APIKey, "")
	want := response{200, jsonHeader, []any{pet(1, "Rex", 1, "available")}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestServerURLAndKey(t *testing.T) {
	t.Parallel()
	a, b := newServer(t), newServer(t)
	for _, srv := range []*petstoretest.Server{a, b} {
		if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || !strings.HasSuffix(srv.URL, "/v1") {
			t.Errorf("URL = %q, want http://127.0.0.1:<port>/v1", srv.URL)
		}
	}
	if a.APIKey == "" || a.APIKey == b.APIKey {
		t.Errorf("APIKeys = %q and %q, want two different non-empty keys", a.APIKey, b.APIKey)
	}
	// One server's key is refused by another.
	if got := do(t, b, "GET", "/pets", "Bearer "+a.APIKey, ""); got.Status != http.StatusUnauthorized {
		t.Errorf("other server's key: status %d, want 401", got.Status)
	}
}

func TestListPetsLimitThroughSDK(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewServer()
	t.Cleanup(srv.Close)
	for i := range 120 {
		st := petstore.PetStatusAvailable
		if i%2 == 1 {
			st = petstore.PetStatusSold
		}
		srv.AddPet(petstore.NewPet{Name: fmt.Sprint("pet", i+1), CategoryID: 1, Status: st})
	}
	c := newClient(t, srv)
	tests := []struct {
		params  petstore.ListPetsParams
		wantIDs []int64
	}{
		{petstore.ListPetsParams{}, seq(1, 20, 1)},
		{petstore.ListPetsParams{Limit: 1}, seq(1, 1, 1)},
		{petstore.ListPetsParams{Limit: 100}, seq(1, 100, 1)},
		{petstore.ListPetsParams{Status: petstore.PetStatusSold}, seq(2, 40, 2)},
		{petstore.ListPetsParams{Limit: 3, Status: petstore.PetStatusAvailable}, seq(1, 5, 2)},
		{petstore.ListPetsParams{Status: petstore.PetStatusPending}, []int64{}},
	}
	for _, tc := range tests {
		pets, err := c.ListPets(context.Background(), tc.params)
		if err != nil {
			t.Fatalf("ListPets(%+v): %v", tc.params, err)
		}
		got := make([]int64, len(pets))
		for i, p := range pets {
			got[i] = p.ID
		}
		if diff := cmp.Diff(tc.wantIDs, got); diff != "" {
			t.Errorf("ListPets(%+v) ids mismatch (-want +got):\n%s", tc.params, diff)
		}
	}
}

// seq returns from, from+step, ... up to to.
func seq(from, to, step int64) []int64 {
	var s []int64
	for i := from; i <= to; i += step {
		s = append(s, i)
	}
	return s
}

func TestCreatedAndPets(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	c := newClient(t, srv)
	ctx := context.Background()
	got, err := c.CreatePet(ctx, petstore.NewPet{Name: "Bella", CategoryID: 9, Status: petstore.PetStatusSold})
	if err != nil {
		t.Fatalf("CreatePet: %v", err)
	}
	bella := petstore.Pet{ID: 4, Name: "Bella", CategoryID: 9, Status: petstore.PetStatusSold}
	if diff := cmp.Diff(&bella, got); diff != "" {
		t.Errorf("CreatePet mismatch (-want +got):\n%s", diff)
	}
	seeded := srv.AddPet(petstore.NewPet{Name: "Max", CategoryID: 1})
	if diff := cmp.Diff(petstore.Pet{ID: 5, Name: "Max", CategoryID: 1}, seeded); diff != "" {
		t.Errorf("AddPet mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]petstore.Pet{bella}, srv.Created()); diff != "" {
		t.Errorf("Created() mismatch (-want +got):\n%s", diff)
	}
	wantPets := []petstore.Pet{
		{ID: 1, Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable},
		{ID: 2, Name: "Tom", CategoryID: 2, Status: petstore.PetStatusPending},
		{ID: 3, Name: "Kiwi", CategoryID: 3},
		bella,
		{ID: 5, Name: "Max", CategoryID: 1},
	}
	if diff := cmp.Diff(wantPets, srv.Pets()); diff != "" {
		t.Errorf("Pets() mismatch (-want +got):\n%s", diff)
	}
	// The slices are copies.
	srv.Pets()[0].Name = "changed"
	srv.Created()[0].Name = "changed"
	if diff := cmp.Diff(wantPets, srv.Pets()); diff != "" {
		t.Errorf("Pets() after changing a returned slice mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]petstore.Pet{bella}, srv.Created()); diff != "" {
		t.Errorf("Created() after changing a returned slice mismatch (-want +got):\n%s", diff)
	}
	if got, want := srv.Requests(), 1; got != want {
		t.Errorf("Requests() = %d, want %d (AddPet is not a request)", got, want)
	}
}

func TestEmptyServer(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewServer()
	t.Cleanup(srv.Close)
	pets, err := newClient(t, srv).ListPets(context.Background(), petstore.ListPetsParams{})
	if err != nil {
		t.Fatalf("ListPets: %v", err)
	}
	if diff := cmp.Diff([]petstore.Pet{}, pets); diff != "" {
		t.Errorf("ListPets mismatch (-want +got):\n%s", diff)
	}
	if srv.Pets() != nil || srv.Created() != nil {
		t.Errorf("Pets(), Created() = %v, %v; want nil, nil", srv.Pets(), srv.Created())
	}
}

// panicOf returns the value f panics with, or nil.
func panicOf(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

func TestAddPetPanics(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewServer()
	t.Cleanup(srv.Close)
	tests := []struct {
		p    petstore.NewPet
		want any
	}{
		{petstore.NewPet{CategoryID: 1}, "petstoretest: AddPet: empty Name"},
		{petstore.NewPet{Name: "A", Status: "lost"}, `petstoretest: AddPet: unknown Status "lost"`},
		{petstore.NewPet{Name: "A", Status: petstore.PetStatusPending}, nil},
		{petstore.NewPet{Name: "A"}, nil},
	}
	for _, tc := range tests {
		got := panicOf(func() { srv.AddPet(tc.p) })
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("AddPet(%+v) panic mismatch (-want +got):\n%s", tc.p, diff)
		}
	}
}

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

// callOp makes one SDK call by name.
func callOp(c *petstore.Client, op string) error {
	ctx := context.Background()
	var err error
	switch op {
	case "ListPets":
		_, err = c.ListPets(ctx, petstore.ListPetsParams{})
	case "CreatePet":
		_, err = c.CreatePet(ctx, petstore.NewPet{Name: "Bella", CategoryID: 1})
	case "GetPet":
		//lint:ignore SA1019 the fake still serves the deprecated operation.
		_, err = c.GetPet(ctx, 1)
	default:
		panic("unknown op " + op)
	}
	return err
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

func TestCloseEndsStalledRequests(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewServer()
	srv.InjectFault(petstoretest.Fault{Delay: time.Hour})
	c := newClient(t, srv, petstore.WithMaxRetries(0), petstore.WithTimeout(0))
	errc := make(chan error, 1)
	go func() {
		_, err := c.ListPets(context.Background(), petstore.ListPetsParams{})
		errc <- err
	}()
	for srv.Requests() == 0 {
		time.Sleep(time.Millisecond)
	}
	srv.Close() // must not wait for the hour
	srv.Close() // a second Close does nothing
	var apiErr *petstore.APIError
	err := <-errc
	if !errors.As(err, &apiErr) {
		t.Fatalf("ListPets: %v, want an *APIError", err)
	}
	if diff := cmp.Diff(call2{Status: 503}, call2{Status: apiErr.Status}); diff != "" {
		t.Errorf("ListPets error mismatch (-want +got):\n%s", diff)
	}
}

// TestConcurrentUse runs creates, lists, gets, faults and reads at once; run
// it with -race.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewServer()
	t.Cleanup(srv.Close)
	// Another worker may take a worker's fault, so a call can meet several.
	c := newClient(t, srv, petstore.WithMaxRetries(100))
	const workers, perWorker = 8, 25
	var wg sync.WaitGroup
	errc := make(chan error, workers*perWorker*3)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			for i := range perWorker {
				srv.InjectFault(petstoretest.Fault{Operation: "ListPets", Status: 503})
				if _, err := c.CreatePet(ctx, petstore.NewPet{Name: fmt.Sprintf("w%d-%d", w, i), CategoryID: int64(w)}); err != nil {
					errc <- err
				}
				srv.AddPet(petstore.NewPet{Name: "seed", CategoryID: -1})
				if _, err := c.ListPets(ctx, petstore.ListPetsParams{Limit: 100}); err != nil {
					errc <- err
				}
				_ = srv.Pets()
				_ = srv.Created()
				_ = srv.Requests()
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Errorf("concurrent call: %v", err)
	}

	// Every animal got its own id, 1..N with no gap.
	pets := srv.Pets()
	var gotIDs []int64
	for _, p := range pets {
		gotIDs = append(gotIDs, p.ID)
	}
	if diff := cmp.Diff(seq(1, 2*workers*perWorker, 1), gotIDs); diff != "" {
		t.Errorf("ids mismatch (-want +got):\n%s", diff)
	}
	created := map[string]bool{}
	for _, p := range srv.Created() {
		created[p.Name] = true
	}
	if got, want := len(created), workers*perWorker; got != want {
		t.Errorf("%d distinct animals created, want %d", got, want)
	}
	// Each worker made 1 create + 2 list attempts (one faulted) per round.
	if got, want := srv.Requests(), 3*workers*perWorker; got != want {
		t.Errorf("Requests() = %d, want %d", got, want)
	}
}

// pathRecorder is a handler that records the path of each request, then
// passes it to next.
type pathRecorder struct {
	next  http.Handler
	mu    sync.Mutex
	paths []string
}

func (h *pathRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.paths = append(h.paths, r.URL.Path)
	h.mu.Unlock()
	h.next.ServeHTTP(w, r)
}

func (h *pathRecorder) Paths() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.paths)
}

// listen returns a listener on a random loopback port, closed at the end of
// the test.
func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestNewUnstartedServerSettings(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewUnstartedServer()
	t.Cleanup(srv.Close)
	if srv.URL != "" {
		t.Errorf("URL before Start = %q, want empty", srv.URL)
	}
	first := srv.Listener
	l := listen(t)
	rec := &pathRecorder{next: srv.Config.Handler}
	srv.APIKey = "chosen-key"
	srv.Listener = l
	srv.Config.Handler = rec
	srv.AddPet(petstore.NewPet{Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable})
	srv.InjectFault(petstoretest.Fault{Operation: "ListPets", Status: http.StatusServiceUnavailable})
	srv.Start()

	if want := "http://" + l.Addr().String() + "/v1"; srv.URL != want {
		t.Errorf("URL = %q, want %q", srv.URL, want)
	}
	pets, err := newClient(t, srv).ListPets(context.Background(), petstore.ListPetsParams{})
	if err != nil {
		t.Fatalf("ListPets with the chosen key: %v", err)
	}
	if diff := cmp.Diff([]petstore.Pet{{ID: 1, Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable}}, pets); diff != "" {
		t.Errorf("ListPets mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/v1/pets", "/v1/pets"}, rec.Paths()); diff != "" {
		t.Errorf("requests seen by the wrapping handler mismatch (-want +got):\n%s", diff)
	}
	if got := do(t, srv, "GET", "/pets", "Bearer wrong-key", ""); got.Status != http.StatusUnauthorized {
		t.Errorf("another key: status %d, want 401", got.Status)
	}
	if _, err := first.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("the replaced listener: Accept() = %v, want net.ErrClosed", err)
	}
}

func TestNewUnstartedServerDefaults(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewUnstartedServer()
	t.Cleanup(srv.Close)
	srv.Start()
	if want := "http://" + srv.Listener.Addr().String() + "/v1"; srv.URL != want {
		t.Errorf("URL = %q, want %q", srv.URL, want)
	}
	if !strings.HasPrefix(srv.APIKey, "pst_") {
		t.Errorf("APIKey = %q, want a random pst_ key", srv.APIKey)
	}
	if got := do(t, srv, "GET", "/pets", "Bearer "+srv.APIKey, ""); got.Status != http.StatusOK {
		t.Errorf("GET /pets: status %d, want 200", got.Status)
	}
}

func TestStartPanics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		prepare func(*petstoretest.Server)
		want    any
	}{
		{"already started", (*petstoretest.Server).Start, "petstoretest: Start: server already started"},
		{"empty APIKey", func(s *petstoretest.Server) { s.APIKey = "" }, "petstoretest: Start: empty APIKey"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := petstoretest.NewUnstartedServer()
			t.Cleanup(srv.Close)
			tc.prepare(srv)
			if diff := cmp.Diff(tc.want, panicOf(srv.Start)); diff != "" {
				t.Errorf("Start panic mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// NewServer's servers are started.
	srv := petstoretest.NewServer()
	t.Cleanup(srv.Close)
	if diff := cmp.Diff(any("petstoretest: Start: server already started"), panicOf(srv.Start)); diff != "" {
		t.Errorf("Start after NewServer panic mismatch (-want +got):\n%s", diff)
	}
}

func TestCloseUnstartedServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		replace bool
	}{
		{"its own listener", false},
		{"a listener set before Start", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := petstoretest.NewUnstartedServer()
			first := srv.Listener
			if tc.replace {
				srv.Listener = listen(t)
			}
			srv.Close()
			srv.Close() // a second Close does nothing
			for _, l := range []net.Listener{first, srv.Listener} {
				if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
					t.Errorf("after Close: Accept() on %v = %v, want net.ErrClosed", l.Addr(), err)
				}
			}
		})
	}
}
