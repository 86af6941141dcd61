package petstoretest_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/internal/fakehook"
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

// TestReceivedKeepsTheFirst64KiB: the journal keeps the first 64 KiB of a
// body, whatever the answer; the fake still reads up to 1 MiB of an
// authorized POST /pets, and refuses a larger one.
func TestReceivedKeepsTheFirst64KiB(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		auth   bool
		size   int // of the name
		status int
	}{
		{"created, 500 KiB", true, 500 << 10, 201},
		{"too large", true, 1 << 20, 400},
		{"refused, 500 KiB", false, 500 << 10, 401},
		{"created, small", true, 10, 201},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			body := `{"name":"` + strings.Repeat("a", tc.size) + `","categoryId":1}`
			auth := "Bearer wrong"
			if tc.auth {
				auth = "Bearer " + srv.APIKey
			}
			got := do(t, srv, "POST", "/pets", auth, body)
			if got.Status != tc.status {
				t.Errorf("status %d, want %d; body %v", got.Status, tc.status, got.Body)
			}
			if tc.status == 201 && len(srv.Created()[0].Name) != tc.size {
				t.Errorf("created a name of %d bytes, want %d", len(srv.Created()[0].Name), tc.size)
			}
			want := body[:min(len(body), 64<<10)]
			if r := srv.Received()[0]; string(r.Body) != want {
				t.Errorf("journal Body: %d bytes, want the first %d of the request", len(r.Body), len(want))
			}
		})
	}
}

// TestJournalBounds: past MaxJournalEntries or MaxJournalBytes, the oldest
// entries go first; the newest stays even alone over MaxJournalBytes; 0
// entries keeps none. Requests() still counts them all.
func TestJournalBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		entries int
		bytes   int
		bodies  []int // sizes of the bodies sent, in order
		want    []int // sizes of the bodies kept, oldest first
	}{
		{"entries", 3, 32 << 20, []int{1, 2, 3, 4, 5}, []int{3, 4, 5}},
		{"bytes", 100, 150 << 10, []int{20 << 10, 40 << 10, 50 << 10, 60 << 10}, []int{50 << 10, 60 << 10}},
		{"one over the bytes", 100, 1 << 10, []int{10, 20 << 10}, []int{20 << 10}},
		{"bodies cut to 64 KiB before they count", 100, 140 << 10, []int{100 << 10, 100 << 10}, []int{64 << 10, 64 << 10}},
		{"no entry", 0, 32 << 20, []int{1, 2}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := petstoretest.NewUnstartedServer()
			srv.MaxJournalEntries, srv.MaxJournalBytes = tc.entries, tc.bytes
			srv.Start()
			t.Cleanup(srv.Close)
			for _, n := range tc.bodies {
				do(t, srv, "POST", "/pets", "", strings.Repeat("a", n))
			}
			var got []int
			for _, r := range srv.Received() {
				got = append(got, len(r.Body))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("bodies kept mismatch (-want +got):\n%s", diff)
			}
			if got, want := srv.Requests(), len(tc.bodies); got != want {
				t.Errorf("Requests() = %d, want %d", got, want)
			}
		})
	}
}

func TestJournalBoundDefaults(t *testing.T) {
	t.Parallel()
	srv := petstoretest.NewUnstartedServer()
	defer srv.Close()
	if srv.MaxJournalEntries != 10_000 || srv.MaxJournalBytes != 32<<20 {
		t.Errorf("MaxJournalEntries, MaxJournalBytes = %d, %d; want 10000, 32 MiB", srv.MaxJournalEntries, srv.MaxJournalBytes)
	}
}

// TestJournalHeap sends 300 POSTs of 1 MiB without the key, all refused,
// and reads the journal: the heap the server keeps stays far below what
// the bodies weigh (300 MiB), under 64 MiB, and the server does not
// allocate a refused body beyond the part it keeps. Not parallel: it
// measures the process's heap, while the parallel tests wait.
func TestJournalHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 300 MiB")
	}
	srv := petstoretest.NewServer()
	defer srv.Close()
	body := bytes.Repeat([]byte("a"), 1<<20)
	before := heap()
	for range 300 {
		req, err := http.NewRequest("POST", srv.URL+"/pets", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("status %d, want 401", resp.StatusCode)
		}
	}
	reqs := srv.Received()
	after := heap()
	if len(reqs) != 300 || len(reqs[299].Body) != 64<<10 {
		t.Fatalf("journal: %d entries, the last with %d bytes of body; want 300, 64 KiB", len(reqs), len(reqs[len(reqs)-1].Body))
	}
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("300 refused 1 MiB POSTs, journal read: heap %.1f MiB more (the copy included), %.1f MiB allocated in all",
		float64(held)/(1<<20), float64(allocated)/(1<<20))
	if held > 64<<20 {
		t.Errorf("heap grew by %d MiB, want under 64 MiB", held>>20)
	}
	// Each refused body costs its kept 64 KiB and the copy Received makes,
	// not the 1 MiB (and more, as a buffer grows) of reading it whole.
	if perRequest := allocated / 300; perRequest > 512<<10 {
		t.Errorf("%d KiB allocated per refused 1 MiB request, want under 512 KiB", perRequest>>10)
	}
	runtime.KeepAlive(reqs)
}

// hostile returns a request of method GET to /v1/pets with the query
// a&a&... of about queryBytes bytes (one name, one empty value a pair)
// and emptyValues empty values of the header X-A, as its text.
func hostile(queryBytes, emptyValues int) string {
	var b strings.Builder
	b.WriteString("GET /v1/pets?" + strings.Repeat("a&", queryBytes/2) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n")
	b.WriteString(strings.Repeat("X-A:\r\n", emptyValues))
	b.WriteString("\r\n")
	return b.String()
}

// TestJournalKeepsHostileRequests: a request of many small parts is in the
// journal as it was sent, its parts counted.
func TestJournalKeepsHostileRequests(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for _, text := range []string{hostile(1<<10, 256), hostile(8<<10, 0), hostile(0, 4096)} {
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(text)))
		if err != nil {
			t.Fatal(err)
		}
		srv.Config.Handler.ServeHTTP(httptest.NewRecorder(), r)
	}
	type parts struct{ Path, Values, Headers int }
	var got []parts
	for _, r := range srv.Received() {
		got = append(got, parts{len(r.Path), len(r.Query["a"]), len(r.Header["X-A"])})
	}
	want := []parts{{8, 512, 256}, {8, 4096, 0}, {8, 0, 4096}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("journal mismatch (-want +got):\n%s", diff)
	}
}

// TestJournalHeapHostile serves requests of many small parts, read from
// their text as net/http's server reads them (so the method and path the
// journal gets point into the request line), and measures the heap the
// journal keeps: within MaxJournalBytes (32 MiB) and a bounded overhead,
// whatever the parts, and back near nothing after Reset. Each query a&a&...
// or empty header value costs what it keeps. Not parallel: it measures
// the process's heap, while the parallel tests wait.
func TestJournalHeapHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("keeps 32 MiB several times")
	}
	tests := []struct {
		name     string
		requests int
		text     string
	}{
		{"10,000 requests of a 512-byte query a&a&... and 128 empty header values", 10_000, hostile(512, 128)},
		{"60 queries of 1 MB", 60, hostile(1<<20, 0)},
		{"16 requests of 190,000 empty header values", 16, hostile(0, 190_000)},
	}
	const bound = 32<<20 + 2<<20 // MaxJournalBytes, and the journal's array
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := petstoretest.NewUnstartedServer()
			defer srv.Close()
			before := heap()
			for range tc.requests {
				r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(tc.text)))
				if err != nil {
					t.Fatal(err)
				}
				w := httptest.NewRecorder()
				srv.Config.Handler.ServeHTTP(w, r)
				if w.Code != http.StatusUnauthorized {
					t.Fatalf("status %d, want 401", w.Code)
				}
			}
			held := int64(heap().HeapAlloc) - int64(before.HeapAlloc)
			t.Logf("%s: the journal keeps %.1f MiB", tc.name, float64(held)/(1<<20))
			if held > bound {
				t.Errorf("heap grew by %.1f MiB, want at most %d MiB", float64(held)/(1<<20), bound>>20)
			}
			if n := srv.Requests(); n != tc.requests {
				t.Fatalf("Requests() = %d, want %d", n, tc.requests)
			}
			srv.Reset()
			if held := int64(heap().HeapAlloc) - int64(before.HeapAlloc); held > 1<<20 {
				t.Errorf("heap after Reset %.1f MiB over the start, want under 1 MiB", float64(held)/(1<<20))
			}
		})
	}
}

// heap returns the memory statistics after a garbage collection.
func heap() runtime.MemStats {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
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

// TestJournalWalk: a request whose context carries a fakehook.Walk gets
// the journal's entries, oldest first, and no answer; it is not recorded.
func TestJournalWalk(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	send(t, srv, "POST", "/pets", `{"name":"A","categoryId":1}`, http.Header{"Authorization": {"Bearer " + srv.APIKey}})
	send(t, srv, "GET", "/pets/9", "", nil)
	send(t, srv, "GET", "/pets", "", nil)
	tests := []struct {
		name string
		stop int // the walk returns false at this entry
		want []string
	}{
		{"all", 0, []string{"req-1 201", "req-2 401", "req-3 401"}},
		{"stopped", 2, []string{"req-1 201", "req-2 401"}},
	}
	for _, tc := range tests {
		var got []string
		walk := fakehook.Walk(func(e any) bool {
			r := e.(petstoretest.Request)
			got = append(got, r.RequestID+" "+strconv.Itoa(r.Status))
			return len(got) != tc.stop
		})
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/_fake/requests", nil)
		srv.Config.Handler.ServeHTTP(rec, req.WithContext(fakehook.WithWalk(req.Context(), walk)))
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: entries walked mismatch (-want +got):\n%s", tc.name, diff)
		}
		if rec.Body.Len() > 0 || len(rec.Header()) > 0 {
			t.Errorf("%s: the walk answered %q %v, want nothing", tc.name, rec.Body, rec.Header())
		}
	}
	if got := len(srv.Received()); got != 3 {
		t.Errorf("%d requests in the journal after the walks, want 3", got)
	}
}
