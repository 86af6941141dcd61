package petstore

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
	"github.com/petstore/petstore-go/internal/faultserver"
)

// leakKey is a key distinctive enough that finding it anywhere is a leak.
const leakKey = "pk_live_LeakCanary_9f4e2b7d1c"

// printVerbs are the fmt verbs every value the SDK returns is printed with,
// the bad ones included: fmt's bad-verb path prints what a pointer holds.
var printVerbs = []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"}

// jsonEscapes are the escapes a JSON encoder may write for an ASCII
// character: \/ and \uXXXX, hex digits in either case.
var jsonEscapes = regexp.MustCompile(`\\(/|u00[0-7][0-9a-fA-F])`)

// showsKey reports whether s holds key in a form a server may echo it in:
// as sent, JSON-escaped or as HTML character references (any of its
// characters), in any letter case.
func showsKey(s, key string) bool {
	json := jsonEscapes.ReplaceAllStringFunc(s, func(e string) string {
		if e == `\/` {
			return "/"
		}
		n, _ := strconv.ParseUint(e[2:], 16, 8)
		return string(rune(n))
	})
	key = strings.ToLower(key)
	return strings.Contains(strings.ToLower(json), key) || strings.Contains(strings.ToLower(html.UnescapeString(s)), key)
}

// each returns s with every character written as format: a JSON escape
// (`\u%04X`), a percent escape ("%%%02X") or an HTML character reference
// ("&#x%X;").
func each(s, format string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, format, c)
	}
	return b.String()
}

// assertNoKey fails if key, in any form showsKey knows, or its hex
// encoding, shows in any of the texts or in values printed with any of
// printVerbs.
func assertNoKey(t *testing.T, key string, texts map[string]string, values map[string]any) {
	t.Helper()
	holds := func(s string) bool {
		return showsKey(s, key) || showsKey(s, hex.EncodeToString([]byte(key)))
	}
	for name, s := range texts {
		if holds(s) {
			t.Errorf("%s holds the key: %s", name, s)
		}
	}
	for name, v := range values {
		for _, verb := range printVerbs {
			if s := fmt.Sprintf(verb, v); holds(s) {
				t.Errorf("%s (%T) printed with %s shows the key: %s", name, v, verb, s)
			}
		}
	}
}

// TestKeyNeverLeaks runs every flow, success and failure, over loopback
// sockets against a server that echoes the key in every header and error
// body it can, with a Debug logger, and looks for the key in every log
// record, every error string, and every value the SDK returns, printed with
// every verb. TestKeyNeverPrinted and TestLogsNeverHoldSecrets do the same
// for a few flows through a mock transport.
func TestKeyNeverLeaks(t *testing.T) {
	// Not parallel: t.Setenv.
	// Each flow is a GetPet id, a ListPets limit or a CreatePet name; the
	// plan gives it its fault.
	type flow struct {
		name string
		f    faultserver.Fault
	}
	flows := []flow{
		{"success", faultserver.Fault{Kind: faultserver.None}},
		{"429", faultserver.Fault{Kind: faultserver.Status429}},
		{"429 Retry-After", faultserver.Fault{Kind: faultserver.Status429RetryAfter}},
		{"429 Retry-After over max", faultserver.Fault{Kind: faultserver.Status429RetryAfterLong}},
		{"500 JSON", faultserver.Fault{Kind: faultserver.Status5xxJSON, Status: 500}},
		{"503 HTML", faultserver.Fault{Kind: faultserver.Status5xxHTML, Status: 503}},
		{"400", faultserver.Fault{Kind: faultserver.OtherStatus, Status: 400}},
		{"401", faultserver.Fault{Kind: faultserver.OtherStatus, Status: 401}},
		{"404", faultserver.Fault{Kind: faultserver.OtherStatus, Status: 404}},
		{"304", faultserver.Fault{Kind: faultserver.OtherStatus, Status: 304}},
		{"redirect to another origin", faultserver.Fault{Kind: faultserver.Redirect, Status: 307}},
		{"reset before headers", faultserver.Fault{Kind: faultserver.ResetBeforeHeaders}},
		{"reset after headers", faultserver.Fault{Kind: faultserver.ResetAfterHeaders}},
		{"truncated body", faultserver.Fault{Kind: faultserver.TruncatedBody}},
		{"stall", faultserver.Fault{Kind: faultserver.Stall}},
		{"malformed response", faultserver.Fault{Kind: faultserver.Malformed}},
		{"oversize body", faultserver.Fault{Kind: faultserver.Oversize}},
		{"bad body", faultserver.Fault{Kind: faultserver.BadBody}},
	}
	byKey := map[string]faultserver.Fault{}
	for i, fl := range flows {
		byKey[faultserver.ListKey(i+1, "")] = fl.f
		byKey[faultserver.GetKey(int64(i+1))] = fl.f
		byKey[faultserver.CreateKey("flow-"+strconv.Itoa(i+1))] = fl.f
	}
	srv := faultserver.New(t, leakKey, func(key string, _ int) faultserver.Fault { return byKey[key] })
	srv.Echo = true

	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var observed []Attempt // the calls are made one at a time
	c, err := NewClient(leakKey, WithBaseURL(srv.URL+"/v1"), WithLogger(logger), WithMaxRetries(1),
		WithRetryWait(time.Millisecond, time.Millisecond), WithTimeout(300*time.Millisecond),
		WithObserver(func(_ context.Context, a Attempt) { observed = append(observed, a) }))
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]any{"*Client": c, "Client": *c}
	texts := map[string]string{}
	calls := 0
	addErr := func(name string, err error) {
		calls++
		if err == nil {
			return
		}
		values[name] = err
		texts[name+": Error()"] = err.Error()
		var apiErr *APIError
		if errors.As(err, &apiErr) {
			values[name+": *APIError"] = apiErr
			values[name+": APIError"] = *apiErr
			texts[name+": APIError fields"] = apiErr.Code + " " + apiErr.Message + " " + apiErr.RequestID + " " + string(apiErr.Body)
		}
	}
	ctx := context.Background()
	for i, fl := range flows {
		pets, errList := c.ListPets(ctx, ListPetsParams{Limit: i + 1})
		pet, errGet := c.GetPet(ctx, int64(i+1))
		created, errCreate := c.CreatePet(ctx, NewPet{Name: "flow-" + strconv.Itoa(i+1), CategoryID: 1})
		values["ListPets "+fl.name+": pets"] = pets
		values["GetPet "+fl.name+": *Pet"] = pet
		values["CreatePet "+fl.name+": *Pet"] = created
		if pet != nil {
			values["GetPet "+fl.name+": Pet"] = *pet
		}
		for op, err := range map[string]error{"ListPets": errList, "GetPet": errGet, "CreatePet": errCreate} {
			name := op + " " + fl.name
			addErr(name, err)
			// The flow went as planned: a success, an *APIError with the
			// status, or another error.
			var apiErr *APIError
			switch status := fl.f.ErrorStatus(); {
			case fl.f.Kind != faultserver.Stall && errors.Is(err, context.DeadlineExceeded):
				t.Logf("%s: timed out on a loaded machine: %v", name, err)
			case (fl.f.Kind == faultserver.None) != (err == nil):
				t.Errorf("%s: error %v", name, err)
			case status != 0 && (!errors.As(err, &apiErr) || apiErr.Status != status):
				t.Errorf("%s: error %v; want an *APIError with Status %d", name, err, status)
			case failsWithoutResponse(fl.f) && errors.As(err, &apiErr):
				t.Errorf("%s: error %v; want one that is not an *APIError", name, err)
			}
		}
	}

	// Refused before sending, and context errors.
	_, err = c.ListPets(ctx, ListPetsParams{Limit: 101})
	addErr("invalid limit", err)
	_, err = c.CreatePet(ctx, NewPet{})
	addErr("empty name", err)
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = c.GetPet(canceled, 1)
	addErr("canceled", err)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = c.GetPet(short, int64(len(flows))) // a stall: the context ends first
	addErr("deadline", err)

	// NewClient's refusals, the key in every part of a URL it refuses,
	// whatever the job's environment says (the last two read it).
	t.Setenv(envBaseURL, "")
	t.Setenv(envInsecureHTTP, "")
	for name, opts := range map[string][]Option{
		"key as password":  {WithBaseURL("https://user:" + leakKey + "@petstore.example.com/v1")},
		"key as user":      {WithBaseURL("https://" + leakKey + "@petstore.example.com/v1")},
		"key in a query":   {WithBaseURL("https://petstore.example.com/v1?api_key=" + leakKey)},
		"key in fragment":  {WithBaseURL("https://petstore.example.com/v1#" + leakKey)},
		"key, bad URL":     {WithBaseURL("https://user:" + leakKey + "@petstore.example.com:port/v1")},
		"key over http":    {WithBaseURL("http://user:" + leakKey + "@example.com/v1")},
		"bad retry option": {WithMaxRetries(-1)},
	} {
		got, err := NewClient(leakKey, opts...)
		if err == nil {
			t.Errorf("NewClient %s: no error", name)
		}
		values["NewClient "+name+": client"] = got
		addErr("NewClient "+name, err)
	}
	_, err = NewClient(leakKey + "\r\n")
	addErr("NewClient key with CRLF", err)
	t.Setenv(envAPIKey, leakKey+"\x01")
	_, err = NewClient("")
	addErr("NewClient key from the environment with a control character", err)

	logger.Info("client", "client", c)
	texts["log records"] = logs.String()
	for i, a := range observed {
		name := fmt.Sprintf("Attempt %d (%s %s %d)", i, a.Operation, a.Path, a.Number)
		values[name] = a
		texts[name+": RequestID"] = a.RequestID
		if a.Err != nil {
			values[name+": Err"] = a.Err
			texts[name+": Err.Error()"] = a.Err.Error()
		}
	}
	if len(observed) < len(flows) {
		t.Fatalf("%d attempts observed; want at least %d", len(observed), len(flows))
	}
	if !strings.Contains(logs.String(), `"petstore: attempt"`) {
		t.Fatalf("no attempt records: %s", logs.String())
	}
	assertNoKey(t, leakKey, texts, values)
	t.Logf("%d calls: %d values printed with %d verbs, %d texts, %d bytes of logs; the key in none",
		calls, len(values), len(printVerbs), len(texts), logs.Len())
}

// TestKeyInAnotherFormNeverLogged: a request id that echoes the key in
// another letter case or JSON-escaped is redacted in the Debug records too.
func TestKeyInAnotherFormNeverLogged(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"req-" + strings.ToUpper(testKey), "req-" + each(testKey, `\u%04X`)} {
		var buf bytes.Buffer
		l := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		c, mt := newTestClient(t, WithLogger(l), WithMaxRetries(0))
		mt.RegisterResponder("GET", testPets, func(*http.Request) (*http.Response, error) {
			resp := httpmock.NewStringResponse(200, "[]")
			resp.Header.Set("X-Request-Id", id)
			return resp, nil
		})
		if _, err := c.ListPets(context.Background(), ListPetsParams{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), `"request_id":"req-[REDACTED]"`) {
			t.Errorf("X-Request-Id %q: no redacted request_id in the log:\n%s", id, buf.String())
		}
		assertNoKey(t, testKey, map[string]string{"log": buf.String()}, nil)
	}
}

// TestKeyNeverPrinted prints every value the SDK hands out, in every verb,
// and looks for the key.
func TestKeyNeverPrinted(t *testing.T) {
	t.Parallel()
	mt := httpmock.NewMockTransport()
	// A server that echoes the key in its error body and headers.
	echo := `{"code":"unauthorized","message":"bad key ` + testKey + `","status":401}`
	mt.RegisterResponder("GET", testPets, func(req *http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(401, echo)
		resp.Header.Set("X-Request-Id", "req-1")
		resp.Header.Set("WWW-Authenticate", "Bearer "+testKey)
		return resp, nil
	})
	mt.RegisterResponder("POST", testPets, httpmock.NewErrorResponder(errors.New("connection reset")))
	mt.RegisterResponder("GET", testPets+"/7", httpmock.NewStringResponder(200, "not json"))
	c, err := NewClient(testKey, WithBaseURL(testBase), WithHTTPClient(&http.Client{Transport: mt}), WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	errs := callAll(context.Background(), c)
	values := []any{c, *c, errs["ListPets"], errs["CreatePet"], errs["GetPet"]}
	var apiErr *APIError
	if !errors.As(errs["ListPets"], &apiErr) {
		t.Fatalf("ListPets error %v is not *APIError", errs["ListPets"])
	}
	values = append(values, apiErr, *apiErr, string(apiErr.Body), apiErr.Message)
	_, errBadKey := NewClient(testKey+"\n", WithBaseURL(testBase))
	_, errBadURL := NewClient(testKey, WithBaseURL("http://"+testKey+"@example.com/v1"))
	values = append(values, errBadKey, errBadURL)
	named := map[string]any{}
	for i, v := range values {
		named[fmt.Sprintf("value %d", i)] = v
	}
	assertNoKey(t, testKey, nil, named)
	if !strings.Contains(apiErr.Message, "[REDACTED]") {
		t.Errorf("APIError.Message = %q; want the echoed key redacted", apiErr.Message)
	}
}

// TestShortKeyAfterEquals: a short key (under 8 characters) that a 401
// message echoes right after "=" is redacted in Error(), %v and %+v (in a
// b64token "=" is only padding at its end, so a token starts after it),
// and a short key inside a longer token is left alone.
func TestShortKeyAfterEquals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, key, message, want string
	}{
		{"access_token=", "sk_7Qx", "bad access_token=sk_7Qx", "bad access_token=[REDACTED]"},
		{"api_key=", "sk_7Qx", "query api_key=sk_7Qx refused", "query api_key=[REDACTED] refused"},
		{"key=...&", "sk_7Qx", "GET /v1/pets?key=sk_7Qx&limit=2", "GET /v1/pets?key=[REDACTED]&limit=2"},
		{"an address with the key 1", "1", "no key at http://127.0.0.1:8080/v1", "no key at http://127.0.0.1:8080/v1"},
		{"ids with the key 1", "1", "pets 10, 21 and 1.5 are not yours", "pets 10, 21 and 1.5 are not yours"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mt := httpmock.NewMockTransport()
			body := `{"code":"unauthorized","message":` + strconv.Quote(tc.message) + `,"status":401}`
			mt.RegisterResponder("GET", testPets, httpmock.NewStringResponder(401, body))
			c, err := NewClient(tc.key, WithBaseURL(testBase), WithHTTPClient(&http.Client{Transport: mt}), WithMaxRetries(0))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.ListPets(context.Background(), ListPetsParams{})
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("ListPets error %v is not *APIError", err)
			}
			if diff := cmp.Diff(tc.want, apiErr.Message); diff != "" {
				t.Errorf("APIError.Message mismatch (-want +got):\n%s", diff)
			}
			for _, verb := range []string{"%v", "%+v", "%s"} {
				got := fmt.Sprintf(verb, err)
				if !strings.Contains(got, tc.want) {
					t.Errorf("%s: %q; want it to hold %q", verb, got, tc.want)
				}
				if tc.key != "1" && strings.Contains(got, tc.key) {
					t.Errorf("%s: %q shows the key %q", verb, got, tc.key)
				}
			}
		})
	}
}

// TestSuccessBodyIsTheCallersData: a 2xx body is returned as the server sent
// it, even when it holds the key: the SDK never alters the caller's data,
// and the README promises nothing else of a Pet.
func TestSuccessBodyIsTheCallersData(t *testing.T) {
	t.Parallel()
	c, mt := newTestClient(t)
	mt.RegisterResponder("GET", testPets+"/7", jsonResponder(200, `{"id":7,"name":"`+testKey+`","categoryId":1}`))
	pet, err := c.GetPet(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Pet{ID: 7, Name: testKey, CategoryID: 1}, pet); diff != "" {
		t.Errorf("GetPet (-want +got):\n%s", diff)
	}
	readme := read(t, "README.md")
	if strings.Contains(readme, "or a `Pet`, even when the server echoes") {
		t.Error("README.md promises that a Pet never shows the key, though the SDK returns a 2xx body as it is")
	}
	if !strings.Contains(readme, "a `Pet` holds whatever the server put in it") {
		t.Error("README.md does not say that a Pet holds what the server sent")
	}
}
