package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

// startPets are the -pets animals of the control tests.
var startPets = []petstore.Pet{{ID: 1, Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable}}

// newControlServer starts a fake with the control API in front of it, as
// run does, seeded with startPets.
func newControlServer(t *testing.T) *petstoretest.Server {
	t.Helper()
	srv := petstoretest.NewUnstartedServer()
	srv.SetPets(startPets)
	srv.Config.Handler = newControl(srv, startPets)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// reply is what a request to the fake got.
type reply struct {
	status int
	header http.Header
	body   string
}

// call sends method path (from the root, such as "/_fake/pets" or
// "/v1/pets") to the fake at baseURL (which ends in /v1), with body when it
// is not "" and with "Authorization: <auth>" when auth is not "".
func call(t *testing.T, baseURL, auth, method, path, body string) reply {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, strings.TrimSuffix(baseURL, "/v1")+path, r)
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
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return reply{resp.StatusCode, resp.Header, string(b)}
}

// jsonDiff compares two JSON texts as the values they hold; "" is no body.
func jsonDiff(t *testing.T, want, got string) string {
	t.Helper()
	if want == "" || got == "" {
		return cmp.Diff(want, got)
	}
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %s: %v", want, err)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		return "not JSON: " + got
	}
	return cmp.Diff(w, g)
}

// TestControlAPI runs a script's steps: each control request and API
// request answers as documented, and control requests are neither counted
// nor in the journal.
func TestControlAPI(t *testing.T) {
	t.Parallel()
	srv := newControlServer(t)
	const rex = `{"id":1,"name":"Rex","categoryId":1,"status":"available"}`
	const tomKiwi = `[{"id":10,"name":"Tom","categoryId":2},{"id":11,"name":"Kiwi","categoryId":3,"status":"sold"}]`
	const header = `{"Accept-Encoding":["gzip"],"User-Agent":["Go-http-client/1.1"]}`
	steps := []struct {
		method, path, body string
		wantStatus         int
		want               string // the answer's JSON, "" for none
		wantRequests       int    // srv.Requests() after the step
	}{
		{"GET", "/_fake/pets", "", 200, "[" + rex + "]", 0},
		{"GET", "/_fake/health", "", 200, `{"status":"ok"}`, 0},
		{"PUT", "/_fake/pets", `[{"id":10,"name":"Tom","categoryId":2},{"name":"Kiwi","categoryId":3,"status":"sold"}]`, 200, tomKiwi, 0},
		{"GET", "/v1/pets", "", 200, tomKiwi, 1},
		{"POST", "/_fake/faults", `{"op":"ListPets","status":503,"retryAfter":"1500ms"}`, 201,
			`{"op":"ListPets","count":1,"status":503,"retryAfter":"1.5s","delay":"0s","disconnect":false,"cutBody":false,"body":""}`, 1},
		{"POST", "/_fake/faults", ` {"op":"GetPet","count":3,"status":502,"body":"<html>bad gateway</html>","delay":"0s","cutBody":true} `, 201,
			`{"op":"GetPet","count":3,"status":502,"retryAfter":"0s","delay":"0s","disconnect":false,"cutBody":true,"body":"<html>bad gateway</html>"}`, 1},
		{"GET", "/v1/pets?limit=5", "", 503, `{"code":"service_unavailable","message":"fault injected by petstoretest","status":503}`, 2},
		{"DELETE", "/_fake/faults", "", 204, "", 2},
		{"GET", "/v1/pets/10", "", 200, `{"id":10,"name":"Tom","categoryId":2}`, 3}, // the GetPet fault is gone
		{"POST", "/v1/pets", `{"name":"Bella","categoryId":1}`, 201, `{"id":12,"name":"Bella","categoryId":1}`, 4},
		{"GET", "/_fake/requests", "", 200, `[
			{"operation":"ListPets","method":"GET","path":"/v1/pets","query":{},"header":` + header + `,"authorized":true,"body":"","status":200,"fault":false,"requestId":"req-1"},
			{"operation":"ListPets","method":"GET","path":"/v1/pets","query":{"limit":["5"]},"header":` + header + `,"authorized":true,"body":"","status":503,"fault":true,"requestId":"req-2"},
			{"operation":"GetPet","method":"GET","path":"/v1/pets/10","query":{},"header":` + header + `,"authorized":true,"body":"","status":200,"fault":false,"requestId":"req-3"},
			{"operation":"CreatePet","method":"POST","path":"/v1/pets","query":{},"header":{"Accept-Encoding":["gzip"],"Content-Length":["31"],"Content-Type":["application/json"],"User-Agent":["Go-http-client/1.1"]},"authorized":true,"body":"{\"name\":\"Bella\",\"categoryId\":1}","status":201,"fault":false,"requestId":"req-4"}
		]`, 4},
		{"POST", "/_fake/reset", "", 204, "", 0},
		{"GET", "/_fake/pets", "", 200, "[" + rex + "]", 0},
		{"GET", "/_fake/requests", "", 200, "[]", 0},
		{"POST", "/_fake/faults", `{"delay":"1h","disconnect":true}`, 201,
			`{"op":"","count":1,"status":0,"retryAfter":"0s","delay":"1h0m0s","disconnect":true,"cutBody":false,"body":""}`, 0},
		{"POST", "/_fake/reset", "", 204, "", 0},
		{"POST", "/v1/pets", `{"name":"Max","categoryId":1}`, 201, `{"id":2,"name":"Max","categoryId":1}`, 1}, // no fault, ids from the start
	}
	for i, s := range steps {
		got := call(t, srv.URL, "Bearer "+srv.APIKey, s.method, s.path, s.body)
		if got.status != s.wantStatus {
			t.Errorf("step %d, %s %s: status %d, want %d; body %s", i+1, s.method, s.path, got.status, s.wantStatus, got.body)
		}
		if diff := jsonDiff(t, s.want, got.body); diff != "" {
			t.Errorf("step %d, %s %s: answer mismatch (-want +got):\n%s", i+1, s.method, s.path, diff)
		}
		if ct := got.header.Get("Content-Type"); s.want != "" && ct != "application/json" {
			t.Errorf("step %d, %s %s: Content-Type %q, want application/json", i+1, s.method, s.path, ct)
		}
		if n := srv.Requests(); n != s.wantRequests {
			t.Errorf("step %d, %s %s: Requests() = %d, want %d", i+1, s.method, s.path, n, s.wantRequests)
		}
	}
}

// TestControlRefusals: a control request that is refused answers an Error
// body whose status is the HTTP status, and changes nothing: the animals,
// the journal, the request count and the pending faults are as they were.
func TestControlRefusals(t *testing.T) {
	t.Parallel()
	const bearer = "Bearer " // then the key
	tests := []struct {
		name         string
		auth         string // bearer: the server's key; other: as is
		method, path string
		body         string
		wantStatus   int
		wantCode     string
		wantMessage  string
		wantHeader   http.Header // among the answer's headers
	}{
		{"no key", "", "POST", "/_fake/reset", "", 401, "unauthorized", "missing API key: send Authorization: Bearer <key>, the API's",
			http.Header{"Www-Authenticate": {`Bearer realm="petstore"`}}},
		{"another key", "Bearer pst_other", "PUT", "/_fake/pets", "[]", 401, "unauthorized", "invalid API key", nil},
		{"the key without Bearer", "KEY", "DELETE", "/_fake/faults", "", 401, "unauthorized", "invalid API key", nil},
		{"no key on an unknown path", "", "GET", "/_fake/nope", "", 401, "unauthorized", "missing API key: send Authorization: Bearer <key>, the API's", nil},
		{"an unknown path", bearer, "GET", "/_fake/nope", "", 404, "not_found",
			"no such path: /_fake/nope; the control API has /_fake/faults, /_fake/health, /_fake/pets, /_fake/requests, /_fake/reset", nil},
		{"the root", bearer, "GET", "/_fake", "", 404, "not_found",
			"no such path: /_fake; the control API has /_fake/faults, /_fake/health, /_fake/pets, /_fake/requests, /_fake/reset", nil},
		{"a trailing slash", bearer, "POST", "/_fake/reset/", "", 404, "not_found",
			"no such path: /_fake/reset/; the control API has /_fake/faults, /_fake/health, /_fake/pets, /_fake/requests, /_fake/reset", nil},
		{"an escaped slash", bearer, "POST", "/_fake%2Freset", "", 404, "not_found",
			"no such path: /_fake%2Freset; the control API has /_fake/faults, /_fake/health, /_fake/pets, /_fake/requests, /_fake/reset", nil},
		{"a wrong method", bearer, "DELETE", "/_fake/pets", "", 405, "method_not_allowed", "DELETE is not allowed on /_fake/pets (allowed: GET, PUT)",
			http.Header{"Allow": {"GET, PUT"}}},
		{"GET faults", bearer, "GET", "/_fake/faults", "", 405, "method_not_allowed", "GET is not allowed on /_fake/faults (allowed: DELETE, POST)",
			http.Header{"Allow": {"DELETE, POST"}}},
		{"GET reset", bearer, "GET", "/_fake/reset", "", 405, "method_not_allowed", "GET is not allowed on /_fake/reset (allowed: POST)",
			http.Header{"Allow": {"POST"}}},
		{"health: another method, no key", "", "POST", "/_fake/health", "", 405, "method_not_allowed", "POST is not allowed on /_fake/health (allowed: GET)",
			http.Header{"Allow": {"GET"}}},
		{"health: a query", "", "GET", "/_fake/health?verbose=1", "", 400, "invalid_parameter", `the control API takes no query parameters, got "verbose=1"`, nil},
		{"a query", bearer, "GET", "/_fake/requests?op=ListPets", "", 400, "invalid_parameter", `the control API takes no query parameters, got "op=ListPets"`, nil},
		{"a body to reset", bearer, "POST", "/_fake/reset", `{"pets":[]}`, 400, "invalid_body", "POST /_fake/reset takes no body", nil},
		{"a body to DELETE", bearer, "DELETE", "/_fake/faults", `{"op":"ListPets"}`, 400, "invalid_body", "DELETE /_fake/faults takes no body", nil},
		{"animals: an object", bearer, "PUT", "/_fake/pets", `{"name":"Tom","categoryId":2}`, 400, "invalid_body",
			`want a JSON array of animals, such as [{"name": "Rex", "categoryId": 1}]`, nil},
		{"animals: no body", bearer, "PUT", "/_fake/pets", "", 400, "invalid_body", `want a JSON array of animals, such as [{"name": "Rex", "categoryId": 1}]`, nil},
		{"animals: bad JSON", bearer, "PUT", "/_fake/pets", `[{"name":"Tom",}]`, 400, "invalid_body", "invalid JSON: invalid character '}' looking for beginning of object key string", nil},
		{"animals: an unknown field", bearer, "PUT", "/_fake/pets", `[{"name":"Tom","categoryId":2},{"name":"Kiwi","categoryID":3}]`, 400, "invalid_body",
			`animal 2: json: unknown field "categoryID" (want id: integer, name: string, categoryId: integer, status: string)`, nil},
		{"animals: a negative id", bearer, "PUT", "/_fake/pets", `[{"name":"Tom","categoryId":2},{"id":-3,"name":"Kiwi","categoryId":3}]`, 400, "invalid_body",
			"animal 2: id -3 is negative (leave it out, or give 0, for the next free one)", nil},
		{"animals: an id twice", bearer, "PUT", "/_fake/pets", `[{"id":5,"name":"Tom","categoryId":2},{"id":5,"name":"Kiwi","categoryId":3}]`, 400, "invalid_body",
			"animal 2: id 5 is animal 1's already", nil},
		{"animals: no id left", bearer, "PUT", "/_fake/pets", `[{"id":9223372036854775807,"name":"Tom","categoryId":2},{"name":"Kiwi","categoryId":3}]`, 400, "invalid_body",
			"ID 9223372036854775807 leaves no id for the animals after it", nil},
		{"fault: not an object", bearer, "POST", "/_fake/faults", `[{"status":503}]`, 400, "invalid_body", `want a JSON object, such as {"op": "ListPets", "status": 503}`, nil},
		{"fault: an unknown field", bearer, "POST", "/_fake/faults", `{"status":503,"retry_after":"1s"}`, 400, "invalid_body", `invalid fault: json: unknown field "retry_after"`, nil},
		{"fault: data after it", bearer, "POST", "/_fake/faults", `{"status":503} {"status":500}`, 400, "invalid_body", "invalid fault: data after the object", nil},
		{"fault: a count as text", bearer, "POST", "/_fake/faults", `{"status":503,"count":"2"}`, 400, "invalid_body",
			"invalid fault: count is a JSON string, want an integer", nil},
		{"fault: seconds as a number", bearer, "POST", "/_fake/faults", `{"status":503,"retryAfter":30}`, 400, "invalid_body",
			"invalid fault: retryAfter is a JSON number, want a string", nil},
		{"fault: a duration without unit", bearer, "POST", "/_fake/faults", `{"status":503,"retryAfter":"30"}`, 400, "invalid_body",
			`retryAfter "30" is not a duration such as 500ms, 2s or 1m`, nil},
		{"fault: a negative delay", bearer, "POST", "/_fake/faults", `{"delay":"-1s"}`, 400, "invalid_body", `delay "-1s" is not a duration such as 500ms, 2s or 1m`, nil},
		{"fault: a success status", bearer, "POST", "/_fake/faults", `{"status":200}`, 400, "invalid_body", "Status 200 is not an error status (400..599)", nil},
		{"fault: an unknown op", bearer, "POST", "/_fake/faults", `{"op":"listPets","status":503}`, 400, "invalid_body",
			`unknown Operation "listPets"; want ListPets, CreatePet, GetPet or empty`, nil},
		{"fault: a negative count", bearer, "POST", "/_fake/faults", `{"count":-1,"status":503}`, 400, "invalid_body", "negative Count, Delay or RetryAfter", nil},
		{"fault: disconnect with a status", bearer, "POST", "/_fake/faults", `{"status":503,"disconnect":true}`, 400, "invalid_body",
			"Disconnect sends nothing: it cannot go with Status, Body or CutBody", nil},
		{"fault: nothing to do", bearer, "POST", "/_fake/faults", `{"op":"ListPets"}`, 400, "invalid_body", "a Fault needs a Status, a Delay, Disconnect or CutBody", nil},
		{"fault: too large", bearer, "POST", "/_fake/faults", `{"status":503,"body":"` + strings.Repeat("x", maxControlBody) + `"}`, 400, "invalid_body", "body is larger than 10 MiB", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newControlServer(t)
			srv.InjectFault(petstoretest.Fault{Operation: "ListPets", Status: http.StatusTeapot})
			call(t, srv.URL, "Bearer "+srv.APIKey, "GET", "/v1/pets/1", "") // a journal entry
			journal := srv.Received()

			auth := strings.Replace(tc.auth, "KEY", srv.APIKey, 1)
			if tc.auth == bearer {
				auth = bearer + srv.APIKey
			}
			got := call(t, srv.URL, auth, tc.method, tc.path, tc.body)
			want := errorBody{Code: tc.wantCode, Message: tc.wantMessage, Status: tc.wantStatus}
			var body errorBody
			if err := json.Unmarshal([]byte(got.body), &body); err != nil || got.status != tc.wantStatus {
				t.Fatalf("status %d, body %q (%v); want %d and an Error body", got.status, got.body, err, tc.wantStatus)
			}
			if diff := cmp.Diff(want, body); diff != "" {
				t.Errorf("Error body mismatch (-want +got):\n%s", diff)
			}
			for k, v := range tc.wantHeader {
				if diff := cmp.Diff(v, got.header[k]); diff != "" {
					t.Errorf("header %s mismatch (-want +got):\n%s", k, diff)
				}
			}

			if diff := cmp.Diff(startPets, srv.Pets()); diff != "" {
				t.Errorf("animals changed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(journal, srv.Received()); diff != "" {
				t.Errorf("journal changed (-want +got):\n%s", diff)
			}
			if n := srv.Requests(); n != 1 {
				t.Errorf("Requests() = %d, want 1", n)
			}
			// The pending fault answers the next ListPets, and no other does.
			for _, wantStatus := range []int{http.StatusTeapot, http.StatusOK} {
				if got := call(t, srv.URL, "Bearer "+srv.APIKey, "GET", "/v1/pets", ""); got.status != wantStatus {
					t.Errorf("GET /v1/pets after: %d, want %d (faults changed)", got.status, wantStatus)
				}
			}
		})
	}
}

// testControlProgram: the control API of the built program steers it as a
// script would, its requests are logged, and the animals GET /_fake/pets
// answers, fed back as -pets, start another fake with the same animals.
func testControlProgram(t *testing.T, bin string) {
	f := startFake(t, bin, "-addr", "127.0.0.1:0", "-pets", "testdata/pets.json")
	baseURL, key := f.exports(t)
	auth := "Bearer " + key
	want := func(got reply, status int, body string) {
		t.Helper()
		if got.status != status {
			t.Errorf("status %d, want %d; body %s", got.status, status, got.body)
		}
		if diff := jsonDiff(t, body, got.body); diff != "" {
			t.Errorf("answer mismatch (-want +got):\n%s", diff)
		}
	}

	// A 503 on ListPets, which the SDK retries.
	want(call(t, baseURL, auth, "POST", "/_fake/faults", `{"op":"ListPets","status":503}`), 201,
		`{"op":"ListPets","count":1,"status":503,"retryAfter":"0s","delay":"0s","disconnect":false,"cutBody":false,"body":""}`)
	if _, err := newSDKClient(t, baseURL, key).ListPets(context.Background(), petstore.ListPetsParams{}); err != nil {
		t.Errorf("ListPets: %v", err)
	}
	got := call(t, baseURL, auth, "GET", "/_fake/requests", "")
	var journal []struct{ Operation, RequestID string }
	if err := json.Unmarshal([]byte(got.body), &journal); err != nil {
		t.Fatalf("GET /_fake/requests: %v: %s", err, got.body)
	}
	if diff := cmp.Diff([]struct{ Operation, RequestID string }{{"ListPets", "req-1"}, {"ListPets", "req-2"}}, journal); diff != "" {
		t.Errorf("journal mismatch (-want +got):\n%s", diff)
	}

	// New animals, with and without ids; fed back to another fake.
	const pets = `[{"id":1,"name":"Max","categoryId":2},{"id":7,"name":"Rex","categoryId":1,"status":"sold"},{"id":8,"name":"Tom","categoryId":2}]`
	want(call(t, baseURL, auth, "PUT", "/_fake/pets", `[{"id":7,"name":"Rex","categoryId":1,"status":"sold"},{"name":"Tom","categoryId":2},{"id":1,"name":"Max","categoryId":2}]`), 200, pets)
	file := filepath.Join(t.TempDir(), "pets.json")
	if err := os.WriteFile(file, []byte(call(t, baseURL, auth, "GET", "/_fake/pets", "").body), 0o600); err != nil {
		t.Fatal(err)
	}
	f2 := startFake(t, bin, "-addr", "127.0.0.1:0", "-pets", file)
	baseURL2, key2 := f2.exports(t)
	want(call(t, baseURL2, "Bearer "+key2, "GET", "/_fake/pets", ""), 200, pets)
	want(call(t, baseURL2, "Bearer "+key2, "GET", "/v1/pets", ""), 200, pets)
	f2.stop(t)

	// Back to the -pets animals; a refused request.
	want(call(t, baseURL, auth, "POST", "/_fake/reset", ""), 204, "")
	want(call(t, baseURL, auth, "GET", "/_fake/pets", ""), 200,
		`[{"id":1,"name":"Rex","categoryId":1,"status":"available"},{"id":2,"name":"Tom","categoryId":2,"status":"pending"},{"id":3,"name":"Kiwi","categoryId":3}]`)
	want(call(t, baseURL, "", "GET", "/_fake/requests", ""), 401,
		`{"code":"unauthorized","message":"missing API key: send Authorization: Bearer <key>, the API's","status":401}`)
	f.stop(t)

	wantLog := []string{"POST /_fake/faults 201", "GET /v1/pets 503", "GET /v1/pets 200", "GET /_fake/requests 200",
		"PUT /_fake/pets 200", "GET /_fake/pets 200", "POST /_fake/reset 204", "GET /_fake/pets 200", "GET /_fake/requests 401"}
	if diff := cmp.Diff(wantLog, f.requests()); diff != "" {
		t.Errorf("requests on stderr mismatch (-want +got):\n%s", diff)
	}
}

// TestHealth: GET /_fake/health answers 200 {"status":"ok"} with no key or
// any key, and is neither counted nor in the journal; every other control
// path still needs the key (TestControlRefusals).
func TestHealth(t *testing.T) {
	t.Parallel()
	srv := newControlServer(t)
	for _, auth := range []string{"", "Bearer pst_other", "Bearer " + srv.APIKey} {
		got := call(t, srv.URL, auth, "GET", "/_fake/health", "")
		if got.status != http.StatusOK || got.body != `{"status":"ok"}`+"\n" || got.header.Get("Content-Type") != "application/json" {
			t.Errorf("GET /_fake/health with Authorization %q: %d %q (%s), want 200 {\"status\":\"ok\"}", auth, got.status, got.body, got.header.Get("Content-Type"))
		}
	}
	if n, reqs := srv.Requests(), srv.Received(); n != 0 || len(reqs) != 0 {
		t.Errorf("Requests() = %d, Received() = %v; want none", n, reqs)
	}
}

// writeRecorder is a ResponseWriter that keeps what is written and the
// size of the largest single Write.
type writeRecorder struct {
	header  http.Header
	status  int
	body    strings.Builder
	largest int
}

func (w *writeRecorder) Header() http.Header  { return w.header }
func (w *writeRecorder) WriteHeader(code int) { w.status = code }
func (w *writeRecorder) Write(b []byte) (int, error) {
	w.largest = max(w.largest, len(b))
	return w.body.Write(b)
}

// TestJournalStreams: GET /_fake/requests writes its answer an entry at a
// time (no Write larger than one entry, a 64 KiB body at most), and the
// answer is the journal, as JSON.
func TestJournalStreams(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 20} {
		srv := newControlServer(t)
		body := strings.Repeat("a", 100<<10) // 64 KiB kept
		for range n {
			call(t, srv.URL, "", "POST", "/v1/pets", body)
		}
		w := &writeRecorder{header: http.Header{}}
		req := httptest.NewRequest("GET", "/_fake/requests", nil)
		req.Header.Set("Authorization", "Bearer "+srv.APIKey)
		srv.Config.Handler.ServeHTTP(w, req)
		if w.status != http.StatusOK || w.header.Get("Content-Type") != "application/json" {
			t.Errorf("%d entries: status %d, Content-Type %q; want 200, application/json", n, w.status, w.header.Get("Content-Type"))
		}
		var got []requestJSON
		if err := json.Unmarshal([]byte(w.body.String()), &got); err != nil || len(got) != n {
			t.Fatalf("%d entries: answer of %d bytes: %d entries, %v", n, w.body.Len(), len(got), err)
		}
		if n > 0 && got[n-1].Body != body[:64<<10] {
			t.Errorf("%d entries: the last body has %d bytes, want the first 64 KiB", n, len(got[n-1].Body))
		}
		if w.largest > 66<<10 {
			t.Errorf("%d entries: a Write of %d bytes, want one entry (64 KiB of body and a little more) at most", n, w.largest)
		}
	}
}
