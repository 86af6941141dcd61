package petstoretest_test

import (
	"context"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

// send sends a raw request to srv's URL + path with the given headers, and
// reads and closes the answer.
func send(t *testing.T, srv *petstoretest.Server, method, path, body string, header http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	resp.Body.Close()
}

func TestReceived(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	auth := "Bearer " + srv.APIKey
	srv.InjectFault(petstoretest.Fault{Operation: "GetPet", Status: 503})
	send(t, srv, "GET", "/pets?limit=2&status=sold&status=x", "", http.Header{"Authorization": {auth}, "User-Agent": {"test"}, "X-Trace": {"a", "b"}})
	send(t, srv, "POST", "/pets", `{"name":""}`, http.Header{"User-Agent": {"test"}})
	send(t, srv, "POST", "/pets", `{"name":"Bella","categoryId":7}`, http.Header{"Authorization": {"Bearer wrong"}, "User-Agent": {"test"}})
	send(t, srv, "GET", "/pets/sk%2FKey", "", http.Header{"Authorization": {auth}, "User-Agent": {"test"}})
	send(t, srv, "DELETE", "/pets", "", http.Header{"Authorization": {auth}, "User-Agent": {"test"}})

	h := func(kv ...string) http.Header {
		h := http.Header{"User-Agent": {"test"}, "Accept-Encoding": {"gzip"}}
		for i := 0; i < len(kv); i += 2 {
			h[kv[i]] = append(h[kv[i]], kv[i+1])
		}
		return h
	}
	want := []petstoretest.Request{
		{Operation: "ListPets", Method: "GET", Path: "/v1/pets", Query: url.Values{"limit": {"2"}, "status": {"sold", "x"}},
			Header: h("X-Trace", "a", "X-Trace", "b"), Authorized: true, Body: []byte{}, Status: 200, RequestID: "req-1"},
		{Operation: "CreatePet", Method: "POST", Path: "/v1/pets", Query: url.Values{},
			Header: h("Content-Length", "11"), Body: []byte(`{"name":""}`), Status: 401, RequestID: "req-2"},
		{Operation: "CreatePet", Method: "POST", Path: "/v1/pets", Query: url.Values{},
			Header: h("Content-Length", "31"), Body: []byte(`{"name":"Bella","categoryId":7}`), Status: 401, RequestID: "req-3"},
		{Operation: "GetPet", Method: "GET", Path: "/v1/pets/sk%2FKey", Query: url.Values{},
			Header: h(), Authorized: true, Body: []byte{}, Status: 503, Fault: true, RequestID: "req-4"},
		{Method: "DELETE", Path: "/v1/pets", Query: url.Values{},
			Header: h(), Authorized: true, Body: []byte{}, Status: 405, RequestID: "req-5"},
	}
	if diff := cmp.Diff(want, srv.Received()); diff != "" {
		t.Errorf("Received() mismatch (-want +got):\n%s", diff)
	}
}

// TestReceivedIsACopy changes everything Received returned, and finds the
// journal as it was.
func TestReceivedIsACopy(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	send(t, srv, "POST", "/pets?x=1", `{"name":"A","categoryId":1}`, http.Header{"X-A": {"1"}})
	first := srv.Received()
	want := srv.Received()
	first[0].Query["x"][0] = "changed"
	first[0].Header["X-A"][0] = "changed"
	first[0].Body[0] = '!'
	first[0].Status = 1
	if diff := cmp.Diff(want, srv.Received()); diff != "" {
		t.Errorf("Received() after changing a copy (-want +got):\n%s", diff)
	}
}

// TestReceivedKeepsTheFirstMiB: a body over 1 MiB is refused, and the
// journal keeps its first 1 MiB.
func TestReceivedKeepsTheFirstMiB(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	body := `{"name":"` + strings.Repeat("a", 1<<20) + `","categoryId":1}`
	got := do(t, srv, "POST", "/pets", "Bearer "+srv.APIKey, body)
	if diff := cmp.Diff(errBody(400, "invalid_body", "body is larger than 1 MiB"), got.Body); diff != "" {
		t.Errorf("answer mismatch (-want +got):\n%s", diff)
	}
	r := srv.Received()[0]
	if len(r.Body) != 1<<20 || string(r.Body) != body[:1<<20] {
		t.Errorf("journal Body: %d bytes, want the first %d of the request", len(r.Body), 1<<20)
	}
}

// TestReceivedBeforeTheAnswer: whatever the answer (a normal one, an error,
// a fault's, one cut short, none), the request is in the journal with its
// Status by the time the client has it, over both protocols.
func TestReceivedBeforeTheAnswer(t *testing.T) {
	t.Parallel()
	faults := []struct {
		name  string
		fault *petstoretest.Fault
		op    string
		want  seen
	}{
		{"normal", nil, "ListPets", seen{"ListPets", 200, false}},
		{"created", nil, "CreatePet", seen{"CreatePet", 201, false}},
		{"503", &petstoretest.Fault{Status: 503}, "GetPet", seen{"GetPet", 503, true}},
		{"cut body", &petstoretest.Fault{CutBody: true}, "CreatePet", seen{"CreatePet", 201, true}},
		{"disconnect", &petstoretest.Fault{Disconnect: true}, "CreatePet", seen{"CreatePet", 0, true}},
	}
	for _, proto := range protocols {
		for _, tc := range faults {
			t.Run(proto.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv, opts := startServer(t, proto.tls)
				if tc.fault != nil {
					srv.InjectFault(*tc.fault)
				}
				c, err := petstore.NewClient(srv.APIKey, append(opts, petstore.WithMaxRetries(0))...)
				if err != nil {
					t.Fatal(err)
				}
				callOp(c, tc.op) // the error, if any, is the fault's
				if diff := cmp.Diff([]seen{tc.want}, journal(srv)); diff != "" {
					t.Errorf("journal once the call returned (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestReceivedDuringAStall: a request a Delay holds is in the journal while
// it stalls, with Status 0; a client giving up leaves it at 0.
func TestReceivedDuringAStall(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.InjectFault(petstoretest.Fault{Delay: 1 << 62, Status: 503})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := newClient(t, srv, petstore.WithMaxRetries(0)).ListPets(ctx, petstore.ListPetsParams{})
		done <- err
	}()
	for len(srv.Received()) == 0 {
		runtime.Gosched() // until the server has the request: no deadline to miss
	}
	if diff := cmp.Diff([]seen{{"ListPets", 0, true}}, journal(srv)); diff != "" {
		t.Errorf("journal during the stall (-want +got):\n%s", diff)
	}
	cancel()
	<-done
	if diff := cmp.Diff([]seen{{"ListPets", 0, true}}, journal(srv)); diff != "" {
		t.Errorf("journal after the client gave up (-want +got):\n%s", diff)
	}
}
