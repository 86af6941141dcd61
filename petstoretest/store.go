package petstoretest

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/petstore/petstore-go"
)

// AddPet stores an animal as if it had been created, and returns it with its
// new ID. It does not count as a request and does not appear in
// [Server.Created]. AddPet panics if p would be refused by POST /pets (empty
// name or unknown status), which is appropriate for test setup.
func (s *Server) AddPet(p petstore.NewPet) petstore.Pet {
	if err := checkPet(p.Name, p.Status); err != "" {
		panic("petstoretest: AddPet: " + err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pet, ok := s.store(p)
	if !ok {
		panic("petstoretest: AddPet: " + noIDLeft)
	}
	return pet
}

// SetPets replaces every animal with pets, keeping their ids: an animal with
// ID 0 gets the next id after the largest one given, in order, and the next
// animal created gets the id after all of them (1 when pets is empty). It
// does not change [Server.Created], the faults or the journal. SetPets
// panics, changing nothing, on an animal that POST /pets would refuse
// (empty name or unknown status), a negative id, an id given twice, or an
// id so large that the animals with ID 0 after it find no id, which is
// appropriate for test setup. An animal may have id math.MaxInt64: the
// next create is then refused (507 ids_exhausted), as ids never wrap.
func (s *Server) SetPets(pets []petstore.Pet) {
	var largest, unnumbered int64
	seen := make(map[int64]bool, len(pets))
	for i, p := range pets {
		at := "SetPets: animal " + strconv.Itoa(i) + ": "
		switch err := checkPet(p.Name, p.Status); {
		case err != "":
			panic("petstoretest: " + at + err)
		case p.ID < 0:
			panic("petstoretest: " + at + "negative ID " + strconv.FormatInt(p.ID, 10))
		case p.ID > 0 && seen[p.ID]:
			panic("petstoretest: " + at + "ID " + strconv.FormatInt(p.ID, 10) + " is given twice")
		}
		seen[p.ID] = true
		largest = max(largest, p.ID)
		if p.ID == 0 {
			unnumbered++
		}
	}
	if largest > math.MaxInt64-unnumbered {
		panic("petstoretest: SetPets: ID " + strconv.FormatInt(largest, 10) + " leaves no id for the animals after it")
	}
	stored := slices.Clone(pets)
	for i := range stored {
		if stored[i].ID == 0 {
			largest++
			stored[i].ID = largest
		}
	}
	slices.SortFunc(stored, func(a, b petstore.Pet) int { return cmp.Compare(a.ID, b.ID) })
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pets, s.lastID = stored, largest
}

// checkPet returns why POST /pets would refuse an animal with this name and
// status, or "".
func checkPet(name string, status petstore.PetStatus) string {
	switch {
	case name == "":
		return "empty Name"
	case status != "" && !validStatus(status):
		return "unknown Status " + strconv.Quote(string(status))
	}
	return ""
}

// noIDLeft says why an animal cannot be stored once an id of
// math.MaxInt64 was given: ids never wrap.
const noIDLeft = "no id left: an animal has id 9223372036854775807, the largest there is"

// store adds p with the id after the largest given so far, and reports
// false, storing nothing, when that was math.MaxInt64. s.mu must be held.
func (s *Server) store(p petstore.NewPet) (petstore.Pet, bool) {
	if s.lastID == math.MaxInt64 {
		return petstore.Pet{}, false
	}
	s.lastID++
	pet := petstore.Pet{ID: s.lastID, Name: p.Name, CategoryID: p.CategoryID, Status: p.Status}
	s.pets = append(s.pets, pet)
	return pet, true
}

// Pets returns a copy of every stored animal, seeded or created, in id order.
func (s *Server) Pets() []petstore.Pet {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pets)
}

// Created returns a copy of the animals created through POST /pets, in the
// order the server created them.
func (s *Server) Created() []petstore.Pet {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.created)
}
