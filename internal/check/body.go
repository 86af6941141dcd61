package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/petstore/petstore-go"
)

// The bodies as they came, read with encoding/json, for what the SDK's
// decoder forgives or does not look at: member names in another letter
// case, a null for a required member, the status of an Error body.

// body is a 2xx body received whole: Pets (array) or one Pet.
type body struct {
	label string // the request, e.g. "GET /v1/pets?limit=100"
	array bool
	data  []byte
}

// keep keeps the body of c's last attempt for pet-fields, if it is a 2xx
// that arrived whole.
func (r *run) keep(c *capture, array bool) {
	if x := c.last(); x.success() {
		r.bodies = append(r.bodies, body{label: x.request, array: array, data: x.body})
	}
}

// petsProblems returns how many Pet objects b holds and what is wrong with
// them, a text of the server's shown with show.
func petsProblems(b body, show func(string) string) (int, []string) {
	if !b.array {
		return 1, petProblems("the Pet", b.data, show)
	}
	var pets []json.RawMessage
	if err := json.Unmarshal(b.data, &pets); err != nil || pets == nil {
		return 0, []string{"the body is not a JSON array"}
	}
	var problems []string
	for i, p := range pets {
		problems = append(problems, petProblems("pet "+strconv.Itoa(i), p, show)...)
	}
	return len(pets), problems
}

// petProblems returns what is wrong with one Pet object, named which, a
// text of the server's shown with show.
func petProblems(which string, raw []byte, show func(string) string) []string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return []string{which + " is not a JSON object"}
	}
	var problems []string
	for _, f := range []struct {
		name string
		ok   func(json.RawMessage) bool
		want string
	}{
		{"id", isInt64, "an int64"},
		{"name", isString, "a string"},
		{"categoryId", isInt64, "an int64"},
	} {
		v, ok := m[f.name]
		switch {
		case !ok:
			problems = append(problems, which+" has no "+f.name)
		case !f.ok(v):
			problems = append(problems, which+": "+f.name+" is "+kind(v)+", not "+f.want)
		}
	}
	if v, ok := m["status"]; ok {
		var st petstore.PetStatus
		if !isString(v) || json.Unmarshal(v, &st) != nil {
			problems = append(problems, which+": status is "+kind(v)+", not a string")
		} else if st != petstore.PetStatusAvailable && st != petstore.PetStatusPending && st != petstore.PetStatusSold {
			problems = append(problems, which+": status is "+show(string(st))+", not available, pending or sold")
		}
	}
	return problems
}

// isInt64 reports whether v is a JSON integer in int64's range.
func isInt64(v json.RawMessage) bool {
	_, err := strconv.ParseInt(string(v), 10, 64)
	return err == nil
}

// isString reports whether v is a JSON string.
func isString(v json.RawMessage) bool { return len(v) > 0 && v[0] == '"' }

// kind names the kind of a JSON value (json.Unmarshal has checked it).
func kind(v json.RawMessage) string {
	switch {
	case len(v) == 0:
		return "nothing"
	case v[0] == '"':
		return "a string"
	case v[0] == '{':
		return "an object"
	case v[0] == '[':
		return "an array"
	case v[0] == 't' || v[0] == 'f':
		return "a boolean"
	case v[0] == 'n':
		return "null"
	}
	return "the number " + string(v)
}

// wantError returns the verdict on a request, what, that the interface
// answers with status want and an Error body: err is the SDK's, x what
// came back.
func (r *run) wantError(x exchange, err error, want int, what string) Result {
	says := fmt.Sprintf("; the interface says %d with an Error body", want)
	var ae *petstore.APIError
	switch {
	case err == nil:
		return fail("%s answered %d with a body the SDK accepted%s", what, x.status, says)
	case !errors.As(err, &ae):
		return fail("%s: %s%s", what, r.short(err.Error()), says)
	case ae.Status != want:
		return fail("%s answered %d (%s)%s", what, ae.Status, r.short(err.Error()), says)
	}
	if p := errorProblem(ae.Body, want); p != "" {
		return fail("%s answered %d, but %s%s whose code and message are strings and whose status is %d", what, want, p, says, want)
	}
	return pass("%s answered %d with an Error body (code %q)", what, want, r.short(ae.Code))
}

// errorProblem returns what keeps body from being an Error object whose
// status is want, or "".
func errorProblem(body []byte, want int) string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return "the body is not a JSON object"
	}
	var problems []string
	for _, name := range []string{"code", "message"} {
		switch v, ok := m[name]; {
		case !ok:
			problems = append(problems, "no "+name)
		case !isString(v):
			problems = append(problems, name+" is "+kind(v))
		}
	}
	switch v, ok := m["status"]; {
	case !ok:
		problems = append(problems, "no status")
	case string(v) != strconv.Itoa(want):
		problems = append(problems, "status is "+kind(v))
	}
	if len(problems) == 0 {
		return ""
	}
	return "in its body: " + strings.Join(problems, ", ")
}

// maxShort bounds a text a server chose, quoted in a Detail.
const maxShort = 200

// short returns s, redacted, then cut to maxShort bytes (redacted first,
// so that no cut leaves a piece of the key that the redactor misses).
func (r *run) short(s string) string {
	s = r.red.String(s)
	if len(s) <= maxShort {
		return s
	}
	i := maxShort
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}

// quote returns s, a text of the server's, shortened and quoted: redacted
// before it is quoted, as quoting doubles the backslash of an escape.
func (r *run) quote(s string) string { return strconv.Quote(r.short(s)) }

// pet describes p in a Detail.
func (r *run) pet(p petstore.Pet) string {
	return fmt.Sprintf("{id %d, name %q, categoryId %d, status %q}", p.ID, r.short(p.Name), p.CategoryID, r.short(string(p.Status)))
}

// list joins the first three of items, and says how many more there are.
func list(items []string) string {
	if len(items) <= 3 {
		return strings.Join(items, "; ")
	}
	return strings.Join(items[:3], "; ") + fmt.Sprintf("; and %d more", len(items)-3)
}

// plural returns n and noun, in the plural unless n is 1: "1 animal", "2
// animals", "3 bodies".
func plural(n int, noun string) string {
	switch {
	case n == 1:
	case strings.HasSuffix(noun, "y"):
		noun = noun[:len(noun)-1] + "ies"
	default:
		noun += "s"
	}
	return strconv.Itoa(n) + " " + noun
}
