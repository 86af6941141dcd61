package bench

import (
	"bytes"
	"fmt"
	"net/url"
	"unicode/utf16"

	petstore "github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/internal/bench/handclient"
	"github.com/petstore/petstore-go/internal/bench/oapiclient"
	"github.com/petstore/petstore-go/internal/bench/ogenclient"
)

// OpListPetsNonASCII is ListPets over a body of 100 pets whose names are not
// ASCII: é, ü, 日本, emoji. A quarter of them are written with \u escapes,
// as encoders that escape every non-ASCII character write them (Python's
// json.dumps, Jackson with ESCAPE_NON_ASCII); the others as encoding/json
// writes them, in UTF-8 (with its \u0026 for an ampersand). The clients ask
// for ListPets with limit=100&status=available, which the canned server
// answers with this body.
const OpListPetsNonASCII = "ListPetsNonASCII"

func init() { Ops = append(Ops, OpListPetsNonASCII) }

// The non-ASCII fixture: what the clients must decode, and the body.
var (
	WantPetsNonASCII = makeNonASCIIPets(100)
	NonASCIIListBody = nonASCIIJSON(WantPetsNonASCII) // about 9.1 KB
)

func makeNonASCIIPets(n int) []petstore.Pet {
	given := []string{"Chloé", "Jürgen", "日本", "Zoë", "Søren", "ハナ", "Ёжик", "Renée", "Mochi 🍡", "Ben & Jerry", "Łucja", "🐶 Bär"}
	kinds := []string{"Hund", "Chat", "Papagei", "Hamster", "金魚", "Kaninchen", "Schildkröte"}
	pets := make([]petstore.Pet, n)
	for i := range pets {
		pets[i] = petstore.Pet{
			ID:         200000 + int64(i),
			Name:       fmt.Sprintf("%s the %s, Nº %03d", given[i%len(given)], kinds[i%len(kinds)], i),
			CategoryID: int64(i%len(kinds)) + 1,
			Status:     petstore.PetStatusAvailable,
		}
	}
	return pets
}

// nonASCIIJSON returns pets as a JSON array, every fourth name with each
// non-ASCII character as a \u escape (a surrogate pair beyond U+FFFF).
func nonASCIIJSON(pets []petstore.Pet) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, p := range pets {
		if i > 0 {
			b.WriteByte(',')
		}
		if i%4 != 3 {
			b.Write(mustJSON(p))
			continue
		}
		name := mustJSON(p.Name) // the quotes and any escape of encoding/json
		var esc []byte
		for _, r := range string(name) {
			switch {
			case r < 0x80:
				esc = append(esc, byte(r))
			case r > 0xFFFF:
				r1, r2 := utf16.EncodeRune(r)
				esc = fmt.Appendf(esc, `\u%04x\u%04x`, r1, r2)
			default:
				esc = fmt.Appendf(esc, `\u%04x`, r)
			}
		}
		fmt.Fprintf(&b, `{"id":%d,"name":%s,"categoryId":%d,"status":%q}`, p.ID, esc, p.CategoryID, p.Status)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// isNonASCIIList reports whether a request is the ListPets call that
// OpListPetsNonASCII makes.
func isNonASCIIList(method, path, rawQuery string) bool {
	q, err := url.ParseQuery(rawQuery)
	return err == nil && method == "GET" && path == "/v1/pets" && len(q) == 2 &&
		q.Get("limit") == "100" && q.Get("status") == "available"
}

// The peer clients' calls for OpListPetsNonASCII, and their results in the
// SDK's types.

var ogenNonASCIIParams = ogenclient.ListPetsParams{
	Limit:  ogenclient.NewOptInt(100),
	Status: ogenclient.NewOptPetStatus(ogenclient.PetStatusAvailable),
}

func ogenPets(res ogenclient.ListPetsRes, err error, pets **ogenclient.Pets) error {
	if err != nil {
		return err
	}
	var ok bool
	if *pets, ok = res.(*ogenclient.Pets); !ok {
		return fmt.Errorf("response %T", res)
	}
	return nil
}

func fromOgenPets(pets ogenclient.Pets) []petstore.Pet {
	out := make([]petstore.Pet, len(pets))
	for i, p := range pets {
		out[i] = fromOgen(p)
	}
	return out
}

func oapiNonASCIIParams() *oapiclient.ListPetsParams {
	limit, status := 100, oapiclient.Available
	return &oapiclient.ListPetsParams{Limit: &limit, Status: &status}
}

func oapiPets(res *oapiclient.ListPetsResponse, err error, pets *[]oapiclient.Pet) error {
	if err != nil {
		return err
	}
	if res.JSON200 == nil {
		return fmt.Errorf("status %d", res.StatusCode())
	}
	*pets = *res.JSON200
	return nil
}

func fromOapiPets(pets []oapiclient.Pet) []petstore.Pet {
	out := make([]petstore.Pet, len(pets))
	for i, p := range pets {
		out[i] = fromOapi(p)
	}
	return out
}

func fromHandPets(pets []handclient.Pet) []petstore.Pet {
	out := make([]petstore.Pet, len(pets))
	for i, p := range pets {
		out[i] = fromHand(p)
	}
	return out
}
