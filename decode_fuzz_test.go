package petstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Differential fuzz tests of the body decoders (decodePets and decodePet in
// pets.go, decodeErrorBody in errors.go): each must accept, refuse and read
// every input as the reference decoders below, which use encoding/json as
// the SDK once did. Their seeds (the f.Add calls and testdata/fuzz/<Name>)
// run in every go test; .ci/run also fuzzes each for a bounded time:
//
//	go test -run='^$' -fuzz='^FuzzDecodePets$' -fuzztime=15s .

// wirePet is a Pet as JSON, with pointers to see which fields are present.
type wirePet struct {
	ID         *int64     `json:"id"`
	Name       *string    `json:"name"`
	CategoryID *int64     `json:"categoryId"`
	Status     *PetStatus `json:"status"`
}

func (w *wirePet) pet() (Pet, error) {
	switch {
	case w.ID == nil:
		return Pet{}, errors.New("pet has no id")
	case w.Name == nil:
		return Pet{}, errors.New("pet has no name")
	case w.CategoryID == nil:
		return Pet{}, errors.New("pet has no categoryId")
	}
	p := Pet{ID: *w.ID, Name: *w.Name, CategoryID: *w.CategoryID}
	if w.Status != nil {
		p.Status = *w.Status
	}
	return p, nil
}

func refDecodePet(data []byte) (*Pet, error) {
	var w *wirePet
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, err
	}
	if w == nil {
		return nil, errors.New("null instead of a pet")
	}
	p, err := w.pet()
	if err != nil {
		return nil, err
	}
	return &p, nil
}

func refDecodePets(data []byte) ([]Pet, error) {
	var ws []*wirePet
	if err := json.Unmarshal(data, &ws); err != nil {
		return nil, err
	}
	if ws == nil {
		return nil, errors.New("null instead of an array of pets")
	}
	pets := make([]Pet, len(ws))
	for i, w := range ws {
		if w == nil {
			return nil, fmt.Errorf("pet %d is null", i)
		}
		p, err := w.pet()
		if err != nil {
			return nil, fmt.Errorf("pet %d: %w", i, err)
		}
		pets[i] = p
	}
	return pets, nil
}

func refDecodeErrorBody(data []byte) (errorBody, error) {
	var shape struct {
		Code    *string `json:"code"`
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(data, &shape); err != nil {
		return errorBody{}, err
	}
	var e errorBody
	if shape.Code != nil {
		e.code, e.hasCode = *shape.Code, true
	}
	if shape.Message != nil {
		e.message, e.hasMessage = *shape.Message, true
	}
	return e, nil
}

// seeds are inputs for all three decoders: the tricky cases of JSON and of
// encoding/json's decoding into structs.
var seeds = func() []string {
	pet := `{"id":1,"name":"Rex","categoryId":2,"status":"available"}`
	s := []string{
		pet,
		`[` + pet + `]`,
		`[` + pet + `,{"id":-9,"name":"","categoryId":0}]`,
		`[]`, ` [ ] `, `[null]`, `null`, ` null `, `nul`, `nullx`, ``, ` `, `{}`, `[{}]`, `[]]`, `[],`, `[` + pet + `,]`, `[,]`,
		`true`, `false`, `0`, `"x"`, `[1]`, `[[]]`, `[""]`,
		`{"code":"not_found","message":"pet 7 not found","status":404}`,
		`{"code":null,"message":"m"}`, `{"code":1}`, `{"message":"a","message":null}`, `{"CODE":"c","Message":"m"}`,
		`{"code":"c"} x`, `{"code":"c"}` + "\t\r\n ", "\f{}", `{"code":"c",}`, `{"code" "c"}`, `{"code":"c" "m"}`,
		`{"meſſage":"m","\u0063ode":"c"}`, `{"code":[1,{"a":null}]}`, `[{"code":"x","message":"y","id":1,"name":"n","categoryId":1}]`,
		// Field names: case, escapes, folding (U+017F long s, U+212A Kelvin), near misses.
		`{"ID":1,"NAME":"n","CATEGORYID":2,"STATUS":"sold"}`,
		`{"Id":1,"nAmE":"n","categoryid":2,"Status":"pending"}`,
		`{"\u0069d":1,"na\u006De":"n","categoryI\u0064":2}`,
		`{"id":1,"name":"n","categoryId":2,"ſtatus":"sold"}`,
		`{"id":1,"name":"n","categoryId":2,"\u017ftatus":"sold"}`,
		`{"id":1,"name":"n","categoryId":2,"ſTATUS":"x"}`,
		`{"id":1,"name":"n","categoryId":2,"K":1,"\u212a":2}`,
		`{"İd":1,"name":"n","categoryId":2}`, `{"ıd":1,"name":"n","categoryId":2}`,
		`{"id":1,"name":"n","category_id":2}`, `{"id":1,"name":"n","categoryId ":2}`, `{"id":1,"name":"n","categoryIdx":2}`,
		`{"id":1,"name":"n","categoryId":2,"i\u0000d":5}`, "{\"id\":1,\"name\":\"n\",\"categoryId\":2,\"i\xffd\":5}",
		`{"id":1,"name":"n","categoryId":2,"\ud800id":5}`,
		// Duplicates: the last wins; a later null resets to missing.
		`{"id":1,"id":2,"name":"a","name":"b","categoryId":3,"categoryId":4,"status":"sold","status":"x"}`,
		`{"id":1,"name":"n","categoryId":2,"id":null}`,
		`{"id":1,"name":"n","categoryId":2,"name":null}`,
		`{"id":1,"name":"n","categoryId":2,"status":"sold","status":null}`,
		`{"id":null,"id":1,"name":"n","categoryId":2}`,
		`{"id":1,"ID":2,"name":"n","categoryId":2}`,
		// Missing and null required fields.
		`{"name":"n","categoryId":2}`, `{"id":1,"categoryId":2}`, `{"id":1,"name":"n"}`,
		`{"id":null,"name":"n","categoryId":2}`, `{"id":1,"name":null,"categoryId":2}`,
		`{"id":1,"name":"n","categoryId":null}`, `{"id":1,"name":"n","categoryId":2,"status":null}`,
		// Numbers.
		`{"id":9223372036854775807,"name":"n","categoryId":-9223372036854775808}`,
		`{"id":9223372036854775808,"name":"n","categoryId":2}`,
		`{"id":-9223372036854775809,"name":"n","categoryId":2}`,
		`{"id":99999999999999999999,"name":"n","categoryId":2}`,
		`{"id":18446744073709551616,"name":"n","categoryId":2}`,
		`{"id":1.0,"name":"n","categoryId":2}`, `{"id":1e2,"name":"n","categoryId":2}`, `{"id":1E2,"name":"n","categoryId":2}`,
		`{"id":-0,"name":"n","categoryId":2}`, `{"id":01,"name":"n","categoryId":2}`, `{"id":-,"name":"n","categoryId":2}`,
		`{"id":"1","name":"n","categoryId":2}`, `{"id":true,"name":"n","categoryId":2}`, `{"id":[1],"name":"n","categoryId":2}`,
		`{"id":{},"name":"n","categoryId":2}`, `{"id":1,"name":1,"categoryId":2}`, `{"id":1,"name":"n","categoryId":2,"status":1}`,
		`{"id":1,"name":"n","categoryId":2,"x":-0.5e-3}`, `{"id":1,"name":"n","categoryId":2,"x":1.}`,
		`{"id":1,"name":"n","categoryId":2,"x":.5}`, `{"id":1,"name":"n","categoryId":2,"x":1e}`, `{"id":1,"name":"n","categoryId":2,"x":+1}`,
		`{"id":1,"name":"n","categoryId":2,"x":1E+9}`, `{"id":1,"name":"n","categoryId":2,"x":0x1}`,
		// Strings: escapes, surrogates, invalid UTF-8, control characters.
		`{"id":1,"name":"a\"b\\c\/d\be\ff\ng\rh\ti","categoryId":2}`,
		`{"id":1,"name":"\u00e9\u20AC\ud83d\ude00","categoryId":2}`,
		`{"id":1,"name":"\ud83d","categoryId":2}`, `{"id":1,"name":"\ude00\ud83d","categoryId":2}`,
		`{"id":1,"name":"\ud83d\u0041","categoryId":2}`, `{"id":1,"name":"\ud83dx","categoryId":2}`,
		`{"id":1,"name":"\ud83d\ud83d\ude00","categoryId":2}`, `{"id":1,"name":"\u0000","categoryId":2}`,
		`{"id":1,"name":"\u12","categoryId":2}`, `{"id":1,"name":"\u12G4","categoryId":2}`, `{"id":1,"name":"\x","categoryId":2}`,
		`{"id":1,"name":"\'","categoryId":2}`,
		"{\"id\":1,\"name\":\"a\xffb\xc3\",\"categoryId\":2}", "{\"id\":1,\"name\":\"\xed\xa0\x80\",\"categoryId\":2}",
		"{\"id\":1,\"name\":\"\xc0\xaf\",\"categoryId\":2}", "{\"id\":1,\"name\":\"\xef\xbf\xbd\",\"categoryId\":2}",
		"{\"id\":1,\"name\":\"a\nb\",\"categoryId\":2}", "{\"id\":1,\"name\":\"a\x7fb\",\"categoryId\":2}",
		"{\"id\":1,\"name\":\"a\tb\",\"categoryId\":2}", `{"id":1,"name":"Zoë 🐶","categoryId":2}`,
		`{"id":1,"name":"n","categoryId":2,"status":"\u0073old"}`, `{"id":1,"name":"n","categoryId":2,"status":"Sold"}`,
		`{"id":1,"name":"n","categoryId":2,"status":"unknown-status"}`, `{"id":1,"name":"n","categoryId":2,"status":""}`,
		`{"id":1,"name":"n","categoryId":2,"status":"sold\u0000"}`,
		// Whitespace.
		" \t\r\n{ \"id\" : 1 , \"name\" : \"n\" , \"categoryId\" : 2 } \t\r\n",
		"\v{\"id\":1,\"name\":\"n\",\"categoryId\":2}", "{\"id\":1,\"name\":\"n\",\"categoryId\":2}\u00a0",
		// Unknown members of every kind, nested.
		`{"id":1,"name":"n","categoryId":2,"tags":[{"a":[null,true,false,"s",-1.5e+10,{}]},[]],"o":{"p":{"q":"r"}}}`,
		`{"id":1,"name":"n","categoryId":2,"x":tru}`, `{"id":1,"name":"n","categoryId":2,"x":[1,]}`,
		`{"id":1,"name":"n","categoryId":2,"x":{"a"}}`, `{"id":1,"name":"n","categoryId":2,"x":{1:2}}`,
		`{"id":1,"name":"n","categoryId":2}{}`, `{"id":1,"name":"n","categoryId":2}]`,
		`{"id":1,"name":"n","categoryId":2`, `{"id":1,"name":"n","categoryId":2,`, `{"id":1,"name":"n`,
		`{"id":1 "name":"n","categoryId":2}`, `{id:1}`, `{'id':1}`,
	}
	// Names around the sizes decodePet allocates with the Pet.
	for _, n := range []int{1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 100} {
		name := strings.Repeat("x", n)
		s = append(s,
			`{"id":1,"name":"`+name+`","categoryId":2}`,
			`{"id":1,"name":"`+name[1:]+`\u00e9","categoryId":2}`,
			`{"id":1,"name":"\ud83d`+name[1:]+`","categoryId":2}`,
		)
	}
	// Depth: encoding/json allows 10000 nested levels and no more.
	for _, depth := range []int{9998, 9999, 10000} {
		inner := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		s = append(s,
			`[{"id":1,"name":"n","categoryId":2,"x":`+inner+`}]`,
			`{"id":1,"name":"n","categoryId":2,"x":`+inner+`}`,
			`{"code":"c","x":`+inner+`}`,
			strings.Repeat("[", depth)+strings.Repeat("]", depth),
		)
	}
	return s
}()

// short quotes an input for a failure message, cut if it is long.
func short(data []byte) string {
	if len(data) > 200 {
		return fmt.Sprintf("%q... (%d bytes)", data[:200], len(data))
	}
	return fmt.Sprintf("%q", data)
}

// FuzzDecodePets checks decodePets against encoding/json.
func FuzzDecodePets(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := string(data)
		want, wantErr := refDecodePets(data)
		got, gotErr := decodePets(data)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("decodePets(%s): error %v; encoding/json: %v", short(data), gotErr, wantErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("decodePets(%s) differs from encoding/json (-want +got):\n%s", short(data), diff)
		}
		if string(data) != in {
			t.Fatalf("decodePets modified its input")
		}
	})
}

// FuzzDecodePet checks decodePet against encoding/json.
func FuzzDecodePet(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := refDecodePet(data)
		got, gotErr := decodePet(data)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("decodePet(%s): error %v; encoding/json: %v", short(data), gotErr, wantErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("decodePet(%s) differs from encoding/json (-want +got):\n%s", short(data), diff)
		}
	})
}

// FuzzDecodeErrorBody checks decodeErrorBody against encoding/json.
func FuzzDecodeErrorBody(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := refDecodeErrorBody(data)
		got, gotErr := decodeErrorBody(data)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("decodeErrorBody(%s): error %v; encoding/json: %v", short(data), gotErr, wantErr)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(errorBody{})); diff != "" {
			t.Fatalf("decodeErrorBody(%s) differs from encoding/json (-want +got):\n%s", short(data), diff)
		}
	})
}
