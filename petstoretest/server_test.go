package petstoretest_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
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
		{"head pets", "HEAD", "/pets", good, "", response{405, map[string]string{"Content-Type": "application/json", "Allow": "GET, POST"}, nil}},
		{"double slash", "GET", "//pets", good, "", response{404, jsonHeader, errBody(404, "not_found", "no such path: /v1//pets")}},
		{"dot segment", "GET", "/./pets", good, "", response{404, jsonHeader, errBody(404, "not_found", "no such path: /v1/./pets")}},
		{"dot-dot segment", "GET", "/../v1/pets", good, "", response{404, jsonHeader, errBody(404, "not_found", "no such path: /v1/../v1/pets")}},
		{"trailing slash", "GET", "/pets/", good, "", response{404, jsonHeader, errBody(404, "not_found", "no such path: /v1/pets/")}},
		{"trailing slash on a pet", "GET", "/pets/1/", good, "", response{404, jsonHeader, errBody(404, "not_found", "no such path: /v1/pets/1/")}},
		{"escaped slash in petId", "GET", "/pets/1%2F2", good, "", response{400, deprecatedHeader, errBody(400, "invalid_parameter", `petId must be an integer, got "1/2"`)}},
		{"escaped digit in petId", "GET", "/pets/%32", good, "", response{200, deprecatedHeader, tom}},
		{"root", "GET", "/../", good, "", response{404, jsonHeader, errBody(404, "not_found", "no such path: /v1/../")}},
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

func TestCloseEndsStalledRequests(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewUnstartedServer()
	arrived := make(chan struct{})
	next := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		next.ServeHTTP(w, r)
	})
	srv.Start()
	srv.InjectFault(petstoretest.Fault{Delay: time.Hour})
	c := newClient(t, srv, petstore.WithMaxRetries(0), petstore.WithTimeout(0))
	errc := make(chan error, 1)
	go func() {
		_, err := c.ListPets(context.Background(), petstore.ListPetsParams{})
		errc <- err
	}()
	<-arrived   // the request is being served: stalled, or about to be
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
				_ = srv.Received()
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
	if got, want := len(srv.Received()), srv.Requests(); got != want {
		t.Errorf("len(Received()) = %d, want Requests() = %d", got, want)
	}
}

// TestConcurrentSteering resets, reseeds and clears faults while clients
// call; run it with -race. A call may meet an empty store (404) or a fault
// (503), never a broken answer.
func TestConcurrentSteering(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewServer()
	t.Cleanup(srv.Close)
	c := newClient(t, srv, petstore.WithMaxRetries(0))
	const rounds = 50
	var wg sync.WaitGroup
	errc := make(chan error, 3*rounds)
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range rounds {
			srv.SetPets([]petstore.Pet{{ID: 1, Name: "Rex"}, {Name: "Tom"}})
			srv.InjectFault(petstoretest.Fault{Status: 503})
			srv.ClearFaults()
			srv.Reset()
		}
	}()
	go func() {
		defer wg.Done()
		for _, op := range slices.Repeat([]string{"ListPets", "CreatePet", "GetPet"}, rounds) {
			var apiErr *petstore.APIError
			if err := callOp(c, op); err != nil && !errors.As(err, &apiErr) {
				errc <- fmt.Errorf("%s: %w", op, err)
			}
			_ = srv.Received()
		}
	}()
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
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

// TestStartTLS checks that the fake speaks HTTP/2 over TLS to its Client,
// and HTTP/1.1 to a client that offers only that.
func TestStartTLS(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewUnstartedServer()
	srv.StartTLS()
	defer srv.Close()
	if !strings.HasPrefix(srv.URL, "https://127.0.0.1:") || !strings.HasSuffix(srv.URL, "/v1") {
		t.Errorf("URL = %q, want https://127.0.0.1:<port>/v1", srv.URL)
	}
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.ForceAttemptHTTP2 = false
	tr.TLSClientConfig.NextProtos = []string{"http/1.1"}
	h1 := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	for _, tc := range []struct {
		client *http.Client
		want   string
	}{{srv.Client(), "HTTP/2.0"}, {h1, "HTTP/1.1"}} {
		req, err := http.NewRequest("GET", srv.URL+"/pets", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+srv.APIKey)
		resp, err := tc.client.Do(req)
		if err != nil {
			t.Fatalf("GET /pets: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Proto != tc.want {
			t.Errorf("GET /pets: %s %d, want %s 200", resp.Proto, resp.StatusCode, tc.want)
		}
	}
}

// TestEveryAnswerIsAnErrorBody sends what net/http's router would answer
// itself (CONNECT, OPTIONS *, an absolute-form target): the fake answers
// each with an Error body whose status is the HTTP status.
func TestEveryAnswerIsAnErrorBody(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	host := strings.TrimPrefix(strings.TrimSuffix(srv.URL, "/v1"), "http://")
	tests := []struct {
		request string
		want    string // the Error body
	}{
		{"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n", `{"code":"not_found","message":"no such path: example.com:443","status":404}`},
		{"OPTIONS * HTTP/1.1\r\nHost: " + host + "\r\n", `{"code":"not_found","message":"no such path: *","status":404}`},
		{"GET http://" + host + "/v1//pets HTTP/1.1\r\nHost: " + host + "\r\n", `{"code":"not_found","message":"no such path: /v1//pets","status":404}`},
		{"DELETE /v1/pets/1/ HTTP/1.1\r\nHost: " + host + "\r\n", `{"code":"not_found","message":"no such path: /v1/pets/1/","status":404}`},
	}
	for _, tc := range tests {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		io.WriteString(conn, tc.request+"Authorization: Bearer "+srv.APIKey+"\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: "GET"})
		if err != nil {
			t.Fatalf("%q: reading the answer: %v", tc.request, err)
		}
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%q: reading the body: %v", tc.request, err)
		}
		got := []string{strconv.Itoa(resp.StatusCode), resp.Header.Get("Content-Type"), strings.TrimSpace(string(data))}
		if diff := cmp.Diff([]string{"404", "application/json", tc.want}, got); diff != "" {
			t.Errorf("%q: answer mismatch (-want +got):\n%s", tc.request, diff)
		}
	}
}
