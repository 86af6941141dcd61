package petstore_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

// This example lists the available animals, adds one, and lists them again,
// against the in-memory fake from package petstoretest. Against the real
// service, use petstore.NewClient("") with PETSTORE_API_KEY set.
func Example() {
	srv := petstoretest.NewServer()
	defer srv.Close()
	srv.AddPet(petstore.NewPet{Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable})

	c, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	available := petstore.ListPetsParams{Status: petstore.PetStatusAvailable}

	pets, err := c.ListPets(ctx, available)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("before:", len(pets), "available")

	pet, err := c.CreatePet(ctx, petstore.NewPet{Name: "Bella", CategoryID: 2, Status: petstore.PetStatusAvailable})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created:", pet.ID, pet.Name)

	pets, err = c.ListPets(ctx, available)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range pets {
		fmt.Println(p.ID, p.Name, p.Status)
	}
	// Output:
	// before: 1 available
	// created: 2 Bella
	// 1 Rex available
	// 2 Bella available
}

func ExampleNewClient() {
	srv := petstoretest.NewServer()
	defer srv.Close()

	// With "" as the key, NewClient reads PETSTORE_API_KEY. Without
	// WithBaseURL, it uses PETSTORE_BASE_URL, else petstore.ProductionURL.
	c, err := petstore.NewClient(srv.APIKey,
		petstore.WithBaseURL(srv.URL),                               // for example petstore.StagingURL
		petstore.WithMaxRetries(3),                                  // retries after the first attempt
		petstore.WithRetryWait(200*time.Millisecond, 5*time.Second), // backoff bounds
		petstore.WithTimeout(10*time.Second),                        // per attempt
		petstore.WithUserAgent("myapp/1.2"),
	)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // the whole call
	defer cancel()
	pets, err := c.ListPets(ctx, petstore.ListPetsParams{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(pets), "pets")
	// Output: 0 pets
}

func ExampleClient_ListPets() {
	srv := petstoretest.NewServer()
	defer srv.Close()
	srv.AddPet(petstore.NewPet{Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable})
	srv.AddPet(petstore.NewPet{Name: "Tom", CategoryID: 2, Status: petstore.PetStatusSold})

	c, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	pets, err := c.ListPets(context.Background(), petstore.ListPetsParams{Limit: 10, Status: petstore.PetStatusAvailable})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range pets {
		fmt.Println(p.Name, p.Status)
	}
	// Output: Rex available
}

func ExampleClient_CreatePet() {
	srv := petstoretest.NewServer()
	defer srv.Close()

	c, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	pet, err := c.CreatePet(context.Background(), petstore.NewPet{
		Name:       "Bella",
		CategoryID: 2,
		Status:     petstore.PetStatusPending, // optional
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%+v\n", *pet)
	// Output: {ID:1 Name:Bella CategoryID:2 Status:pending}
}

func ExampleAPIError() {
	srv := petstoretest.NewServer()
	defer srv.Close()

	c, err := petstore.NewClient("wrong-key", petstore.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.ListPets(context.Background(), petstore.ListPetsParams{})

	if errors.Is(err, petstore.ErrUnauthorized) {
		fmt.Println("the API key was refused")
	}
	var apiErr *petstore.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.Status, apiErr.Code, apiErr.Message)
	}
	// Output:
	// the API key was refused
	// 401 unauthorized invalid API key
}

// This example mocks the API at the HTTP level with httpmock, through a
// transport given to WithHTTPClient: no server, no network.
// This example gives up on a call while the SDK waits to retry a 503: the
// error matches context.Canceled and carries the 503's *APIError too, so
// the switch tests the context first.
func ExampleAPIError_contextFirst() {
	srv := petstoretest.NewServer()
	defer srv.Close()
	srv.InjectFault(petstoretest.Fault{Operation: "ListPets", Status: 503})

	c, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL), petstore.WithRetryWait(time.Hour, time.Hour))
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel) // the caller gives up
	_, err = c.ListPets(ctx, petstore.ListPetsParams{})

	var apiErr *petstore.APIError
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		fmt.Println("the call was given up") // it may also carry the last attempt's *APIError
	case errors.As(err, &apiErr):
		fmt.Println("the server answered", apiErr.Status)
	case err != nil:
		fmt.Println("no usable answer:", err)
	}
	// Output: the call was given up
}

func ExampleWithHTTPClient() {
	mt := httpmock.NewMockTransport()
	mt.RegisterResponder(http.MethodGet, "https://petstore.test/v1/pets",
		httpmock.NewJsonResponderOrPanic(http.StatusOK, []petstore.Pet{{ID: 1, Name: "Rex", CategoryID: 1}}))

	c, err := petstore.NewClient("test-key",
		petstore.WithBaseURL("https://petstore.test/v1"),
		petstore.WithHTTPClient(&http.Client{Transport: mt}),
	)
	if err != nil {
		log.Fatal(err)
	}
	pets, err := c.ListPets(context.Background(), petstore.ListPetsParams{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(pets[0].Name, "- calls:", mt.GetTotalCallCount())
	// Output: Rex - calls: 1
}

func ExampleWithLogger() {
	srv := petstoretest.NewServer()
	defer srv.Close()

	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" || a.Key == "host" {
				return slog.Attr{} // drop what changes from run to run (the fake's port)
			}
			return a
		},
	}))
	c, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL), petstore.WithLogger(logger))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.ListPets(context.Background(), petstore.ListPetsParams{Limit: 5}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// level=DEBUG msg="petstore: attempt" method=GET path=/v1/pets attempt=1 status=200 request_id=req-1
}

// This example counts retries by the status that caused them, as a metrics
// counter would, and reads the request id of one call that succeeded,
// through a Client from With whose observer does both.
func ExampleWithObserver() {
	srv := petstoretest.NewServer()
	defer srv.Close()
	srv.InjectFault(petstoretest.Fault{Operation: "ListPets", Status: 503, Count: 2})

	var mu sync.Mutex
	retries := map[int]int{} // by status; shared by every call of the Client
	countRetries := func(_ context.Context, a petstore.Attempt) {
		if a.Retry {
			mu.Lock()
			retries[a.Status]++
			mu.Unlock()
		}
	}
	c, err := petstore.NewClient(srv.APIKey,
		petstore.WithBaseURL(srv.URL),
		petstore.WithRetryWait(10*time.Millisecond, 100*time.Millisecond),
		petstore.WithObserver(countRetries),
	)
	if err != nil {
		log.Fatal(err)
	}
	// For one call: the same observer, and the request id of its last
	// attempt, which a call that succeeded ends with.
	var requestID string
	one, err := c.With(petstore.WithObserver(func(ctx context.Context, a petstore.Attempt) {
		countRetries(ctx, a)
		requestID = a.RequestID
	}))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := one.ListPets(context.Background(), petstore.ListPetsParams{}); err != nil {
		log.Fatal(err)
	}
	mu.Lock()
	fmt.Println("retries by status:", retries)
	mu.Unlock()
	fmt.Println("request id:", requestID)
	// Output:
	// retries by status: map[503:2]
	// request id: req-3
}

// This example makes two calls that differ from the Client's settings,
// without the cost of a second Client: a CreatePet that is not retried (a
// 429 comes back at once, for the caller's own queue to retry later), and
// one whose request id the caller keeps.
func ExampleClient_With() {
	srv := petstoretest.NewServer()
	defer srv.Close()
	srv.InjectFault(petstoretest.Fault{Operation: "CreatePet", Status: 429})

	c, err := petstore.NewClient(srv.APIKey, petstore.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	rex := petstore.NewPet{Name: "Rex", CategoryID: 1}

	noRetry, err := c.With(petstore.WithMaxRetries(0))
	if err != nil {
		log.Fatal(err)
	}
	_, err = noRetry.CreatePet(ctx, rex)
	fmt.Println("rate limited:", errors.Is(err, petstore.ErrRateLimited), "- retry later:", petstore.Retryable(err), "- requests:", srv.Requests())

	var requestID string
	traced, err := c.With(petstore.WithObserver(func(_ context.Context, a petstore.Attempt) {
		requestID = a.RequestID // the last attempt's
	}))
	if err != nil {
		log.Fatal(err)
	}
	pet, err := traced.CreatePet(ctx, rex)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created", pet.ID, pet.Name, "- request id:", requestID)
	// Output:
	// rate limited: true - retry later: true - requests: 1
	// created 1 Rex - request id: req-2
}

// This example measures calls beside attempts: rate, errors and duration
// per call around the method, which returns the call's outcome, and
// attempts and retry decisions from the observer. A retry decision is not
// an attempt made: here the caller gives up during the wait after one.
func ExampleWithObserver_callMetrics() {
	srv := petstoretest.NewServer()
	defer srv.Close()
	srv.InjectFault(petstoretest.Fault{Operation: "ListPets", Status: 503, Count: 2})

	// Per attempt, from the observer.
	var attempts, retryDecisions atomic.Int64
	observe := func(_ context.Context, a petstore.Attempt) {
		attempts.Add(1)
		if a.Retry {
			retryDecisions.Add(1)
		}
	}
	c, err := petstore.NewClient(srv.APIKey,
		petstore.WithBaseURL(srv.URL),
		petstore.WithRetryWait(10*time.Millisecond, 100*time.Millisecond),
		petstore.WithObserver(observe),
	)
	if err != nil {
		log.Fatal(err)
	}

	// Per call, around the method: rate, errors and duration (RED), by
	// operation, as counters and a histogram would take them.
	var mu sync.Mutex
	type red struct {
		calls, errors int
		seconds       float64
	}
	metrics := map[string]*red{}
	measure := func(op string, call func() error) {
		start := time.Now()
		err := call()
		mu.Lock()
		defer mu.Unlock()
		m := metrics[op]
		if m == nil {
			m = &red{}
			metrics[op] = m
		}
		m.calls++
		if err != nil {
			m.errors++
		}
		m.seconds += time.Since(start).Seconds()
	}

	ctx := context.Background()
	measure("ListPets", func() error { // two 503s, retried, then 200
		_, err := c.ListPets(ctx, petstore.ListPetsParams{})
		return err
	})
	srv.InjectFault(petstoretest.Fault{Operation: "ListPets", Status: 503})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// For this example, a caller that gives up during the wait.
	givesUp, err := c.With(petstore.WithObserver(func(ctx context.Context, a petstore.Attempt) {
		observe(ctx, a)
		if a.Retry {
			cancel()
		}
	}))
	if err != nil {
		log.Fatal(err)
	}
	measure("ListPets", func() error { // a 503, then the caller gives up
		_, err := givesUp.ListPets(ctx, petstore.ListPetsParams{})
		return err
	})

	m := metrics["ListPets"]
	fmt.Printf("ListPets calls: %d, errors: %d, duration recorded: %v\n", m.calls, m.errors, m.seconds > 0)
	fmt.Printf("attempts: %d, retry decisions: %d, retries made: %d\n", attempts.Load(), retryDecisions.Load(), attempts.Load()-int64(m.calls))
	// Output:
	// ListPets calls: 2, errors: 1, duration recorded: true
	// attempts: 4, retry decisions: 3, retries made: 2
}
