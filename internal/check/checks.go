package check

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/petstore/petstore-go"
)

// The checks, one function each, in the order of the checks table. Each
// says in its Detail what it sent and what came back, and, on FAIL, what
// the interface says instead.

// wrongKey is the key auth-wrong-key sends: a bearer token the SDK accepts,
// which no deployment should.
const wrongKey = "petstore-check-wrong-key"

// checkName is the name create-pet gives its animal.
const checkName = "petstore check"

// pass, fail and info return a Result of their verdict, its Detail
// formatted as fmt.Sprintf does; Run sets its Name.
func pass(format string, a ...any) Result { return verdict(Pass, format, a...) }

func fail(format string, a ...any) Result { return verdict(Fail, format, a...) }

func info(format string, a ...any) Result { return verdict(Info, format, a...) }

func verdict(v Verdict, format string, a ...any) Result {
	return Result{Verdict: v, Detail: fmt.Sprintf(format, a...)}
}

// authMissingKey: a request without a key answers 401 with an Error body.
func (r *run) authMissingKey(ctx context.Context) Result {
	c, cp, err := r.client(r.cfg.APIKey, withoutKey)
	if err != nil {
		return fail("%v", err)
	}
	_, err = c.ListPets(ctx, petstore.ListPetsParams{})
	return r.wantError(cp.last(), err, http.StatusUnauthorized, "GET /pets without an Authorization header")
}

// authWrongKey: a request with a key the deployment did not issue answers
// 401 with an Error body.
func (r *run) authWrongKey(ctx context.Context) Result {
	key := wrongKey
	if r.red.String(key) != key { // the real key, improbably
		key += "-x"
	}
	c, cp, err := r.client(key, nil)
	if err != nil {
		return fail("%v", err)
	}
	_, err = c.ListPets(ctx, petstore.ListPetsParams{})
	return r.wantError(cp.last(), err, http.StatusUnauthorized, "GET /pets with a wrong key")
}

// listDefaultLimit: a list without a limit has at most 20 animals.
func (r *run) listDefaultLimit(context.Context) Result {
	if r.firstErr != nil {
		return fail("GET /pets: %s; the interface says 200 with Pets (an array of Pet)", r.short(r.firstErr.Error()))
	}
	if n := len(r.first); n > 20 {
		return fail("GET /pets without a limit returned %d animals; the interface says at most 20 (the default limit)", n)
	}
	return pass("GET /pets without a limit returned %s (at most 20)", plural(len(r.first), "animal"))
}

// listAll returns ListPets with a limit of 100, made on the first call only.
func (r *run) listAll(ctx context.Context) ([]petstore.Pet, error) {
	if !r.allDone {
		r.all, r.allErr = r.main.ListPets(ctx, petstore.ListPetsParams{Limit: 100})
		r.allDone = true
		r.keep(r.cap, true)
	}
	return r.all, r.allErr
}

// listLimit: a list is at most limit animals, for 100 and for a limit
// below the number of animals that 100 gets, when that is at least two.
func (r *run) listLimit(ctx context.Context) Result {
	all, err := r.listAll(ctx)
	if err != nil {
		return fail("GET /pets?limit=100: %s; the interface says 200 with Pets", r.short(err.Error()))
	}
	n := len(all)
	if n > 100 {
		return fail("GET /pets?limit=100 returned %d animals; the interface says at most 100", n)
	}
	if n < 2 {
		return info("GET /pets?limit=100 returned %s: a limit below that number needs at least 2 to be checked", plural(n, "animal"))
	}
	page, err := r.main.ListPets(ctx, petstore.ListPetsParams{Limit: n - 1})
	r.keep(r.cap, true)
	if err != nil {
		return fail("GET /pets?limit=%d: %s; the interface says 200 with Pets", n-1, r.short(err.Error()))
	}
	if len(page) > n-1 {
		return fail("GET /pets?limit=%d returned %d animals; the interface says at most %d", n-1, len(page), n-1)
	}
	return pass("GET /pets?limit=100 returned %d animals, GET /pets?limit=%d returned %d", n, n-1, len(page))
}

// statusCheck returns the check that the status filter st returns only
// animals of that status, and some when a list without it shows some.
func statusCheck(st petstore.PetStatus) func(*run, context.Context) Result {
	return func(r *run, ctx context.Context) Result {
		what := "GET /pets?limit=100&status=" + string(st)
		pets, err := r.main.ListPets(ctx, petstore.ListPetsParams{Limit: 100, Status: st})
		r.keep(r.cap, true)
		if err != nil {
			return fail("%s: %s; the interface says 200 with Pets", what, r.short(err.Error()))
		}
		var other []string
		for _, p := range pets {
			if p.Status != st {
				other = append(other, fmt.Sprintf("id %d is %q", p.ID, r.short(string(p.Status))))
			}
		}
		if len(other) > 0 {
			return fail("%s returned %s, %d of another status (%s); the interface says only %s ones",
				what, plural(len(pets), "animal"), len(other), list(other), st)
		}
		if len(pets) > 0 {
			return pass("%s returned %s, all %s", what, plural(len(pets), "animal"), st)
		}
		all, _ := r.listAll(ctx)
		if k := countStatus(all, st); k > 0 {
			return fail("%s returned none, but GET /pets?limit=100 lists %d %s animals; the interface says the filter returns that status's animals", what, k, st)
		}
		return info("no animal listed is %s, and %s returned none: the filter could not be checked", st, what)
	}
}

// countStatus returns how many of pets have status st.
func countStatus(pets []petstore.Pet, st petstore.PetStatus) int {
	k := 0
	for _, p := range pets {
		if p.Status == st {
			k++
		}
	}
	return k
}

// getPet: GetPet of a listed id returns that animal.
func (r *run) getPet(ctx context.Context) Result {
	all, err := r.listAll(ctx)
	switch {
	case err != nil:
		return info("not checked: GET /pets?limit=100 failed (see list-limit)")
	case len(all) == 0:
		return info("not checked: GET /pets?limit=100 lists no animal to get")
	}
	return r.getSame(ctx, all[0], "a listed id", "GET /pets listed")
}

// getSame gets want.ID and expects want, which source says where it was seen.
func (r *run) getSame(ctx context.Context, want petstore.Pet, which, source string) Result {
	//lint:ignore SA1019 the interface still states what GET /pets/{petId} does until it is removed.
	got, err := r.main.GetPet(ctx, want.ID)
	r.keepGet()
	r.keep(r.cap, false) // a 2xx the SDK refused too
	what := fmt.Sprintf("GET /pets/%d (%s)", want.ID, which)
	if err != nil {
		return fail("%s: %s; the interface says 200 with that Pet", what, r.short(err.Error()))
	}
	if *got != want {
		return fail("%s returned %s; %s %s", what, r.pet(*got), source, r.pet(want))
	}
	return pass("%s returned the animal %s", what, source)
}

// keepGet keeps the headers of the first GetPet response, for
// get-pet-deprecation.
func (r *run) keepGet() {
	if x := r.cap.last(); r.getHead == nil && x.header != nil {
		r.getHead = x.header
	}
}

// getPetAbsent: GetPet of an id no animal has answers 404 with an Error
// body. The id is the largest int64 that is not listed: the interface
// states no range, and a service that numbers from 1 never reaches it.
func (r *run) getPetAbsent(ctx context.Context) Result {
	all, _ := r.listAll(ctx)
	id := int64(math.MaxInt64)
	for slices.ContainsFunc(all, func(p petstore.Pet) bool { return p.ID == id }) {
		id--
	}
	//lint:ignore SA1019 the interface still states what GET /pets/{petId} does until it is removed.
	_, err := r.main.GetPet(ctx, id)
	r.keepGet()
	return r.wantError(r.cap.last(), err, http.StatusNotFound, fmt.Sprintf("GET /pets/%d (an id not listed)", id))
}

// getPetDeprecation (INFO): the Deprecation and Sunset headers of GetPet.
// The interface marks the endpoint deprecated, to be removed on 5 December
// 2030, and says nothing of headers.
func (r *run) getPetDeprecation(context.Context) Result {
	if r.getHead == nil {
		return info("no response to GET /pets/{petId} arrived")
	}
	dep, sunset := r.getHead.Get("Deprecation"), r.getHead.Get("Sunset")
	if dep == "" && sunset == "" {
		return info("GET /pets/{petId} sends no Deprecation or Sunset header")
	}
	note := ""
	if t, err := http.ParseTime(sunset); err == nil {
		if y, m, d := t.UTC().Date(); y == 2030 && m == time.December && d == 5 {
			note = " (the interface's removal date)"
		} else {
			note = " (not the interface's removal date, 5 December 2030)"
		}
	}
	return info("GET /pets/{petId} sends Deprecation: %q, Sunset: %q%s", r.short(dep), r.short(sunset), note)
}

// listLimit101 (INFO): what a limit above the interface's maximum gets.
func (r *run) listLimit101(ctx context.Context) Result {
	c, cp, err := r.client(r.cfg.APIKey, withLimit(101))
	if err != nil {
		return fail("%v", err)
	}
	pets, err := c.ListPets(ctx, petstore.ListPetsParams{Limit: 100})
	r.keep(cp, true)
	var ae *petstore.APIError
	switch {
	case err == nil:
		return info("GET /pets?limit=101 answered %d with %s", cp.last().status, plural(len(pets), "animal"))
	case errors.As(err, &ae):
		return info("GET /pets?limit=101 answered %d: %s", ae.Status, r.short(err.Error()))
	}
	return info("GET /pets?limit=101: %s", r.short(err.Error()))
}

// createPet: CreatePet answers 201 with the animal sent and its id. It
// sends the categoryId of a listed animal, if any (the interface does not
// say which categories exist), and no status.
func (r *run) createPet(ctx context.Context) Result {
	r.category = 1
	if all, _ := r.listAll(ctx); len(all) > 0 {
		r.category = all[0].CategoryID
	}
	np := petstore.NewPet{Name: checkName, CategoryID: r.category}
	p, err := r.main.CreatePet(ctx, np)
	r.keep(r.cap, false) // a 2xx the SDK refused too
	if err != nil {
		return fail("POST /pets: %s; the interface says 201 with the created Pet", r.short(err.Error()))
	}
	r.created = p
	var seen []string
	if st := r.cap.last().status; st != http.StatusCreated {
		seen = append(seen, fmt.Sprintf("answered %d", st))
	}
	if p.Name != np.Name || p.CategoryID != np.CategoryID {
		seen = append(seen, fmt.Sprintf("returned %s for name %q, categoryId %d", r.pet(*p), np.Name, np.CategoryID))
	}
	if len(seen) > 0 {
		return fail("POST /pets %s; the interface says 201 with the created animal and its id", strings.Join(seen, " and "))
	}
	return pass("POST /pets answered 201 with %s", r.pet(*p))
}

// createDefaultStatus (INFO): the status of an animal created without one.
func (r *run) createDefaultStatus(context.Context) Result {
	switch {
	case r.created == nil:
		return info("not checked: create-pet created no animal")
	case r.created.Status == "":
		return info("an animal created without a status has none")
	}
	return info("an animal created without a status has status %q", r.short(string(r.created.Status)))
}

// createGetPet: GetPet finds the animal created.
func (r *run) createGetPet(ctx context.Context) Result {
	if r.created == nil {
		return info("not checked: create-pet created no animal")
	}
	return r.getSame(ctx, *r.created, "the id created", "POST /pets created")
}

// createMissingName: a body without name answers 400 with an Error body.
func (r *run) createMissingName(ctx context.Context) Result {
	body := fmt.Appendf(nil, `{"categoryId":%d}`, r.category)
	c, cp, err := r.client(r.cfg.APIKey, withBody(body))
	if err != nil {
		return fail("%v", err)
	}
	_, err = c.CreatePet(ctx, petstore.NewPet{Name: checkName, CategoryID: r.category})
	return r.wantError(cp.last(), err, http.StatusBadRequest, "POST /pets with "+string(body))
}

// petFields: every Pet received has its required fields, of their types.
func (r *run) petFields(context.Context) Result {
	if len(r.bodies) == 0 {
		return info("no body with animals was received")
	}
	var problems []string
	n := 0
	for _, b := range r.bodies {
		k, ps := petsProblems(b, r.quote)
		n += k
		for _, p := range ps {
			problems = append(problems, b.label+": "+r.short(p))
		}
	}
	if len(problems) > 0 {
		return fail("%s (%s); the interface says every Pet has id (int64), name (string) and categoryId (int64), and status, if present, one of available, pending, sold",
			plural(len(problems), "problem"), list(problems))
	}
	return pass("%s in %s have id, name and categoryId of their types, and status, if present, one of the three", plural(n, "animal"), plural(len(r.bodies), "body"))
}
