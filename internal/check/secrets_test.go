package check

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/petstore/petstore-go/internal/redact"
)

// secretKey holds a "/" (which JSON may escape as "\/") and a "+" (which
// JSON may escape as "\u002B" and a URL as "%2B").
const secretKey = "Sk-Test/9f+Ab0123456789"

// echoServer is a deployment that puts form, a form of the key, in every
// text it chooses (inside the quotes of a JSON string as it is, in a header
// as that JSON string says): the code and message of its errors, the names and
// statuses of its animals, its headers. It breaks the interface in many
// ways, so that those texts reach the checks' Details.
type echoServer struct{ form string }

func (e echoServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f := e.form
	var h string // in a header: what the JSON string says
	if err := json.Unmarshal([]byte(`"`+f+`"`), &h); err != nil {
		panic(err)
	}
	w.Header().Set("X-Request-Id", h)
	w.Header().Set("Content-Type", "application/json")
	pet := func(id string) string {
		return `{"id":` + id + `,"name":"` + f + `","categoryId":1,"status":"` + f + `"}`
	}
	switch {
	case r.Header.Get("Authorization") != "Bearer "+secretKey:
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"code":"`+f+`","message":"`+f+`","status":401}`)
	case r.URL.Query().Get("limit") == "101":
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"code":"`+f+`","message":"`+f+`","status":"`+f+`"}`)
	case r.Method == http.MethodPost:
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, pet("7"))
	case r.URL.Path == "/v1/pets":
		io.WriteString(w, "["+pet("1")+`,{"id":2,"name":"b","categoryId":1,"status":"available"},`+pet(`"x"`)+"]")
	default: // GetPet: another animal, never a 404
		w.Header().Set("Deprecation", h)
		w.Header().Set("Sunset", h)
		io.WriteString(w, pet("3"))
	}
}

// TestKeyNeverShown: whatever a deployment echoes, in whatever form, no
// result shows the key.
func TestKeyNeverShown(t *testing.T) {
	t.Parallel()
	forms := map[string]string{
		"plain":          secretKey,
		"JSON-escaped":   strings.NewReplacer("/", `\/`, "+", `\u002B`).Replace(secretKey),
		"percent":        strings.NewReplacer("/", "%2F", "+", "%2b").Replace(secretKey),
		"upper case":     strings.ToUpper(secretKey),
		"at the cut":     strings.Repeat("x", maxShort-6) + secretKey, // cut after 6 bytes of the key, or of [REDACTED]
		"twice, escaped": secretKey + `\u002b` + strings.ReplaceAll(secretKey, "/", `\/`),
		// JSON whose strings hold the escaped key: `\\/` is the text `\/`.
		"escaped twice": strings.NewReplacer("/", `\\/`, "+", `\\u002B`).Replace(secretKey),
	}
	red := redact.New(secretKey)
	for name, form := range forms {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(echoServer{form})
			t.Cleanup(srv.Close)
			var results []Result
			cfg := Config{APIKey: secretKey, Options: testOptions(srv.URL + "/v1"), Write: true}
			fails, err := Run(context.Background(), cfg, func(r Result) { results = append(results, r) })
			if err != nil || fails == 0 {
				t.Fatalf("Run = %d, %v; want FAILs and no error", fails, err)
			}
			shown := 0
			for _, r := range results {
				line := r.String()
				if red.String(line) != line || strings.Contains(strings.ToLower(line), strings.ToLower(secretKey)) || strings.Contains(line, secretKey[:6]) {
					t.Errorf("a result shows the key: %s", line)
				}
				shown += strings.Count(line, "[REDAC")
			}
			if shown < 10 {
				t.Errorf("%d results show [REDACTED] where the key was, want at least 10: the server's texts did not reach the Details", shown)
			}
		})
	}
}

// TestShortRedactsBeforeCutting: a key that a cut would split is redacted
// first, so no piece of it is left.
func TestShortRedactsBeforeCutting(t *testing.T) {
	t.Parallel()
	r := &run{red: redact.New(secretKey)}
	for n := maxShort - len(secretKey); n <= maxShort; n++ {
		got := r.short(strings.Repeat("é", n/2) + strings.Repeat("x", n%2) + secretKey + "tail")
		if len(got) > maxShort+len("...") || !utf8.ValidString(got) || strings.Contains(got, secretKey[:8]) || !strings.HasSuffix(got, "...") && !strings.HasSuffix(got, "tail") {
			t.Errorf("short(%d bytes, then the key) = %q", n, got)
		}
	}
}
