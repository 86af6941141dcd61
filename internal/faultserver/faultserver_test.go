package faultserver_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go/internal/faultserver"
	"github.com/petstore/petstore-go/internal/h2fault"
	"github.com/petstore/petstore-go/internal/leakcheck"
	"github.com/petstore/petstore-go/internal/transport"
)

// Self-tests of the fault server, with net/http's own client: what it
// answers for each kind of fault, and what it records.

// TestMain fails the package if a test leaves a goroutine behind: a
// stalled handler, a connection of the server still running.
func TestMain(m *testing.M) { os.Exit(leakcheck.Run(m, os.Stderr)) }

const key = "pk_test_faultserver"

// firstOnly is a plan that serves f to the first request of every key,
// and answers the others normally.
func firstOnly(f faultserver.Fault) faultserver.Plan {
	return func(_ string, n int) faultserver.Fault {
		if n == 0 {
			return f
		}
		return faultserver.Fault{}
	}
}

// client is a net/http client that trusts the HTTP/2 server's certificate,
// follows no redirect, and keeps no connection once the test ends.
func client(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: h2fault.CertPool()}, ForceAttemptHTTP2: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// get sends GET url with the key and tag as its AttemptHeader, and returns
// the status and body, or the error of the request or of reading the body.
// With giveUp (for a stall), it gives up 100 ms after the request is
// written, however slow the machine: a minute before the server answers.
func get(t *testing.T, c *http.Client, url, tag string, giveUp bool) (int, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if giveUp {
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
			time.AfterFunc(100*time.Millisecond, cancel)
		}})
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set(faultserver.AttemptHeader, tag)
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// TestEachKindOverHTTP1 serves a GetPet each kind of fault that HTTP/1.1
// can carry, and checks the answer and the server's records.
func TestEachKindOverHTTP1(t *testing.T) {
	t.Parallel()
	tests := []struct {
		f          faultserver.Fault
		wantStatus int  // 0: no response, or a body that fails to read
		wantBody   bool // the body is the pet the server holds
	}{
		{faultserver.Fault{Kind: faultserver.None}, 200, true},
		{faultserver.Fault{Kind: faultserver.Status429}, 429, false},
		{faultserver.Fault{Kind: faultserver.Status429RetryAfter}, 429, false},
		{faultserver.Fault{Kind: faultserver.Status429RetryAfterLong}, 429, false},
		{faultserver.Fault{Kind: faultserver.Status5xxJSON, Status: 503}, 503, false},
		{faultserver.Fault{Kind: faultserver.Status5xxHTML, Status: 502}, 502, false},
		{faultserver.Fault{Kind: faultserver.ResetBeforeHeaders}, 0, false},
		{faultserver.Fault{Kind: faultserver.ResetAfterHeaders}, 0, false},
		{faultserver.Fault{Kind: faultserver.TruncatedBody}, 0, false},
		{faultserver.Fault{Kind: faultserver.Stall}, 0, false},
		{faultserver.Fault{Kind: faultserver.Malformed}, 0, false},
		{faultserver.Fault{Kind: faultserver.OtherStatus, Status: 404}, 404, false},
		{faultserver.Fault{Kind: faultserver.Redirect, Status: 307}, 307, false},
		{faultserver.Fault{Kind: faultserver.Oversize}, 200, false},
		{faultserver.Fault{Kind: faultserver.BadBody}, 200, false},
	}
	for _, tc := range tests {
		t.Run(tc.f.String(), func(t *testing.T) {
			t.Parallel()
			srv := faultserver.New(t, key, firstOnly(tc.f))
			status, body, err := get(t, client(t), srv.URL+"/v1/pets/7", "call/1", tc.f.Kind == faultserver.Stall)
			srv.Close() // waits for the handler: the records are final
			switch {
			case tc.wantStatus == 0 && err == nil:
				t.Errorf("got %d %q; want an error", status, body)
			case tc.wantStatus != 0 && (err != nil || status != tc.wantStatus):
				t.Errorf("got %d, %v; want %d", status, err, tc.wantStatus)
			case tc.f.Kind == faultserver.Oversize && len(body) <= transport.MaxSuccessBody:
				t.Errorf("body of %d bytes; want over %d", len(body), transport.MaxSuccessBody)
			case tc.wantBody:
				var got faultserver.Pet
				if err := json.Unmarshal(body, &got); err != nil || got != *faultserver.PetFor(7) {
					t.Errorf("body %q, %v; want %+v", body, err, faultserver.PetFor(7))
				}
			}
			served := srv.ServedTo("call/1")
			if len(served) != 1 || served[0].Kind != tc.f.Kind || served[0].Conn == "" {
				t.Errorf("served %v; want %v once, with its connection", served, tc.f)
			}
			var want [faultserver.NumKinds]int
			want[tc.f.Kind] = 1
			if got := srv.Injected(); got != want || srv.Requests() != 1 {
				t.Errorf("injected %v in %d requests; want %v in 1", got, srv.Requests(), want)
			}
		})
	}
}

// TestCreatePetStores checks that a CreatePet stores its animal when the
// fault says it acted, and not otherwise.
func TestCreatePetStores(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind   faultserver.Kind
		stores bool
	}{
		{faultserver.None, true},
		{faultserver.Status429, false},
		{faultserver.Status429RetryAfter, false},
		{faultserver.Status5xxJSON, true}, // as a server that fails after committing
		{faultserver.ResetBeforeHeaders, true},
	}
	for _, tc := range tests {
		t.Run(tc.kind.String(), func(t *testing.T) {
			t.Parallel()
			f := faultserver.Fault{Kind: tc.kind, Status: 500}
			srv := faultserver.New(t, key, firstOnly(f))
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/pets", strings.NewReader(`{"name":"Rex","categoryId":2}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+key)
			var got faultserver.Pet
			status := 0
			if resp, err := client(t).Do(req); err == nil {
				status = resp.StatusCode
				json.NewDecoder(resp.Body).Decode(&got)
				resp.Body.Close()
			}
			srv.Close()
			stored := srv.StoredAs("Rex")
			if (len(stored) == 1) != tc.stores || len(stored) > 1 || f.Stores() != tc.stores {
				t.Fatalf("stored %v after %v (Stores: %v); want stored: %v", stored, f, f.Stores(), tc.stores)
			}
			if tc.kind == faultserver.None {
				want := faultserver.Pet{ID: stored[0].ID, Name: "Rex", CategoryID: 2, Status: "available"}
				if d := cmp.Diff(want, got); status != http.StatusCreated || d != "" {
					t.Errorf("status %d, body (-want +got):\n%s", status, d)
				}
			}
		})
	}
}

// TestGoAwayAfterCutsTheConnection serves a processed GET over HTTP/2 a
// GOAWAY that includes it, and closes the connection: net/http does not
// send it again (the server may have processed it), and the server records
// the connection as cut.
func TestGoAwayAfterCutsTheConnection(t *testing.T) {
	t.Parallel()
	srv := faultserver.NewH2(t, key, func(_ string, n int) faultserver.Fault {
		if n == 0 {
			return faultserver.Fault{Kind: faultserver.H2GoAwayAfter}
		}
		return faultserver.Fault{}
	})
	status, _, err := get(t, client(t), srv.URL+"/v1/pets?limit=3", "call/1", false)
	srv.Close()
	if err == nil || !strings.Contains(err.Error(), "GOAWAY") {
		t.Fatalf("got %d, %v; want the GOAWAY's error", status, err)
	}
	served := srv.ServedTo("call/1")
	if len(served) != 1 || served[0].Kind != faultserver.H2GoAwayAfter {
		t.Fatalf("served %v; want the GOAWAY only", served)
	}
	if !srv.WasCut(served[0]) {
		t.Error("the connection of the GOAWAY is not recorded as cut")
	}
	if srv.Conns() != 1 {
		t.Errorf("%d connections; want 1", srv.Conns())
	}
}

// TestSeededPlan checks that a plan is a function of its seed, key and n,
// and gives only the kinds of its weights, a 5xx one of the four statuses.
func TestSeededPlan(t *testing.T) {
	t.Parallel()
	var weights [faultserver.NumKinds]int
	weights[faultserver.Status5xxJSON] = 50
	plan, again, other := faultserver.SeededPlan(1, &weights), faultserver.SeededPlan(1, &weights), faultserver.SeededPlan(2, &weights)
	counts := map[faultserver.Kind]int{}
	statuses := map[int]bool{}
	differs := false
	for n := range 1000 {
		k := faultserver.GetKey(int64(n % 10))
		f := plan(k, n)
		if f != again(k, n) {
			t.Fatalf("seed 1 gave %v, then %v, for (%q, %d)", f, again(k, n), k, n)
		}
		differs = differs || f != other(k, n)
		counts[f.Kind]++
		if f.Kind == faultserver.Status5xxJSON {
			statuses[f.Status] = true
		}
	}
	if len(counts) != 2 || counts[faultserver.None] < 400 || counts[faultserver.Status5xxJSON] < 400 {
		t.Errorf("kinds %v over 1,000 requests; want None and 5xx JSON, about 500 each", counts)
	}
	if d := cmp.Diff(map[int]bool{500: true, 502: true, 503: true, 504: true}, statuses); d != "" {
		t.Errorf("5xx statuses (-want +got):\n%s", d)
	}
	if !differs {
		t.Error("seeds 1 and 2 gave the same plan")
	}
}
