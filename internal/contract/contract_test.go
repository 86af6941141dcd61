package contract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

// TestContract runs flows through the SDK and raw requests to the fake, all
// checked against the description, then checks that every documented
// response of every operation was seen.
func TestContract(t *testing.T) {
	t.Parallel()
	var cov coverage
	// Not parallel, these two, so that cov is complete when checked below;
	// their subtests are.
	t.Run("sdk", func(t *testing.T) { testSDKFlows(t, &cov) })
	t.Run("fake", func(t *testing.T) { testFakeRequests(t, &cov) })
	if t.Failed() {
		return
	}
	doc, _ := loadSpec(t, "http://127.0.0.1/v1")
	if missing := cov.missing(doc); len(missing) > 0 {
		t.Errorf("documented responses no test exercised: %q", missing)
	}
}

// newClient returns an SDK client for srv, with the key given, whose every
// request and response is checked against the description.
func newClient(t *testing.T, cov *coverage, srv *petstoretest.Server, key string) *petstore.Client {
	t.Helper()
	_, router := loadSpec(t, srv.URL)
	hc := &http.Client{Transport: &transport{t: t, router: router, cov: cov, base: http.DefaultTransport}}
	c, err := petstore.NewClient(key,
		petstore.WithBaseURL(srv.URL),
		petstore.WithHTTPClient(hc),
		petstore.WithRetryWait(time.Millisecond, time.Millisecond),
	)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

func testSDKFlows(t *testing.T, cov *coverage) {
	ctx := context.Background()
	rex := petstore.NewPet{Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable}

	t.Run("empty store", func(t *testing.T) {
		t.Parallel()
		srv := petstoretest.NewServer()
		defer srv.Close()
		c := newClient(t, cov, srv, srv.APIKey)
		for _, p := range []petstore.ListPetsParams{{}, {Limit: 1}, {Status: petstore.PetStatusSold}} {
			pets, err := c.ListPets(ctx, p)
			if err != nil {
				t.Fatalf("ListPets(%+v): %v", p, err)
			}
			if diff := cmp.Diff([]petstore.Pet{}, pets); diff != "" {
				t.Errorf("ListPets(%+v) mismatch (-want +got):\n%s", p, diff)
			}
		}
	})

	t.Run("create then list with filters and limits", func(t *testing.T) {
		t.Parallel()
		srv := petstoretest.NewServer()
		defer srv.Close()
		c := newClient(t, cov, srv, srv.APIKey)
		in := []petstore.NewPet{
			rex,
			{Name: "Tom", CategoryID: 2, Status: petstore.PetStatusPending},
			{Name: "Zoë 🐈", CategoryID: math.MaxInt64, Status: petstore.PetStatusSold},
			{Name: "Kiwi", CategoryID: -3}, // no status
			{Name: `quote " and \ backslash`, CategoryID: 0, Status: petstore.PetStatusAvailable},
		}
		var all []petstore.Pet
		for i, p := range in {
			got, err := c.CreatePet(ctx, p)
			if err != nil {
				t.Fatalf("CreatePet(%+v): %v", p, err)
			}
			want := petstore.Pet{ID: int64(i + 1), Name: p.Name, CategoryID: p.CategoryID, Status: p.Status}
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("CreatePet(%+v) mismatch (-want +got):\n%s", p, diff)
			}
			all = append(all, want)
		}
		tests := []struct {
			params petstore.ListPetsParams
			want   []petstore.Pet
		}{
			{petstore.ListPetsParams{}, all},
			{petstore.ListPetsParams{Limit: 1}, all[:1]},
			{petstore.ListPetsParams{Limit: 100}, all},
			{petstore.ListPetsParams{Status: petstore.PetStatusAvailable}, []petstore.Pet{all[0], all[4]}},
			{petstore.ListPetsParams{Status: petstore.PetStatusPending}, all[1:2]},
			{petstore.ListPetsParams{Status: petstore.PetStatusSold, Limit: 100}, all[2:3]},
			{petstore.ListPetsParams{Status: petstore.PetStatusAvailable, Limit: 1}, all[:1]},
		}
		for _, tc := range tests {
			got, err := c.ListPets(ctx, tc.params)
			if err != nil {
				t.Fatalf("ListPets(%+v): %v", tc.params, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ListPets(%+v) mismatch (-want +got):\n%s", tc.params, diff)
			}
		}
	})

	t.Run("default limit", func(t *testing.T) {
		t.Parallel()
		srv := petstoretest.NewServer()
		defer srv.Close()
		for i := range 25 {
			srv.AddPet(petstore.NewPet{Name: fmt.Sprint("pet", i), CategoryID: 1, Status: petstore.PetStatusAvailable})
		}
		c := newClient(t, cov, srv, srv.APIKey)
		for _, tc := range []struct {
			params petstore.ListPetsParams
			want   int
		}{{petstore.ListPetsParams{}, 20}, {petstore.ListPetsParams{Limit: 100}, 25}, {petstore.ListPetsParams{Limit: 7}, 7}} {
			pets, err := c.ListPets(ctx, tc.params)
			if err != nil {
				t.Fatalf("ListPets(%+v): %v", tc.params, err)
			}
			if diff := cmp.Diff(tc.want, len(pets)); diff != "" {
				t.Errorf("ListPets(%+v) count mismatch (-want +got):\n%s", tc.params, diff)
			}
		}
	})

	t.Run("deprecated GetPet", func(t *testing.T) {
		t.Parallel()
		srv := petstoretest.NewServer()
		defer srv.Close()
		stored := srv.AddPet(rex)
		c := newClient(t, cov, srv, srv.APIKey)
		//lint:ignore SA1019 the contract covers the deprecated operation until it is removed.
		got, err := c.GetPet(ctx, stored.ID)
		if err != nil {
			t.Fatalf("GetPet(%d): %v", stored.ID, err)
		}
		if diff := cmp.Diff(&stored, got); diff != "" {
			t.Errorf("GetPet mismatch (-want +got):\n%s", diff)
		}
		for _, id := range []int64{2, 0, -1, math.MaxInt64, math.MinInt64} {
			//lint:ignore SA1019 the contract covers the deprecated operation until it is removed.
			_, err := c.GetPet(ctx, id)
			if diff := cmp.Diff(true, isStatus(err, http.StatusNotFound)); diff != "" {
				t.Errorf("GetPet(%d): %v; 404 mismatch (-want +got):\n%s", id, err, diff)
			}
		}
	})

	t.Run("wrong key", func(t *testing.T) {
		t.Parallel()
		srv := petstoretest.NewServer()
		defer srv.Close()
		srv.AddPet(rex)
		c := newClient(t, cov, srv, "not-"+srv.APIKey)
		_, err := c.ListPets(ctx, petstore.ListPetsParams{Limit: 5, Status: petstore.PetStatusAvailable})
		if !isStatus(err, http.StatusUnauthorized) {
			t.Errorf("ListPets: %v, want a 401", err)
		}
		_, err = c.CreatePet(ctx, rex)
		if !isStatus(err, http.StatusUnauthorized) {
			t.Errorf("CreatePet: %v, want a 401", err)
		}
		//lint:ignore SA1019 the contract covers the deprecated operation until it is removed.
		_, err = c.GetPet(ctx, 1)
		if !isStatus(err, http.StatusUnauthorized) {
			t.Errorf("GetPet: %v, want a 401", err)
		}
	})
}

// isStatus reports whether err is an *APIError with the given status.
func isStatus(err error, status int) bool {
	var apiErr *petstore.APIError
	return errors.As(err, &apiErr) && apiErr.Status == status
}

// testFakeRequests sends requests the SDK never sends (it refuses invalid
// parameters itself) straight to the fake: the fake must refuse exactly the
// requests the description refuses, and answer them with a documented
// response, or an Error body for statuses the description does not list.
func testFakeRequests(t *testing.T, cov *coverage) {
	tests := []struct {
		name         string
		method, path string
		auth         string // "key": the fake's key; otherwise the header's value
		body         string
		wantValid    bool // whether the description allows the request
		wantStatus   int
	}{
		{"list", "GET", "/pets?limit=100&status=sold", "key", "", true, 200},
		{"list limit 0", "GET", "/pets?limit=0", "key", "", false, 400},
		{"list limit 101", "GET", "/pets?limit=101", "key", "", false, 400},
		{"list limit not an integer", "GET", "/pets?limit=2.5", "key", "", false, 400},
		{"list unknown status", "GET", "/pets?status=lost", "key", "", false, 400},
		{"list without Authorization", "GET", "/pets", "", "", false, 401},
		{"list with a wrong bearer token", "GET", "/pets", "Bearer wrong", "", true, 401},
		{"create", "POST", "/pets", "key", `{"name":"Rex","categoryId":1,"status":"available"}`, true, 201},
		{"create minimal", "POST", "/pets", "key", `{"name":"Rex","categoryId":-1}`, true, 201},
		{"create with unknown fields", "POST", "/pets", "key", `{"name":"Rex","categoryId":1,"color":"red"}`, true, 201},
		{"create without name", "POST", "/pets", "key", `{"categoryId":1}`, false, 400},
		{"create without categoryId", "POST", "/pets", "key", `{"name":"Rex"}`, false, 400},
		{"create with numeric name", "POST", "/pets", "key", `{"name":7,"categoryId":1}`, false, 400},
		{"create with string categoryId", "POST", "/pets", "key", `{"name":"Rex","categoryId":"1"}`, false, 400},
		{"create with fractional categoryId", "POST", "/pets", "key", `{"name":"Rex","categoryId":1.5}`, false, 400},
		{"create with unknown status", "POST", "/pets", "key", `{"name":"Rex","categoryId":1,"status":"lost"}`, false, 400},
		{"create with null status", "POST", "/pets", "key", `{"name":"Rex","categoryId":1,"status":null}`, false, 400},
		{"create with bad JSON", "POST", "/pets", "key", `{"name":`, false, 400},
		{"create with an array", "POST", "/pets", "key", `[]`, false, 400},
		{"create without Authorization", "POST", "/pets", "", `{"name":"Rex","categoryId":1}`, false, 401},
		{"get", "GET", "/pets/1", "key", "", true, 200},
		{"get absent", "GET", "/pets/99", "key", "", true, 404},
		{"get non-integer id", "GET", "/pets/rex", "key", "", false, 400},
		{"get without Authorization", "GET", "/pets/1", "", "", false, 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := petstoretest.NewServer()
			defer srv.Close()
			srv.AddPet(petstore.NewPet{Name: "Rex", CategoryID: 1, Status: petstore.PetStatusSold})
			doc, router := loadSpec(t, srv.URL)

			req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			switch tc.auth {
			case "key":
				req.Header.Set("Authorization", "Bearer "+srv.APIKey)
			case "":
			default:
				req.Header.Set("Authorization", tc.auth)
			}
			if tc.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, ex, err := check(router, req, []byte(tc.body), http.DefaultTransport.RoundTrip)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()

			if diff := cmp.Diff(tc.wantValid, ex.reqErr == nil); diff != "" {
				t.Errorf("request allowed by the description mismatch (-want +got):\n%s\nvalidation: %v", diff, ex.reqErr)
			}
			if diff := cmp.Diff(tc.wantStatus, ex.status); diff != "" {
				t.Errorf("status mismatch (-want +got):\n%s", diff)
			}
			switch {
			case ex.documented && ex.respErr == nil:
				cov.add(ex.operation, ex.status)
			case ex.documented:
				t.Errorf("the fake's response is not allowed by the description:\n%v", ex.respErr)
			case ex.status >= 400:
				// A status the description does not list for this
				// operation (a 400 on a GET): its body must still be an Error.
				checkErrorBody(t, doc, resp, ex.status)
			default:
				t.Errorf("the fake answered %d, which the description does not list for %s", ex.status, ex.operation)
			}
		})
	}
}

// checkErrorBody checks that resp's body is an Error object, by the
// description's schema, whose status is the HTTP status.
func checkErrorBody(t *testing.T, doc *openapi3.T, resp *http.Response, status int) {
	t.Helper()
	var body any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("error body is not JSON: %v", err)
	}
	if err := doc.Components.Schemas["Error"].Value.VisitJSON(body); err != nil {
		t.Errorf("error body %v is not an Error: %v", body, err)
	}
	if m, ok := body.(map[string]any); !ok || m["status"] != float64(status) {
		t.Errorf("error body %v: its status field is not %d", body, status)
	}
}

// TestCoverageLists checks the list TestContract holds itself to: every
// response of every operation in the description.
func TestCoverageLists(t *testing.T) {
	t.Parallel()
	doc, _ := loadSpec(t, "http://127.0.0.1/v1")
	var cov coverage
	want := []string{
		"createPet 201", "createPet 400", "createPet 401",
		"getPet 200", "getPet 401", "getPet 404",
		"listPets 200", "listPets 401",
	}
	if diff := cmp.Diff(want, cov.missing(doc)); diff != "" {
		t.Errorf("documented responses mismatch (-want +got):\n%s", diff)
	}
	cov.add("listPets", 200)
	cov.add("listPets", 503)
	if diff := cmp.Diff(append(want[:6:6], "listPets 401"), cov.missing(doc)); diff != "" {
		t.Errorf("after seeing listPets 200: missing mismatch (-want +got):\n%s", diff)
	}
}
