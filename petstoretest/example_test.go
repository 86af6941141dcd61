package petstoretest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

func ExampleNewServer() {
	srv := petstoretest.NewServer()
	defer srv.Close()
	srv.AddPet(petstore.NewPet{Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable})

	c, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.CreatePet(context.Background(), petstore.NewPet{Name: "Tom", CategoryID: 2}); err != nil {
		log.Fatal(err)
	}
	fmt.Println("created:", srv.Created())
	fmt.Println("stored:", srv.Pets())
	// Output:
	// created: [{2 Tom 2 }]
	// stored: [{1 Rex 1 available} {2 Tom 2 }]
}

// A program serving the fake at an address of its choice, with its own key,
// printing each request (as cmd/petstore-fake does).
func ExampleNewUnstartedServer() {
	l, err := net.Listen("tcp", "127.0.0.1:0") // or a fixed port, such as "127.0.0.1:8080"
	if err != nil {
		log.Fatal(err)
	}
	srv := petstoretest.NewUnstartedServer()
	defer srv.Close()
	srv.Listener = l
	srv.APIKey = "my-test-key"
	next := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("request:", r.Method, r.URL.Path)
		next.ServeHTTP(w, r)
	})
	srv.AddPet(petstore.NewPet{Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable})
	srv.Start()

	c, err := petstore.NewClient("my-test-key", petstore.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	pets, err := c.ListPets(context.Background(), petstore.ListPetsParams{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("pets:", pets)
	// Output:
	// request: GET /v1/pets
	// pets: [{1 Rex 1 available}]
}

func ExampleServer_InjectFault() {
	srv := petstoretest.NewServer()
	defer srv.Close()
	c, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL),
		petstore.WithRetryWait(10*time.Millisecond, 100*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	// The next two ListPets requests answer 503: the client retries.
	srv.InjectFault(petstoretest.Fault{Operation: "ListPets", Status: http.StatusServiceUnavailable, Count: 2})
	_, err = c.ListPets(ctx, petstore.ListPetsParams{})
	fmt.Println("after two 503s:", err, "- requests:", srv.Requests())

	// A 429 asking to come back in a minute: the client does not wait that long.
	srv.InjectFault(petstoretest.Fault{Status: http.StatusTooManyRequests, RetryAfter: time.Minute})
	_, err = c.ListPets(ctx, petstore.ListPetsParams{})
	var apiErr *petstore.APIError
	if errors.As(err, &apiErr) {
		fmt.Println("429: retry after", apiErr.RetryAfter)
	}

	// A request that stalls longer than the caller is ready to wait.
	srv.InjectFault(petstoretest.Fault{Delay: time.Minute})
	ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = c.CreatePet(ctx, petstore.NewPet{Name: "Rex", CategoryID: 1})
	fmt.Println("stalled:", errors.Is(err, context.DeadlineExceeded))
	// Output:
	// after two 503s: <nil> - requests: 3
	// 429: retry after 1m0s
	// stalled: true
}

// A test of code that creates an animal: what did it send, and what does it
// do when the answer is cut short?
func ExampleServer_Received() {
	srv := petstoretest.NewServer()
	defer srv.Close()
	c, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	// The body the code under test sent, as the server received it.
	if _, err := c.CreatePet(ctx, petstore.NewPet{Name: "Rex", CategoryID: 1}); err != nil {
		log.Fatal(err)
	}
	r := srv.Received()[0]
	fmt.Println(r.Operation, r.Status, string(r.Body))

	// The connection drops halfway through the answer: the animal was
	// created, so the SDK does not send the request again.
	srv.Reset()
	srv.InjectFault(petstoretest.Fault{Operation: "CreatePet", CutBody: true})
	_, err = c.CreatePet(ctx, petstore.NewPet{Name: "Tom", CategoryID: 2})
	fmt.Println("error:", err != nil, "- created:", srv.Created(), "- requests:", len(srv.Received()))
	// Output:
	// CreatePet 201 {"name":"Rex","categoryId":1}
	// error: true - created: [{1 Tom 2 }] - requests: 1
}
