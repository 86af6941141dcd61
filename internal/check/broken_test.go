package check

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go/petstoretest"
)

// The broken fakes: each breaks the fake in one way the interface forbids,
// and each FAIL a check can give is reached by one of them.

// unauthorizedAnswer answers the requests without the fake's key itself.
func unauthorizedAnswer(status int, contentType, body string) wrapper {
	return func(srv *petstoretest.Server, next http.Handler) http.Handler {
		return answer(unauthorized(srv), status, contentType, body)(srv, next)
	}
}

// giveKey is a request change: the request carries the fake's key.
func giveKey(srv *petstoretest.Server, r *http.Request) {
	r.Header.Set("Authorization", "Bearer "+srv.APIKey)
}

// noKey matches the requests without an Authorization header.
func noKey(r *http.Request) bool { return r.Header.Get("Authorization") == "" }

// wrongKey matches the requests with an Authorization header that is not
// the key of the fake; only the wrapper knows it.
func wrongKeyGiven(srv *petstoretest.Server, next http.Handler) http.Handler {
	return onRequest(func(r *http.Request) bool { return !noKey(r) && unauthorized(srv)(r) }, giveKey)(srv, next)
}

// dropUnauthorized closes the connection of a request without the key.
func dropUnauthorized(srv *petstoretest.Server, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if unauthorized(srv)(r) {
			panic(http.ErrAbortHandler)
		}
		next.ServeHTTP(w, r)
	})
}

const errorJSON = "application/json"

// withoutName answers a POST whose body has no name with status and body.
func withoutName(status int, body string) wrapper {
	return func(srv *petstoretest.Server, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			if !isCreate(r) || bytes.Contains(b, []byte(`"name"`)) {
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", errorJSON)
			w.WriteHeader(status)
			io.WriteString(w, body)
		})
	}
}

// brokenFakes are the broken fakes, each with the checks it makes fail.
var brokenFakes = []struct {
	name  string
	pets  int // 0: 25
	wrap  wrapper
	fails []string // the checks that fail
	infos []string // the checks that cannot be made, beyond healthy's
	seen  string   // in the Detail of fails[0]
}{
	{name: "no key accepted", wrap: onRequest(noKey, giveKey),
		fails: []string{"auth-missing-key"}, seen: "without an Authorization header answered 200 with a body the SDK accepted"},
	{name: "any key accepted", wrap: wrongKeyGiven,
		fails: []string{"auth-wrong-key"}, seen: "with a wrong key answered 200"},
	{name: "401 as text", wrap: unauthorizedAnswer(401, "text/plain", "Unauthorized"),
		fails: []string{"auth-missing-key", "auth-wrong-key"}, seen: "answered 401, but the body is not a JSON object"},
	{name: "401 body with status 400", wrap: unauthorizedAnswer(401, errorJSON, `{"code":"unauthorized","message":"no","status":400}`),
		fails: []string{"auth-missing-key", "auth-wrong-key"}, seen: "in its body: status is the number 400"},
	{name: "401 body without code, a number for message, status a string", wrap: unauthorizedAnswer(401, errorJSON, `{"message":5,"status":"401"}`),
		fails: []string{"auth-missing-key", "auth-wrong-key"}, seen: "in its body: no code, message is the number 5, status is a string"},
	{name: "403 for a wrong key", wrap: unauthorizedAnswer(403, errorJSON, `{"code":"forbidden","message":"no","status":403}`),
		fails: []string{"auth-missing-key", "auth-wrong-key"}, seen: "answered 403 (petstore: GET /v1/pets: 403 forbidden: no)"},
	{name: "connection dropped without the key", wrap: dropUnauthorized,
		fails: []string{"auth-missing-key", "auth-wrong-key"}, seen: "without an Authorization header: petstore: GET /v1/pets: "},
	{name: "default limit ignored", wrap: onRequest(isLimit(""), setQuery("limit", "100")),
		fails: []string{"list-default-limit"}, seen: "returned 25 animals; the interface says at most 20"},
	{name: "limit ignored", wrap: onRequest(isLimit("24"), setQuery("limit", "100")),
		fails: []string{"list-limit"}, seen: "GET /pets?limit=24 returned 25 animals; the interface says at most 24"},
	{name: "limit 100 gets 101", pets: 100, wrap: onResponse(isLimit("100"), replace(`]`, `,{"id":101,"name":"extra","categoryId":1}]`)),
		fails: []string{"list-limit"}, seen: "GET /pets?limit=100 returned 101 animals; the interface says at most 100"},
	{name: "limit 100 answers 500", wrap: answer(isLimit("100"), 500, errorJSON, `{"code":"oops","message":"down","status":500}`),
		fails: []string{"list-limit"}, infos: []string{"get-pet"}, seen: "GET /pets?limit=100: petstore: GET /v1/pets: 500 oops: down"},
	{name: "second page answers 500", wrap: answer(isLimit("24"), 500, errorJSON, `{"code":"oops","message":"down","status":500}`),
		fails: []string{"list-limit"}, seen: "GET /pets?limit=24: petstore: GET /v1/pets: 500 oops"},
	{name: "status filter ignored", wrap: onRequest(withStatus, setQuery("status", "")),
		fails: []string{"list-status-available", "list-status-pending", "list-status-sold"}, seen: "returned 25 animals, 16 of another status (id 2 is \"pending\"; id 3 is \"sold\"; id 5 is \"pending\"; and 13 more)"},
	{name: "status filter finds none", wrap: answer(withStatus, 200, errorJSON, `[]`),
		fails: []string{"list-status-available", "list-status-pending", "list-status-sold"}, seen: "returned none, but GET /pets?limit=100 lists 9 available animals"},
	{name: "status sold answers 400", wrap: answer(func(r *http.Request) bool { return r.URL.Query().Get("status") == "sold" }, 400, errorJSON, `{"code":"bad","message":"no","status":400}`),
		fails: []string{"list-status-sold"}, seen: "status=sold: petstore: GET /v1/pets: 400 bad: no"},
	{name: "GetPet returns another animal", wrap: onRequest(isGet("1"), func(_ *petstoretest.Server, r *http.Request) { r.URL.Path = "/v1/pets/2" }),
		fails: []string{"get-pet"}, seen: `GET /pets/1 (a listed id) returned {id 2, name "pet 2", categoryId 2, status "pending"}; GET /pets listed {id 1, name "pet 1", categoryId 1, status "available"}`},
	{name: "GetPet of a listed id answers 500", wrap: answer(isGet("1"), 500, errorJSON, `{"code":"oops","message":"down","status":500}`),
		fails: []string{"get-pet"}, seen: "GET /pets/1 (a listed id): petstore: GET /v1/pets/1: 500 oops: down; the interface says 200 with that Pet"},
	{name: "absent id answers 200", wrap: onResponse(isGet("9223372036854775807"), func(int, []byte) (int, []byte) { return 200, []byte(`{"id":1,"name":"x","categoryId":1}`) }),
		fails: []string{"get-pet-absent"}, seen: "(an id not listed) answered 200 with a body the SDK accepted"},
	{name: "absent id answers an HTML page", wrap: answer(isGet("9223372036854775807"), 404, "text/html", "<html>Not Found</html>"),
		fails: []string{"get-pet-absent"}, seen: "answered 404, but the body is not a JSON object"},
	{name: "CreatePet answers 200", wrap: onResponse(isCreate, ok2xx(func(_ int, b []byte) (int, []byte) { return 200, b })),
		fails: []string{"create-pet"}, seen: "POST /pets answered 200; the interface says 201"},
	{name: "CreatePet answers without id", wrap: onResponse(isCreate, replace(`"id":26,`, ``)),
		fails: []string{"create-pet", "pet-fields"}, infos: []string{"create-get-pet"}, seen: "POST /pets: petstore: POST /v1/pets: the server answered 201 (created) but the answer could not be read, so the animal exists and its id is unknown: unexpected response body: pet has no id"},
	{name: "CreatePet changes the name", wrap: onResponse(isCreate, replace(`"petstore check"`, `"other"`)),
		fails: []string{"create-pet", "create-get-pet"}, seen: `POST /pets returned {id 26, name "other", categoryId 1, status ""} for name "petstore check", categoryId 1`},
	{name: "created animal not found", wrap: onRequest(isGet("26"), func(_ *petstoretest.Server, r *http.Request) { r.URL.Path = "/v1/pets/999" }),
		fails: []string{"create-get-pet"}, seen: "GET /pets/26 (the id created): petstore: GET /v1/pets/26: 404 not_found: pet 999 not found"},
	{name: "body without name accepted", wrap: onRequest(isCreate, addName),
		fails: []string{"create-missing-name"}, seen: `POST /pets with {"categoryId":1} answered 201 with a body the SDK accepted`},
	{name: "body without name answers 422", wrap: withoutName(422, `{"code":"invalid","message":"no name","status":422}`),
		fails: []string{"create-missing-name"}, seen: `POST /pets with {"categoryId":1} answered 422 (petstore: POST /v1/pets: 422 invalid: no name)`},
	{name: "body without name answers 400 with status 422", wrap: withoutName(400, `{"code":"invalid","message":"no name","status":422}`),
		fails: []string{"create-missing-name"}, seen: "answered 400, but in its body: status is the number 422"},
	{name: "Pet members in another case", wrap: onResponse(func(r *http.Request) bool { return true }, replace(`"id":`, `"ID":`)),
		fails: []string{"pet-fields"}, seen: "GET /v1/pets: pet 0 has no id"},
	{name: "null status", wrap: onResponse(isCreate, ok2xx(replace(`}`, `,"status":null}`))),
		fails: []string{"pet-fields"}, seen: "POST /v1/pets: the Pet: status is null, not a string"},
	{name: "GetPet id a string", wrap: onResponse(isGet("1"), replace(`"id":1,`, `"id":"1",`)),
		fails: []string{"get-pet", "pet-fields"}, seen: "GET /pets/1 (a listed id): petstore: GET /v1/pets/1: unexpected response body"},
	{name: "lists are not arrays", wrap: onResponse(isList, ok2xx(func(st int, b []byte) (int, []byte) { return st, []byte(`{"pets":[]}`) })),
		fails: []string{"list-default-limit", "list-limit", "list-status-available", "list-status-pending", "list-status-sold", "pet-fields"},
		infos: []string{"get-pet"}, seen: "GET /pets: petstore: GET /v1/pets: unexpected response body"},
}

func TestBrokenFakes(t *testing.T) {
	t.Parallel()
	for _, tt := range brokenFakes {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pets := tt.pets
			if pets == 0 {
				pets = 25
			}
			results := runChecks(t, startFake(t, pets, tt.wrap))
			want := healthy()
			for _, name := range tt.infos {
				want[name] = Info
			}
			for _, name := range tt.fails {
				want[name] = Fail
			}
			if diff := cmp.Diff(want, verdicts(results)); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
			for _, r := range results {
				if r.Name == tt.fails[0] && !strings.Contains(r.Detail, tt.seen) {
					t.Errorf("%v\nwant a Detail that holds %q", r, tt.seen)
				}
			}
		})
	}
}
