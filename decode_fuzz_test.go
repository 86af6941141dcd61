package petstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go/internal/errbody"
	"github.com/petstore/petstore-go/internal/jsonscan"
)

// Differential fuzz tests of the body decoders (decodePets and decodePet in
// pets.go, errbody.Decode in internal/errbody): each must accept, refuse and read
// every input as the reference decoders below, which use encoding/json as
// the SDK once did. They are the one reference of the differential tests:
// FuzzResponse (fuzz_test.go) checks a 2xx through the whole call path
// against refDecodePets and refDecodePet too. Their seeds (the f.Add calls and testdata/fuzz/<Name>)
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

// refDecodeErrorBody is errbody.Decode's reference. JSON is what
// encoding/json decodes into a struct with json.RawMessage code and message
// fields (the same matching of names, the last errbody.Member winning); with more,
// JSON cut short is walked with encoding/json's Decoder.Token (refCut).
func refDecodeErrorBody(data []byte, more bool) (errbody.Body, error) {
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		if !more {
			return errbody.Body{}, err
		}
		return refCut(data, err)
	}
	e := errbody.Body{Kind: refKind(raw[0])}
	if e.Kind == jsonscan.Object {
		var shape struct {
			Code    json.RawMessage `json:"code"`
			Message json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal(data, &shape); err != nil {
			return errbody.Body{}, fmt.Errorf("encoding/json refuses into a struct what it accepts: %w", err)
		}
		e.Code, e.Message = refMember(shape.Code), refMember(shape.Message)
	}
	if e.Kind == jsonscan.Number && more && !isJSONSpace(data[len(data)-1]) {
		e.Cut = true // the number reaches the end: the rest may hold more digits
	}
	return e, nil
}

// isJSONSpace reports whether c is JSON whitespace.
func isJSONSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// refKind is the kind of the JSON value that starts with c.
func refKind(c byte) jsonscan.Kind {
	switch {
	case c == '{':
		return jsonscan.Object
	case c == '[':
		return jsonscan.Array
	case c == '"':
		return jsonscan.String
	case c == 't' || c == 'f':
		return jsonscan.Bool
	case c == 'n':
		return jsonscan.Null
	case c == '-' || '0' <= c && c <= '9':
		return jsonscan.Number
	}
	return jsonscan.Invalid
}

// refMember is the errbody.Member a whole JSON value raw makes (nil: no errbody.Member).
func refMember(raw json.RawMessage) errbody.Member {
	if raw == nil || string(raw) == "null" {
		return errbody.Member{}
	}
	m := errbody.Member{Kind: refKind(raw[0])}
	switch m.Kind {
	case jsonscan.String:
		if err := json.Unmarshal(raw, &m.Text); err != nil {
			panic(err)
		}
	}
	return m
}

// refCut reads data, which encoding/json refuses with err, as the start of
// a longer body: the start of JSON if encoding/json's Decoder.Token walks it
// to its end without a syntax error, within the top-level value. Of a
// top-level object it keeps the code and message that stand whole; a errbody.Member
// counts from its colon on.
func refCut(data []byte, err error) (errbody.Body, error) {
	first := bytes.TrimLeft(data, " \t\r\n")
	if len(first) == 0 {
		return errbody.Body{}, err // no value at all
	}
	e := errbody.Body{Kind: refKind(first[0]), Cut: true}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	depth := 0
	var (
		key      *errbody.Member // of the top-level object's errbody.Member whose name was read last, if one of the two
		keyEnd   int             // where that name ends
		inValue  bool            // the top-level object's current errbody.Member's value has started
		inMember *errbody.Member // key, while its value is an array or object being read
	)
	for {
		tok, terr := dec.Token()
		if terr == io.EOF || terr == io.ErrUnexpectedEOF {
			switch {
			case inMember != nil:
				inMember.Cut = true
			case e.Kind == jsonscan.Object && depth == 1 && !inValue && keyEnd > 0:
				// Cut after a errbody.Member's name: it counts if its colon was read.
				rest := bytes.TrimLeft(data[keyEnd:], " \t\r\n")
				if key != nil && len(rest) > 0 && rest[0] == ':' {
					*key = errbody.Member{}
					if v := bytes.TrimLeft(rest[1:], " \t\r\n"); len(v) > 0 && refKind(v[0]) != jsonscan.Null {
						*key = errbody.Member{Kind: refKind(v[0]), Cut: true}
					}
				}
			}
			return e, nil
		}
		if terr != nil {
			return errbody.Body{}, terr
		}
		atTop := e.Kind == jsonscan.Object && depth == 1
		switch tok := tok.(type) {
		case json.Delim:
			if tok == '{' || tok == '[' {
				if atTop {
					if key != nil {
						*key = errbody.Member{Kind: refKind(byte(tok))}
						inMember = key
					}
					inValue = true
				}
				if depth++; depth > jsonscan.MaxDepth {
					return errbody.Body{}, err
				}
				continue
			}
			depth--
			if e.Kind == jsonscan.Object && depth == 1 {
				inMember, inValue, keyEnd = nil, false, 0
			}
		case string:
			if atTop && !inValue && keyEnd == 0 { // a errbody.Member's name
				key, keyEnd = nil, int(dec.InputOffset())
				switch {
				case strings.EqualFold(tok, "code"):
					key = &e.Code
				case strings.EqualFold(tok, "message"):
					key = &e.Message
				}
				continue
			}
			if atTop && key != nil {
				*key = errbody.Member{Kind: jsonscan.String, Text: tok}
			}
		default: // a number, a boolean or null
			if atTop && key != nil {
				switch tok.(type) {
				case json.Number:
					*key = errbody.Member{Kind: jsonscan.Number}
					if dec.InputOffset() == int64(len(data)) {
						*key = errbody.Member{Kind: jsonscan.Number, Cut: true}
					}
				case bool:
					*key = errbody.Member{Kind: jsonscan.Bool}
				case nil:
					*key = errbody.Member{}
				}
			}
		}
		if depth == 0 {
			return errbody.Body{}, err // a whole value, then something else
		}
		if atTop {
			inValue, keyEnd = false, 0
		}
	}
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
		// Error bodies nearly the Error shape, whole or cut anywhere.
		`{"code":400,"message":"name is required"}`, `{"code":-4.0e+2,"message":["a",{"b":null}]}`, `{"code":""}`,
		`{"code":true,"message":{}}`, `{"message":1,"MESSAGE":"b"}`, `{"message":"a","message"`, `{"message":"a","message" :`,
		`{"message":"a","message": nu`, `{"message":"a","code":12`, `{"message":"a","code":12 `, `{"message":"a\u00`, `{"message":[1`,
		`{"code":"c","x":[{"message":"no"`, `["x",`, `"abc`, `12`, `12 `, `-`, `tr`, ` {"mess`, `{"code":"c"}}`, `{"code":"c"} {`,
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

// FuzzDecodeErrorBody checks errbody.Decode against encoding/json, each
// input read both as a whole body and as the start of a longer one.
func FuzzDecodeErrorBody(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, more := range []bool{false, true} {
			want, wantErr := refDecodeErrorBody(data, more)
			got, gotErr := errbody.Decode(data, more)
			if (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("errbody.Decode(%s, %v): error %v; encoding/json: %v", short(data), more, gotErr, wantErr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("errbody.Decode(%s, %v) differs from encoding/json (-want +got):\n%s", short(data), more, diff)
			}
		}
	})
}
