package petstore

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/petstore/petstore-go/internal/jsonscan"
)

// PetStatus is an animal's availability. A Pet from the server may carry a
// value other than the three below; it is kept as it is.
type PetStatus string

// The availability statuses of the interface.
const (
	PetStatusAvailable PetStatus = "available"
	PetStatusPending   PetStatus = "pending"
	PetStatusSold      PetStatus = "sold"
)

// valid reports whether s is one of the three statuses.
func (s PetStatus) valid() bool {
	return s == PetStatusAvailable || s == PetStatusPending || s == PetStatusSold
}

// NewPet is an animal to add with [Client.CreatePet]. Name is required;
// CategoryID is sent as it is (the interface requires it but states no range);
// Status, when set, is one of the PetStatus constants.
type NewPet struct {
	Name       string    `json:"name"`
	CategoryID int64     `json:"categoryId"`
	Status     PetStatus `json:"status,omitempty"`
}

// Pet is an animal as the API returns it, with the ID the service assigned.
type Pet struct {
	ID         int64     `json:"id"`
	Name       string    `json:"name"`
	CategoryID int64     `json:"categoryId"`
	Status     PetStatus `json:"status,omitempty"`
}

// ListPetsParams filters [Client.ListPets]. The zero value asks for the
// server's defaults.
type ListPetsParams struct {
	Limit  int       // 0: the server's default (20); otherwise 1..100
	Status PetStatus // "": no filter
}

// ListPets returns the animals that match p. p.Limit asks the server for at
// most that many (the server's default, 20, when it is 0); the SDK returns
// what the server sent, without cutting it. It returns an empty, non-nil
// slice when none match.
func (c *Client) ListPets(ctx context.Context, p ListPetsParams) ([]Pet, error) {
	if p.Limit < 0 || p.Limit > 100 {
		return nil, &ParamError{Field: "ListPetsParams.Limit", Value: strconv.Itoa(p.Limit), Reason: "want 1..100, or 0 for the server's default"}
	}
	if p.Status != "" && !p.Status.valid() {
		return nil, &ParamError{Field: "ListPetsParams.Status", Value: string(p.Status), Reason: wantStatus}
	}
	// The query as url.Values.Encode writes it (keys sorted); the values
	// need no escaping: digits, and one of the three statuses.
	var query string
	if p.Limit != 0 || p.Status != "" {
		var buf [48]byte
		q := buf[:0]
		if p.Limit != 0 {
			q = strconv.AppendInt(append(q, "limit="...), int64(p.Limit), 10)
		}
		if p.Status != "" {
			if len(q) > 0 {
				q = append(q, '&')
			}
			q = append(append(q, "status="...), p.Status...)
		}
		query = string(q)
	}
	var pets []Pet
	err := c.do(ctx, opListPets, 0, query, nil, func(data []byte) (err error) {
		pets, err = decodePets(data)
		return err
	})
	return pets, err
}

// CreatePet adds an animal and returns it as the server stored it, with its
// new ID. It is sent again or retried only when the server cannot have
// acted on it (a 429, no connection, its body never read, a stream refused
// or excluded by a GOAWAY, a failed HTTP/1.1 write), so one call never
// creates two animals. When the request may have reached the server and got
// no usable answer, the error matches [ErrOutcomeUnknown]: list the animals
// before creating it again.
func (c *Client) CreatePet(ctx context.Context, p NewPet) (*Pet, error) {
	if p.Name == "" {
		return nil, &ParamError{Field: "NewPet.Name", Reason: "is empty"}
	}
	if p.Status != "" && !p.Status.valid() {
		return nil, &ParamError{Field: "NewPet.Status", Value: string(p.Status), Reason: wantStatus}
	}
	var pet *Pet
	err := c.do(ctx, opCreatePet, 0, "", appendNewPet(nil, p), func(data []byte) (err error) {
		pet, err = decodePet(data)
		return err
	})
	return pet, err
}

// GetPet returns the animal with the given id; a missing one is an
// [*APIError] that matches [ErrNotFound].
//
// ListPets cannot replace it everywhere: it returns at most 100 animals,
// with no id filter and no way to the next page, so where more than 100
// animals share a status, some of them can be reached only by id. That gap
// is the API's, and the interface names no other replacement.
//
// Deprecated: the API removes this endpoint on 5 December 2030. Use
// [Client.ListPets] with a Status filter instead, where it finds the animal.
func (c *Client) GetPet(ctx context.Context, id int64) (*Pet, error) {
	c.warnDeprecated(ctx)
	var pet *Pet
	err := c.do(ctx, opGetPet, id, "", nil, func(data []byte) (err error) {
		pet, err = decodePet(data)
		return err
	})
	return pet, err
}

// appendNewPet appends p as JSON to dst, byte for byte as json.Marshal
// writes it (the fuzz test FuzzEncodeNewPet holds it to that), without its
// reflection: one allocation, for the body.
func appendNewPet(dst []byte, p NewPet) []byte {
	if dst == nil {
		dst = make([]byte, 0, len(`{"name":"","categoryId":-9223372036854775808,"status":"available"}`)+len(p.Name)+len(p.Status))
	}
	dst = appendJSONString(append(dst, `{"name":`...), p.Name)
	dst = strconv.AppendInt(append(dst, `,"categoryId":`...), p.CategoryID, 10)
	if p.Status != "" {
		dst = appendJSONString(append(dst, `,"status":`...), string(p.Status))
	}
	return append(dst, '}')
}

// appendJSONString appends s as a JSON string, escaped as json.Marshal
// escapes it: ", \ and control characters, <, > and & (for HTML), invalid
// UTF-8 as U+FFFD, and U+2028 and U+2029 (for JavaScript).
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}

// The bodies of the three operations are decoded with internal/jsonscan,
// without reflection, and accepted, refused and read exactly as
// encoding/json would decode them into a struct with pointer fields (the
// fuzz tests in decode_fuzz_test.go hold them to it): members matched by
// name as encoding/json folds case, unknown ones skipped, the last of a
// repeated member winning, a null leaving the field unset; id, name and
// categoryId required.

// rawPet is one Pet object as read: the last value of each member, the
// strings still as they stand in the body.
type rawPet struct {
	id, categoryID         int64
	name                   jsonscan.Span // kept for each Pet of a list
	status                 jsonscan.Str
	hasID, hasName, hasCat bool
	hasStatus              bool
}

// petFields are the members of a Pet object, in the order of the constants
// below.
var petFields = jsonscan.NewFields("id", "name", "categoryId", "status")

// The members of a Pet object, as petFields numbers them.
const (
	petID = iota
	petName
	petCategoryID
	petStatus
)

// decode reads a Pet object.
func (p *rawPet) decode(d *jsonscan.Decoder) error {
	obj := d.Object(petFields)
	for obj.Next() {
		var err error
		switch obj.Field() {
		case petID:
			p.id, p.hasID, err = d.Int64OrNull()
		case petName:
			p.name, p.hasName, err = d.SpanOrNull()
		case petCategoryID:
			p.categoryID, p.hasCat, err = d.Int64OrNull()
		case petStatus:
			p.status, p.hasStatus, err = d.StrOrNull()
		default:
			err = d.Skip()
		}
		if err != nil {
			return err
		}
	}
	return obj.Err()
}

// check reports a missing required member.
func (p *rawPet) check() error {
	switch {
	case !p.hasID:
		return errors.New("pet has no id")
	case !p.hasName:
		return errors.New("pet has no name")
	case !p.hasCat:
		return errors.New("pet has no categoryId")
	}
	return nil
}

// petStatus returns the status read, without allocating for the three
// known values.
func (p *rawPet) petStatus() PetStatus {
	if !p.hasStatus {
		return ""
	}
	raw := p.status.Raw()
	if !p.status.Plain() {
		var buf [16]byte
		raw = p.status.AppendTo(buf[:0])
	}
	switch string(raw) {
	case "available":
		return PetStatusAvailable
	case "pending":
		return PetStatusPending
	case "sold":
		return PetStatusSold
	}
	return PetStatus(raw)
}

// minPetLen is the length of the shortest Pet object that has its three
// required members, `{"id":0,"name":"","categoryId":0}`, plus a comma.
const minPetLen = 34

// maxPets is how many Pets ListPets asks for at most: decodePets keeps that
// many names on its stack.
const maxPets = 100

// decodePets decodes an array of Pet objects. The names share one
// allocation, and escaped ones are unescaped through one buffer: two
// allocations in all, for up to maxPets Pets.
func decodePets(data []byte) ([]Pet, error) {
	d := jsonscan.NewDecoder(data)
	switch d.Next() {
	case jsonscan.Array:
	case jsonscan.Null:
		if err := d.Null(); err != nil {
			return nil, err
		}
		return nil, errors.New("null instead of an array of pets")
	default:
		return nil, d.TypeError("an array of pets")
	}
	// Room for every Pet: each is an object, so has a '{', and takes at
	// least minPetLen bytes.
	n := min(bytes.Count(data, []byte{'{'}), len(data)/minPetLen+1)
	pets := make([]Pet, 0, n)
	var spans [maxPets]jsonscan.Span
	names := spans[:0] // each Pet's name as read
	size := 0          // and their length
	arr := d.Array()
	for arr.Next() {
		switch d.Next() {
		case jsonscan.Object:
		case jsonscan.Null:
			return nil, errors.New("pet " + strconv.Itoa(len(pets)) + " is null")
		default:
			return nil, d.TypeError("a pet object")
		}
		var p rawPet
		if err := p.decode(d); err != nil {
			return nil, err
		}
		if err := p.check(); err != nil {
			return nil, errors.New("pet " + strconv.Itoa(len(pets)) + ": " + err.Error())
		}
		pets = append(pets, Pet{ID: p.id, CategoryID: p.categoryID, Status: p.petStatus()})
		names = append(names, p.name)
		size += len(d.At(p.name).Raw()) // no less than the name unescaped, but for invalid UTF-8
	}
	if err := arr.Err(); err != nil {
		return nil, err
	}
	if err := d.End(); err != nil {
		return nil, err
	}
	setNames(d, pets, names, size)
	return pets, nil
}

// setNames sets each Pet's Name, all of them slices of one string of about
// size bytes (their length as read: no less, once unescaped, unless they
// hold invalid UTF-8, which then takes one more allocation): names are
// where d read them. The escaped ones are unescaped through one buffer, on
// the stack unless one is long.
func setNames(d *jsonscan.Decoder, pets []Pet, names []jsonscan.Span, size int) {
	var b strings.Builder
	b.Grow(size)
	var buf [128]byte
	unescaped := buf[:0]
	for i, sp := range names {
		off := b.Len()
		if s := d.At(sp); s.Plain() {
			b.Write(s.Raw())
		} else {
			unescaped = s.AppendTo(unescaped[:0])
			b.Write(unescaped)
		}
		// What a Builder has built stays as it is: this Name is kept
		// while b goes on (and if b grows, the Names before stay where
		// they are).
		pets[i].Name = b.String()[off:]
	}
}

// decodePet decodes one Pet object.
func decodePet(data []byte) (*Pet, error) {
	d := jsonscan.NewDecoder(data)
	switch d.Next() {
	case jsonscan.Object:
	case jsonscan.Null:
		if err := d.Null(); err != nil {
			return nil, err
		}
		if err := d.End(); err != nil {
			return nil, err
		}
		return nil, errors.New("null instead of a pet")
	default:
		return nil, d.TypeError("a pet object")
	}
	var p rawPet
	if err := p.decode(d); err != nil {
		return nil, err
	}
	if err := d.End(); err != nil {
		return nil, err
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	return &Pet{ID: p.id, Name: d.At(p.name).String(), CategoryID: p.categoryID, Status: p.petStatus()}, nil
}
