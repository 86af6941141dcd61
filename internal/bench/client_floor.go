package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"

	petstore "github.com/petstore/petstore-go"
)

// newFloor returns the floor: what any client of this API must do, and
// nothing more. A request out (the URL, headers and CreatePet's body made
// once), http.Client.Do, the body read; nothing encoded or decoded per call,
// no retry, no time limit. Its Result decodes the last body with
// encoding/json, outside the calls measured.
func newFloor(baseURL string, hc *http.Client) (*Client, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	return adapt(func() *Client { return floorCalls(baseURL, hc) }), nil
}

// floorCalls returns the floor's calls through hc, keeping the bodies they
// read apart from any other Client's.
func floorCalls(baseURL string, hc *http.Client) *Client {
	auth := []string{"Bearer " + Key}
	newPet := mustJSON(NewPet)
	bodies := map[string][]byte{}
	do := func(ctx context.Context, op, method, url string, body []byte, want int) error {
		var r io.Reader
		if body != nil {
			r = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, url, r)
		if err != nil {
			return err
		}
		req.Header["Authorization"] = auth
		req.Header["Accept"] = jsonType
		if body != nil {
			req.Header["Content-Type"] = jsonType
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != want {
			return fmt.Errorf("%s %s: status %d", method, url, resp.StatusCode)
		}
		bodies[op] = data
		return nil
	}
	listURL, petsURL, petURL := baseURL+"/pets?limit=100", baseURL+"/pets", baseURL+"/pets/42"
	decode := func(op string, v any) any {
		if err := json.Unmarshal(bodies[op], v); err != nil {
			return err
		}
		return reflect.ValueOf(v).Elem().Interface()
	}
	return &Client{
		Name: "floor",
		Call: map[string]func(context.Context) error{
			"ListPets": func(ctx context.Context) error {
				return do(ctx, "ListPets", http.MethodGet, listURL, nil, http.StatusOK)
			},
			"CreatePet": func(ctx context.Context) error {
				return do(ctx, "CreatePet", http.MethodPost, petsURL, newPet, http.StatusCreated)
			},
			"GetPet": func(ctx context.Context) error {
				return do(ctx, "GetPet", http.MethodGet, petURL, nil, http.StatusOK)
			},
			OpListPetsNonASCII: func(ctx context.Context) error {
				return do(ctx, OpListPetsNonASCII, http.MethodGet, listURL+"&status=available", nil, http.StatusOK)
			},
		},
		Result: map[string]func() any{
			"ListPets":         func() any { return decode("ListPets", new([]petstore.Pet)) },
			"CreatePet":        func() any { return decode("CreatePet", new(petstore.Pet)) },
			"GetPet":           func() any { return decode("GetPet", new(petstore.Pet)) },
			OpListPetsNonASCII: func() any { return decode(OpListPetsNonASCII, new([]petstore.Pet)) },
		},
	}
}
