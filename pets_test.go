package petstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
)

func TestListPetsRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		params    ListPetsParams
		wantQuery string
	}{
		{"defaults send no query", ListPetsParams{}, ""},
		{"limit", ListPetsParams{Limit: 5}, "limit=5"},
		{"limit 1", ListPetsParams{Limit: 1}, "limit=1"},
		{"limit 100", ListPetsParams{Limit: 100}, "limit=100"},
		{"status", ListPetsParams{Status: PetStatusSold}, "status=sold"},
		{"both", ListPetsParams{Limit: 20, Status: PetStatusPending}, "limit=20&status=pending"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t)
			var got capture
			mt.RegisterResponder("GET", testPets, got.then(jsonResponder(200, "[]")))
			if _, err := c.ListPets(context.Background(), tc.params); err != nil {
				t.Fatal(err)
			}
			if got.req.Method != "GET" || got.req.URL.Path != "/v1/pets" || got.req.URL.RawQuery != tc.wantQuery {
				t.Errorf("sent %s %s?%s; want GET /v1/pets?%s", got.req.Method, got.req.URL.Path, got.req.URL.RawQuery, tc.wantQuery)
			}
			if got.body != "" {
				t.Errorf("GET has a body: %q", got.body)
			}
		})
	}
}

func TestListPetsResponses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		status  int
		body    string
		want    []Pet
		wantErr string // "" for success
	}{
		{"empty list", 200, `[]`, []Pet{}, ""},
		{"pets", 200, `[{"id":1,"name":"Rex","categoryId":2,"status":"available"},{"id":2,"name":"Tom","categoryId":3}]`,
			[]Pet{{ID: 1, Name: "Rex", CategoryID: 2, Status: PetStatusAvailable}, {ID: 2, Name: "Tom", CategoryID: 3}}, ""},
		{"unknown fields ignored", 200, `[{"id":1,"name":"Rex","categoryId":2,"tags":["a"],"owner":{"x":null}}]`,
			[]Pet{{ID: 1, Name: "Rex", CategoryID: 2}}, ""},
		{"unknown status kept", 200, `[{"id":1,"name":"Rex","categoryId":2,"status":"adopted"}]`,
			[]Pet{{ID: 1, Name: "Rex", CategoryID: 2, Status: "adopted"}}, ""},
		{"any 2xx", 203, `[]`, []Pet{}, ""},
		{"largest ids", 200, `[{"id":9223372036854775807,"name":"","categoryId":-9223372036854775808}]`,
			[]Pet{{ID: math.MaxInt64, CategoryID: math.MinInt64}}, ""},
		{"null", 200, `null`, nil, "null"},
		{"object instead of array", 200, `{"id":1,"name":"Rex","categoryId":2}`, nil, "unexpected response body"},
		{"missing id", 200, `[{"name":"Rex","categoryId":2}]`, nil, "pet 0: pet has no id"},
		{"missing name", 200, `[{"id":1,"categoryId":2}]`, nil, "no name"},
		{"null categoryId", 200, `[{"id":1,"name":"Rex","categoryId":null}]`, nil, "no categoryId"},
		{"null element", 200, `[null]`, nil, "pet 0 is null"},
		{"wrong type", 200, `[{"id":"1","name":"Rex","categoryId":2}]`, nil, "unexpected response body"},
		{"id overflows int64", 200, `[{"id":9223372036854775808,"name":"Rex","categoryId":2}]`, nil, "unexpected response body"},
		{"truncated JSON", 200, `[{"id":1,`, nil, "unexpected response body"},
		{"empty body", 200, ``, nil, "unexpected response body"},
		{"HTML", 200, `<html></html>`, nil, "unexpected response body"},
		{"trailing garbage", 200, `[] x`, nil, "unexpected response body"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t)
			mt.RegisterResponder("GET", testPets, jsonResponder(tc.status, tc.body))
			got, err := c.ListPets(context.Background(), ListPetsParams{})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("ListPets: %v", err)
				}
				if got == nil {
					t.Fatal("ListPets returned a nil slice; want non-nil")
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("ListPets (-want +got):\n%s", diff)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || got != nil {
				t.Fatalf("ListPets = %v, %v; want nil and an error containing %q", got, err, tc.wantErr)
			}
			if errors.As(err, new(*APIError)) {
				t.Errorf("a bad 2xx body gave an *APIError: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "petstore: GET /v1/pets: ") {
				t.Errorf("error %q does not name the call", err)
			}
		})
	}
}

func TestCreatePetRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		pet  NewPet
		want string
	}{
		{"required fields only", NewPet{Name: "Rex", CategoryID: 3}, `{"name":"Rex","categoryId":3}`},
		{"with status", NewPet{Name: "Rex", CategoryID: 3, Status: PetStatusPending}, `{"name":"Rex","categoryId":3,"status":"pending"}`},
		{"category 0 and unicode", NewPet{Name: "Médor \"le\" <chien>", CategoryID: 0}, `{"name":"Médor \"le\" <chien>","categoryId":0}`},
		{"negative category is sent as is", NewPet{Name: "Rex", CategoryID: -1}, `{"name":"Rex","categoryId":-1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t)
			var got capture
			mt.RegisterResponder("POST", testPets, got.then(jsonResponder(201, `{"id":9,"name":"Rex","categoryId":3}`)))
			if _, err := c.CreatePet(context.Background(), tc.pet); err != nil {
				t.Fatal(err)
			}
			if got.req.URL.String() != testPets {
				t.Errorf("POST to %s; want %s", got.req.URL, testPets)
			}
			assertJSONEqual(t, tc.want, got.body)
			if want := len(got.body); got.req.ContentLength != int64(want) {
				t.Errorf("Content-Length = %d; want %d", got.req.ContentLength, want)
			}
		})
	}
}

func TestCreatePetResponses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		status  int
		body    string
		want    *Pet
		wantErr string
	}{
		{"201", 201, `{"id":9,"name":"Rex","categoryId":3,"status":"available"}`, &Pet{ID: 9, Name: "Rex", CategoryID: 3, Status: PetStatusAvailable}, ""},
		{"200 also succeeds", 200, `{"id":9,"name":"Rex","categoryId":3}`, &Pet{ID: 9, Name: "Rex", CategoryID: 3}, ""},
		{"unknown status kept", 201, `{"id":9,"name":"Rex","categoryId":3,"status":"reserved","extra":1}`, &Pet{ID: 9, Name: "Rex", CategoryID: 3, Status: "reserved"}, ""},
		{"empty object", 201, `{}`, nil, "pet has no id"},
		{"null", 201, `null`, nil, "null"},
		{"array", 201, `[]`, nil, "unexpected response body"},
		{"empty body", 201, ``, nil, "empty response body"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t)
			mt.RegisterResponder("POST", testPets, jsonResponder(tc.status, tc.body))
			got, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 3})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("CreatePet (-want +got):\n%s", diff)
				}
				return
			}
			if err == nil || got != nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("CreatePet = %v, %v; want nil and an error containing %q", got, err, tc.wantErr)
			}
			if !strings.HasPrefix(err.Error(), "petstore: POST /v1/pets: ") {
				t.Errorf("error %q does not name the call", err)
			}
		})
	}
}

// TestCreatePetAnswerNotAPet: a 2xx to CreatePet whose body is not a Pet
// (empty, as many APIs answer a create; a proxy's HTML; an id as a string)
// created the animal, whose id the caller cannot know: the error matches
// ErrOutcomeUnknown, is no *APIError, says the status the server answered
// and what was wrong with the body, and unwraps to the decode error. A bad
// 2xx body to ListPets or GetPet keeps its plain error.
func TestCreatePetAnswerNotAPet(t *testing.T) {
	t.Parallel()
	const answered = "petstore: POST /v1/pets: the server answered %s but the answer could not be read, so the animal exists and its id is unknown: %s"
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		want        string // the error's text
	}{
		{"empty 201", 201, "", "", fmt.Sprintf(answered, "201 (created)", "empty response body")},
		{"empty 201 with a JSON type", 201, "application/json", "", fmt.Sprintf(answered, "201 (created)", "empty response body")},
		{"204", 204, "", "", fmt.Sprintf(answered, "204 (no content)", "empty response body")},
		{"a proxy's HTML", 200, "text/html", "<html><body>Request accepted</body></html>",
			fmt.Sprintf(answered, "200 (ok)", "unexpected response body: want a pet object at offset 0")},
		{"an id as a string", 201, "application/json", `{"id":"9","name":"Rex","categoryId":3}`,
			fmt.Sprintf(answered, "201 (created)", `unexpected response body: invalid character '"' at offset 6`)},
		{"no id", 201, "application/json", `{"name":"Rex","categoryId":3}`,
			fmt.Sprintf(answered, "201 (created)", "unexpected response body: pet has no id")},
		{"null", 201, "application/json", `null`, fmt.Sprintf(answered, "201 (created)", "unexpected response body: null instead of a pet")},
		{"cut JSON", 202, "application/json", `{"id":9,`,
			fmt.Sprintf(answered, "202 (accepted)", "unexpected response body: unexpected end of JSON input at offset 8")},
		{"a status with no text", 299, "application/json", `[]`, fmt.Sprintf(answered, "299", "unexpected response body: want a pet object at offset 0")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t)
			mt.RegisterResponder("POST", testPets, func(*http.Request) (*http.Response, error) {
				resp := httpmock.NewStringResponse(tc.status, tc.body)
				if tc.contentType != "" {
					resp.Header.Set("Content-Type", tc.contentType)
				}
				return resp, nil
			})
			pet, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 3})
			if pet != nil || !errors.Is(err, ErrOutcomeUnknown) || errors.As(err, new(*APIError)) {
				t.Fatalf("CreatePet = %v, %v; want no pet and an error that matches ErrOutcomeUnknown, not an *APIError", pet, err)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error text (-want +got):\n%s", diff)
			}
			cause := errors.Unwrap(err)
			if _, decodeErr := decodePet([]byte(tc.body)); cause == nil || cause.Error() != decodeErr.Error() {
				t.Errorf("the error unwraps to %v; want the decode error, %v", cause, decodeErr)
			}
			if n := mt.GetTotalCallCount(); n != 1 {
				t.Errorf("requests = %d; want 1: the animal exists", n)
			}
		})
	}
	t.Run("ListPets and GetPet", func(t *testing.T) {
		t.Parallel()
		c, mt := newTestClient(t)
		mt.RegisterResponder("GET", testPets, jsonResponder(200, ``))
		mt.RegisterResponder("GET", testPets+"/7", jsonResponder(200, `{"id":"7"}`))
		_, errList := c.ListPets(context.Background(), ListPetsParams{})
		_, errGet := c.GetPet(context.Background(), 7)
		for _, err := range []error{errList, errGet} {
			if err == nil || errors.Is(err, ErrOutcomeUnknown) || !strings.Contains(err.Error(), ": unexpected response body: ") {
				t.Errorf("err = %v; want the plain unexpected response body error", err)
			}
		}
	})
}

func TestGetPet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		id       int64
		wantPath string
	}{
		{"id", 7, "/v1/pets/7"},
		{"zero id is sent as is", 0, "/v1/pets/0"},
		{"negative id is sent as is", -3, "/v1/pets/-3"},
		{"largest id", math.MaxInt64, "/v1/pets/9223372036854775807"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t)
			var got capture
			u := (&url.URL{Scheme: "https", Host: "petstore.test", Path: tc.wantPath}).String()
			mt.RegisterResponder("GET", u, got.then(jsonResponder(200, `{"id":7,"name":"Rex","categoryId":1}`)))
			pet, err := c.GetPet(context.Background(), tc.id)
			if err != nil {
				t.Fatal(err)
			}
			if got.req.URL.Path != tc.wantPath || got.req.URL.RawQuery != "" {
				t.Errorf("GET %s; want %s", got.req.URL, tc.wantPath)
			}
			if diff := cmp.Diff(&Pet{ID: 7, Name: "Rex", CategoryID: 1}, pet); diff != "" {
				t.Errorf("GetPet (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("404", func(t *testing.T) {
		t.Parallel()
		c, mt := newTestClient(t)
		mt.RegisterResponder("GET", testPets+"/7", jsonResponder(404, `{"code":"not_found","message":"pet 7 not found","status":404}`))
		pet, err := c.GetPet(context.Background(), 7)
		if pet != nil || !errors.Is(err, ErrNotFound) {
			t.Fatalf("GetPet = %v, %v; want nil, ErrNotFound", pet, err)
		}
		if want := "petstore: GET /v1/pets/7: 404 not_found: pet 7 not found"; err.Error() != want {
			t.Errorf("error = %q; want %q", err, want)
		}
	})
	t.Run("bad body", func(t *testing.T) {
		t.Parallel()
		c, mt := newTestClient(t)
		mt.RegisterResponder("GET", testPets+"/7", jsonResponder(200, `{"id":7}`))
		pet, err := c.GetPet(context.Background(), 7)
		if pet != nil || err == nil || !strings.HasPrefix(err.Error(), "petstore: GET /v1/pets/7: unexpected response body") {
			t.Fatalf("GetPet = %v, %v; want nil and a body error naming the call", pet, err)
		}
	})
}

func TestInvalidParamsSendNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		call      func(*Client) error
		wantField string
	}{
		{"limit -1", func(c *Client) error {
			_, err := c.ListPets(context.Background(), ListPetsParams{Limit: -1})
			return err
		}, "Limit"},
		{"limit 101", func(c *Client) error {
			_, err := c.ListPets(context.Background(), ListPetsParams{Limit: 101})
			return err
		}, "Limit"},
		{"list status", func(c *Client) error {
			_, err := c.ListPets(context.Background(), ListPetsParams{Status: "Available"})
			return err
		}, "Status"},
		{"empty name", func(c *Client) error { _, err := c.CreatePet(context.Background(), NewPet{CategoryID: 1}); return err }, "Name"},
		{"new pet status", func(c *Client) error {
			_, err := c.CreatePet(context.Background(), NewPet{Name: "Rex", CategoryID: 1, Status: "adopted"})
			return err
		}, "Status"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mt := newTestClient(t)
			err := tc.call(c)
			if !errors.Is(err, ErrInvalidParams) {
				t.Fatalf("err = %v; want ErrInvalidParams", err)
			}
			if !strings.Contains(err.Error(), tc.wantField) {
				t.Errorf("error %q does not name the field %s", err, tc.wantField)
			}
			if errors.As(err, new(*APIError)) {
				t.Error("a refused call returned an *APIError")
			}
			if n := mt.GetTotalCallCount(); n != 0 {
				t.Errorf("%d requests sent; want none", n)
			}
		})
	}
}

// TestNoRequestForCanceledContext: a call with a context already done sends
// nothing and says so.
func TestNoRequestForCanceledContext(t *testing.T) {
	t.Parallel()
	c, mt := newTestClient(t)
	mt.RegisterResponder("GET", testPets, jsonResponder(200, "[]"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.ListPets(ctx, ListPetsParams{})
	if !errors.Is(err, context.Canceled) || errors.As(err, new(*APIError)) {
		t.Errorf("err = %v; want context.Canceled and no *APIError", err)
	}
	if n := mt.GetTotalCallCount(); n != 0 {
		t.Errorf("%d requests sent; want 0", n)
	}
}

func TestNilContextIsRefused(t *testing.T) {
	t.Parallel()
	c, mt := newTestClient(t)
	//lint:ignore SA1012 the test is about a nil context
	_, err := c.ListPets(nil, ListPetsParams{})
	if !errors.Is(err, ErrInvalidParams) || mt.GetTotalCallCount() != 0 {
		t.Errorf("ListPets(nil ctx) = %v after %d requests; want ErrInvalidParams and none", err, mt.GetTotalCallCount())
	}
}

// TestDecodePetsNames checks that the names of a list, which share one
// allocation, come out right whatever their escapes.
func TestDecodePetsNames(t *testing.T) {
	t.Parallel()
	names := []string{"", "a", `\u00e9t\u00e9`, "\xff", `\ud83d`, "plain name", `\n`, "", "Zoë"}
	var b strings.Builder
	b.WriteString("[")
	for i, n := range names {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"%s","categoryId":1}`, i, n)
	}
	b.WriteString("]")
	want, err := refDecodePets([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodePets([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestDecodeAllocs checks that the decoders allocate what they should: for
// a list, the slice and one string for all the names, whether they are
// ASCII, UTF-8 or escaped (an escaped name longer than decodePets' buffer
// on the stack takes one more); for
// a Pet, the Pet and its name; nothing for the three known statuses. Not
// parallel: testing.AllocsPerRun counts every goroutine's allocations.
func TestDecodeAllocs(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 100 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"Pet number %d","categoryId":%d,"status":"%s"}`, i, i, i%7, []string{"available", "pending", "sold"}[i%3])
	}
	b.WriteString("]")
	list := []byte(b.String())
	// Non-ASCII names, as they are and escaped, one longer than the
	// buffer decodePets unescapes on its stack.
	intl := []byte(`[{"id":1,"name":"Zoë 🐶","categoryId":2},{"id":2,"name":"Ren\u00e9e \ud83d\udc36","categoryId":2},` +
		`{"id":3,"name":"日本","categoryId":2},{"id":4,"name":"\u65e5\u672c \u0026 ` + strings.Repeat("x", 200) + `","categoryId":2}]`)
	one := []byte(`{"id":1,"name":"Rex","categoryId":2,"status":"sold"}`)
	want, err := refDecodePets(intl)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := decodePets(intl); err != nil || !cmp.Equal(want, got) {
		t.Fatalf("decodePets(%s) = %v, %v; want %v", intl, got, err, want)
	}
	for _, tc := range []struct {
		name string
		max  float64
		f    func()
	}{
		{"decodePets", 2, func() { _, _ = decodePets(list) }},           // the slice, the names
		{"decodePets non-ASCII", 3, func() { _, _ = decodePets(intl) }}, // and the long escaped name's buffer
		{"decodePet", 2, func() { _, _ = decodePet(one) }},
	} {
		if n := testing.AllocsPerRun(10, tc.f); n > tc.max {
			t.Errorf("%s: %v allocations; want at most %v", tc.name, n, tc.max)
		}
	}
}

// FuzzEncodeNewPet holds appendNewPet to json.Marshal, byte for byte.
func FuzzEncodeNewPet(f *testing.F) {
	for _, name := range []string{
		"", "Rex", `a"b\c`, "<script>&</script>", "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
		"héllo wörld", "日本語", "\u2028\u2029", "bad \xff utf-8 \xc3", "\xed\xa0\x80", "😀",
	} {
		for _, status := range []PetStatus{"", PetStatusSold, "weird \"status\" <x>"} {
			f.Add(name, int64(len(name))-3, string(status))
		}
	}
	f.Add("x", int64(math.MinInt64), "")
	f.Add("x", int64(math.MaxInt64), "pending")
	f.Fuzz(func(t *testing.T, name string, category int64, status string) {
		p := NewPet{Name: name, CategoryID: category, Status: PetStatus(status)}
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendNewPet(nil, p); !bytes.Equal(got, want) {
			t.Errorf("appendNewPet(%+q) = %s; json.Marshal: %s", p, got, want)
		}
	})
}
