package otelcheck

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/petstore/petstore-go"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
)

// ctx stands for the caller's context in the docs/observability.md snippet below: in a
// server, the request's, which holds its span.
var ctx = context.Background()

// Example_tracing is the snippet of docs/observability.md's "Tracing with
// OpenTelemetry" section, word for word (TestREADMESnippet checks it). It has
// no Output comment, so it is compiled, not run: it would call the real API.
func Example_tracing() {
	hc := &http.Client{Transport: otelhttp.NewTransport(http.DefaultTransport)}
	c, err := petstore.NewClient("", petstore.WithHTTPClient(hc))
	if err != nil {
		log.Fatal(err)
	}
	pets, err := c.ListPets(ctx, petstore.ListPetsParams{}) // one client span per attempt, under ctx's span
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(pets), "pets")
}
