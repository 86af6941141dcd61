package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/petstore/petstore-go"
)

// petJSON is an animal of a -pets file or of a PUT /_fake/pets body.
// Pointers tell a missing field from a zero one.
type petJSON struct {
	ID         *int64  `json:"id"`
	Name       *string `json:"name"`
	CategoryID *int64  `json:"categoryId"`
	Status     *string `json:"status"`
}

// decodePets reads a JSON array of animals, as a -pets file and PUT
// /_fake/pets give them, such as the output of GET /v1/pets or GET
// /_fake/pets. Each is checked as POST /pets checks one, except that unknown
// fields are refused (a typo such as "categoryID" would otherwise go
// unnoticed; see decodeStrict) and an id may be given: 0 or none for the next free one (as
// [petstoretest.Server.SetPets] numbers them), never negative nor twice.
func decodePets(data []byte) ([]petstore.Pet, error) {
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '[' {
		return nil, errors.New(`want a JSON array of animals, such as [{"name": "Rex", "categoryId": 1}]`)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	pets := make([]petstore.Pet, 0, len(raws))
	first := make(map[int64]int, len(raws)) // id → the animal that has it, from 1
	for i, raw := range raws {
		p, err := decodePet(raw)
		if err == nil && p.ID != 0 && first[p.ID] != 0 {
			err = fmt.Errorf("id %d is animal %d's already", p.ID, first[p.ID])
		}
		if err != nil {
			return nil, fmt.Errorf("animal %d: %v", i+1, err)
		}
		if p.ID != 0 {
			first[p.ID] = i + 1
		}
		pets = append(pets, p)
	}
	return pets, nil
}

// decodePet decodes and checks one animal of decodePets.
func decodePet(raw json.RawMessage) (petstore.Pet, error) {
	if raw[0] != '{' {
		return petstore.Pet{}, errors.New("want an object with name, categoryId and optional status and id")
	}
	pj, err := decodeStrict[petJSON](raw)
	if err != nil {
		return petstore.Pet{}, fmt.Errorf("%v (want id: integer, name: string, categoryId: integer, status: string)", err)
	}
	var p petstore.Pet
	switch {
	case pj.Name == nil || *pj.Name == "":
		return p, errors.New("name is required")
	case pj.CategoryID == nil:
		return p, errors.New("categoryId is required")
	case pj.ID != nil && *pj.ID < 0:
		return p, errors.New("id " + strconv.FormatInt(*pj.ID, 10) + " is negative (leave it out, or give 0, for the next free one)")
	}
	p.Name, p.CategoryID = *pj.Name, *pj.CategoryID
	if pj.ID != nil {
		p.ID = *pj.ID
	}
	if pj.Status != nil {
		switch st := petstore.PetStatus(*pj.Status); st {
		case petstore.PetStatusAvailable, petstore.PetStatusPending, petstore.PetStatusSold:
			p.Status = st
		default:
			return p, fmt.Errorf("status %q is not available, pending or sold", *pj.Status)
		}
	}
	return p, nil
}
