package main

import (
	"errors"
	"strings"

	"github.com/petstore/petstore-go/petstoretest"
)

// refusal calls call, which calls the petstoretest.Server method named fn
// (InjectFault or SetPets), and returns why that method refused its
// argument: the message it panicked with, without its "petstoretest: fn: "
// prefix. It returns nil when the method accepted. Those methods panic by
// design, for test setup, and check everything before they change
// anything, so a refusal changes nothing; calling them through refusal
// keeps one judge of what the fake takes. Any other panic goes on.
func refusal(fn string, call func()) (err error) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		prefix := "petstoretest: " + fn + ": "
		msg, ok := v.(string)
		if !ok || !strings.HasPrefix(msg, prefix) {
			panic(v)
		}
		err = errors.New(strings.TrimPrefix(msg, prefix))
	}()
	call()
	return nil
}

// scratchRefusal returns what refusal returns for call on a server that
// never starts, for a flag checked before the fake exists.
func scratchRefusal(fn string, call func(*petstoretest.Server)) error {
	srv := petstoretest.NewUnstartedServer()
	defer srv.Close()
	return refusal(fn, func() { call(srv) })
}
