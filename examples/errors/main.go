// Errors shows how to handle the SDK's errors with errors.Is and errors.As,
// against an in-memory fake Pet Store (package petstoretest):
//
//	go run ./examples/errors
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// describe says what kind of failure err is, the way an application would
// tell them apart.
func describe(err error) string {
	var apiErr *petstore.APIError
	switch {
	case err == nil:
		return "success"
	case errors.Is(err, petstore.ErrInvalidParams):
		return "refused by the SDK, nothing sent: " + err.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out: " + err.Error()
	case errors.Is(err, petstore.ErrUnauthorized):
		errors.As(err, &apiErr)
		return fmt.Sprintf("bad API key (status %d, code %s, request id %s)", apiErr.Status, apiErr.Code, apiErr.RequestID)
	case errors.Is(err, petstore.ErrNotFound):
		return "not found: " + err.Error()
	case errors.As(err, &apiErr):
		return fmt.Sprintf("API error: status %d, code %q, retry after %v", apiErr.Status, apiErr.Code, apiErr.RetryAfter)
	default:
		return "transport error: " + err.Error()
	}
}

// run makes calls that fail in different ways and prints how each failed.
func run(ctx context.Context, w io.Writer) error {
	srv := petstoretest.NewServer()
	defer srv.Close()
	srv.AddPet(petstore.NewPet{Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable})
	fast := petstore.WithRetryWait(5*time.Millisecond, 50*time.Millisecond)
	c, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL), fast)
	if err != nil {
		return err
	}
	step := func(what string, err error) {
		fmt.Fprintf(w, "%-34s %s\n", what+":", describe(err))
	}

	// 401: the server refuses the key.
	wrongKey, err := petstore.NewClient("wrong-key", petstore.WithBaseURL(srv.URL))
	if err != nil {
		return err
	}
	_, err = wrongKey.ListPets(ctx, petstore.ListPetsParams{})
	step("wrong key", err)

	// 404: a base URL without its /v1 segment.
	noVersion, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(strings.TrimSuffix(srv.URL, "/v1")))
	if err != nil {
		return err
	}
	_, err = noVersion.ListPets(ctx, petstore.ListPetsParams{})
	step("base URL without /v1", err)

	// ErrInvalidParams: the SDK checks parameters before sending.
	_, err = c.ListPets(ctx, petstore.ListPetsParams{Limit: 500})
	step("limit 500", err)

	// 503 twice: ListPets is retried (2 retries by default) and succeeds.
	srv.InjectFault(petstoretest.Fault{Operation: "ListPets", Status: http.StatusServiceUnavailable, Count: 2})
	before := srv.Requests()
	_, err = c.ListPets(ctx, petstore.ListPetsParams{})
	step(fmt.Sprintf("two 503s (%d attempts)", srv.Requests()-before), err)

	// 503 three times: after the 2 retries, the last response is the error.
	srv.InjectFault(petstoretest.Fault{Operation: "ListPets", Status: http.StatusServiceUnavailable, Count: 3})
	before = srv.Requests()
	_, err = c.ListPets(ctx, petstore.ListPetsParams{})
	step(fmt.Sprintf("three 503s (%d attempts)", srv.Requests()-before), err)

	// 429 asking to wait an hour: longer than WithRetryWait's max, so the
	// SDK does not wait; RetryAfter tells the caller when to come back.
	srv.InjectFault(petstoretest.Fault{Status: http.StatusTooManyRequests, RetryAfter: time.Hour})
	before = srv.Requests()
	_, err = c.ListPets(ctx, petstore.ListPetsParams{})
	step(fmt.Sprintf("429, retry after 1h (%d attempt)", srv.Requests()-before), err)

	// A server that does not answer in time: the context ends the call.
	srv.InjectFault(petstoretest.Fault{Delay: time.Hour})
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	_, err = c.ListPets(short, petstore.ListPetsParams{})
	step("server stalls", err)
	return nil
}
