package main

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/internal/fakehook"
	"github.com/petstore/petstore-go/petstoretest"
)

// maxControlBody bounds the body of a control request; a larger one
// answers 400.
const maxControlBody = 10 << 20

// control serves the control API, the paths under /_fake/, and hands
// every other request to the fake. It sees a control request before the
// fake does, so none is in the fake's journal or counted by its Requests.
//
// Every control request but GET /_fake/health carries the API's key; bodies
// and answers are JSON.
// A request it refuses changes nothing and answers an Error body, as the
// fake does: 401 unauthorized (no key or another one), 404 not_found (a path
// the control API does not have), 405 method_not_allowed (with an Allow
// header), 400 invalid_parameter (a query: the control API takes none) or
// 400 invalid_body (a body that is not what the path takes, or a body where
// it takes none).
type control struct {
	srv   *petstoretest.Server
	key   string
	start []petstore.Pet // the -pets animals, for POST /_fake/reset
	fake  http.Handler
}

// newControl returns the control API of srv in front of srv.Config.Handler
// (set srv.APIKey first). start is what POST /_fake/reset goes back to.
func newControl(srv *petstoretest.Server, start []petstore.Pet) http.Handler {
	return &control{srv: srv, key: srv.APIKey, start: start, fake: srv.Config.Handler}
}

// controlRoute is what one method of one control path does.
type controlRoute struct {
	takesBody bool
	// do answers a request whose body is body: a status and the value to
	// send as JSON (nil for no body), or an error for a 400 invalid_body.
	do func(c *control, body []byte) (int, any, error)
}

// controlRoutes maps each control path, then each method, to its route.
var controlRoutes = map[string]map[string]controlRoute{
	"/_fake/pets": {
		http.MethodGet: {do: (*control).pets},
		http.MethodPut: {takesBody: true, do: (*control).setPets},
	},
	"/_fake/faults": {
		http.MethodPost:   {takesBody: true, do: (*control).addFault},
		http.MethodDelete: {do: (*control).clearFaults},
	},
	"/_fake/requests": {http.MethodGet: {do: (*control).received}},
	"/_fake/reset":    {http.MethodPost: {do: (*control).reset}},
	healthPath:        {http.MethodGet: {do: (*control).health}},
}

// healthPath is the control API's only path that needs no key: a health
// check for a container or a CI service, which does not have the key.
const healthPath = "/_fake/health"

// streamer is an answer written piece by piece, as it is made, rather than
// marshalled whole: the journal, which may hold 32 MiB of bodies (and
// parses each query anew).
type streamer interface {
	stream(w io.Writer, r *http.Request)
}

// ServeHTTP answers a request under /_fake/, and hands any other to the
// fake.
func (c *control) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/_fake" && !strings.HasPrefix(r.URL.Path, "/_fake/") {
		c.fake.ServeHTTP(w, r)
		return
	}
	status, v := c.answer(w, r)
	// The log reads the status from the Outcome, as it does the fake's.
	if o := fakehook.FromContext(r.Context()); o != nil {
		o.Status = status
	}
	if v == nil {
		w.WriteHeader(status)
		return
	}
	if s, ok := v.(streamer); ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		s.stream(w, r)
		return
	}
	body, err := json.Marshal(v)
	if err != nil {
		panic("petstore-fake: " + err.Error()) // only our own types: cannot happen
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// answer checks and carries out a control request, and returns the status
// and the value to send (an Error body when it refuses), after setting the
// headers the answer needs.
func (c *control) answer(w http.ResponseWriter, r *http.Request) (int, any) {
	path := r.URL.EscapedPath()
	if msg := c.unauthorized(r); msg != "" && path != healthPath {
		w.Header().Set("WWW-Authenticate", `Bearer realm="petstore"`)
		return refuse(http.StatusUnauthorized, "unauthorized", msg)
	}
	methods, ok := controlRoutes[path]
	if !ok {
		return refuse(http.StatusNotFound, "not_found", "no such path: "+path+
			"; the control API has "+strings.Join(slices.Sorted(maps.Keys(controlRoutes)), ", "))
	}
	route, ok := methods[r.Method]
	if !ok {
		allow := strings.Join(slices.Sorted(maps.Keys(methods)), ", ")
		w.Header().Set("Allow", allow)
		return refuse(http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not allowed on "+path+" (allowed: "+allow+")")
	}
	if r.URL.RawQuery != "" {
		return refuse(http.StatusBadRequest, "invalid_parameter", "the control API takes no query parameters, got "+strconv.Quote(r.URL.RawQuery))
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxControlBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return refuse(http.StatusBadRequest, "invalid_body", "body is larger than 10 MiB")
	case err != nil:
		return refuse(http.StatusBadRequest, "invalid_body", "reading the body: "+err.Error())
	case !route.takesBody && len(bytes.TrimSpace(body)) > 0:
		return refuse(http.StatusBadRequest, "invalid_body", r.Method+" "+path+" takes no body")
	}
	status, v, err := route.do(c, body)
	if err != nil {
		return refuse(http.StatusBadRequest, "invalid_body", err.Error())
	}
	return status, v
}

// unauthorized returns why r may not use the control API, or "" when it
// carries "Authorization: Bearer <key>" (the scheme in any case), as the
// fake checks its API requests.
func (c *control) unauthorized(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return "missing API key: send Authorization: Bearer <key>, the API's"
	}
	scheme, token, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(token), []byte(c.key)) != 1 {
		return "invalid API key"
	}
	return ""
}

// errorBody is the interface's Error object.
type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Status  int    `json:"status"`
}

// refuse returns an answer of answer that refuses the request.
func refuse(status int, code, message string) (int, any) {
	return status, errorBody{Code: code, Message: message, Status: status}
}

// pets answers GET /_fake/pets: 200 and every animal, in id order.
func (c *control) pets([]byte) (int, any, error) {
	return http.StatusOK, nonNil(c.srv.Pets()), nil
}

// setPets answers PUT /_fake/pets: it replaces every animal with those of
// the body (a JSON array, as -pets takes) and answers 200 and the animals
// as stored, with their ids.
func (c *control) setPets(body []byte) (int, any, error) {
	pets, err := decodePets(body)
	if err == nil {
		err = refusal("SetPets", func() { c.srv.SetPets(pets) })
	}
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, nonNil(c.srv.Pets()), nil
}

// addFault answers POST /_fake/faults: it adds the fault of the body (a
// JSON object, see faultJSON) after the pending ones, and answers 201 and
// the fault as stored (a count of 0 is 1).
func (c *control) addFault(body []byte) (int, any, error) {
	f, err := decodeFault(body)
	if err == nil {
		err = refusal("InjectFault", func() { c.srv.InjectFault(f) })
	}
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, newFaultJSON(f), nil
}

// clearFaults answers DELETE /_fake/faults: it drops the pending faults
// and answers 204.
func (c *control) clearFaults([]byte) (int, any, error) {
	c.srv.ClearFaults()
	return http.StatusNoContent, nil, nil
}

// reset answers POST /_fake/reset: back to the start, the -pets animals, no
// faults, an empty journal; 204.
//
// It then returns the memory the journal held to the system at once
// (debug.FreeOSMemory: a collection, then the free pages given back), where
// Go would do it over minutes: a script that resets a fake between
// scenarios sees its resident memory drop back. It costs a pause of a few
// milliseconds, which a test fake can afford.
func (c *control) reset([]byte) (int, any, error) {
	c.srv.Reset()
	c.srv.SetPets(c.start) // taken at the start already
	debug.FreeOSMemory()
	return http.StatusNoContent, nil, nil
}

// requestJSON is an entry of the journal as GET /_fake/requests answers it:
// the fields of petstoretest.Request in lowerCamelCase, the body as text.
type requestJSON struct {
	Operation  string      `json:"operation"`
	Method     string      `json:"method"`
	Path       string      `json:"path"`
	Query      url.Values  `json:"query"`
	Header     http.Header `json:"header"`
	Authorized bool        `json:"authorized"`
	Body       string      `json:"body"`
	Status     int         `json:"status"`
	Fault      bool        `json:"fault"`
	RequestID  string      `json:"requestId"`
}

// received answers GET /_fake/requests: 200 and the journal of API
// requests, oldest first, written entry by entry (see journalAnswer).
func (c *control) received([]byte) (int, any, error) {
	return http.StatusOK, journalAnswer{c.fake}, nil
}

// journalAnswer is the answer of GET /_fake/requests: a JSON array written
// one entry at a time, as the fake hands them over through a
// fakehook.Walk, so that the answer is never in memory whole (an entry's
// body is 64 KiB at most).
type journalAnswer struct {
	fake http.Handler
}

func (a journalAnswer) stream(w io.Writer, r *http.Request) {
	sep := "["
	var failed bool
	walk := fakehook.Walk(func(entry any) bool {
		e := entry.(petstoretest.Request)
		data, err := json.Marshal(requestJSON{
			Operation: e.Operation, Method: e.Method, Path: e.Path,
			Query: nonNilMap(e.Query), Header: nonNilMap(e.Header),
			Authorized: e.Authorized, Body: string(e.Body), Status: e.Status,
			Fault: e.Fault, RequestID: e.RequestID,
		})
		if err != nil {
			panic("petstore-fake: " + err.Error()) // only our own type: cannot happen
		}
		_, err = io.WriteString(w, sep)
		if err == nil {
			_, err = w.Write(data)
		}
		sep = ",\n"
		failed = err != nil
		return !failed // the client has gone: stop
	})
	// The fake hands over its journal and writes nothing: no writer.
	a.fake.ServeHTTP(nil, r.WithContext(fakehook.WithWalk(r.Context(), walk)))
	switch {
	case failed:
	case sep == "[": // no entry
		io.WriteString(w, "[]\n")
	default:
		io.WriteString(w, "]\n")
	}
}

// health answers GET /_fake/health: 200 {"status":"ok"} while the fake
// serves.
func (c *control) health([]byte) (int, any, error) {
	return http.StatusOK, map[string]string{"status": "ok"}, nil
}

// nonNil returns s, or an empty slice for nil: JSON [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// nonNilMap returns m, or an empty map for nil: JSON {} rather than null.
func nonNilMap[M ~map[string][]string](m M) M {
	if m == nil {
		return M{}
	}
	return m
}
