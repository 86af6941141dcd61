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
	return v, err
}
