package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// decodeStrict decodes the JSON object data into a T, a struct with json
// tags, refusing a key that is not one of T's field names exactly and data
// after the object. encoding/json alone (even with DisallowUnknownFields)
// matches field names in any letter case, so "categoryID" would pass for
// "categoryId" where jq or another language sees two different keys.
func decodeStrict[T any](data []byte) (T, error) {
	var v T
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&fields); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return v, fmt.Errorf("a JSON %s, want an object", te.Value)
		}
		return v, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return v, errors.New("data after the object")
	}
	known := make(map[string]bool)
	t := reflect.TypeFor[T]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		known[name] = true
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if !known[k] {
			return v, fmt.Errorf("json: unknown field %q", k)
		}
	}
	err := json.Unmarshal(data, &v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) { // its own text names our Go types
		return v, fmt.Errorf("%s is a JSON %s, want %s", te.Field, te.Value, kindName(te.Type))
	}
	return v, err
}

// kindName names what a field of type t takes, in JSON's words.
func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Pointer:
		return kindName(t.Elem())
	}
	return "a " + t.Kind().String()
}
