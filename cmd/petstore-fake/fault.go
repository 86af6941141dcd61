package main

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/petstore/petstore-go/petstoretest"
)

// faultKeys lists the keys of a -fault SPEC, for error messages.
const faultKeys = "keys: op, count, status, retry-after, delay, disconnect, cut-body"

// parseFault parses a -fault SPEC, such as "op=GetPet,count=2,status=503",
// into a Fault. It checks what a flag's user may get wrong, in the flag's
// words; petstoretest.Server.InjectFault, which panics on a fault it does
// not take, judges the rest (see checkFault).
func parseFault(spec string) (petstoretest.Fault, error) {
	var f petstoretest.Fault
	seen := map[string]bool{}
	for _, kv := range strings.Split(spec, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok && (key == "disconnect" || key == "cut-body") {
			val, ok = "true", true // a boolean key alone says true
		}
		if !ok {
			return f, fmt.Errorf("%q is not key=value (%s)", kv, faultKeys)
		}
		if seen[key] {
			return f, fmt.Errorf("%s is given twice", key)
		}
		seen[key] = true
		var err error
		switch key {
		case "op":
			f.Operation, err = parseOperation(val)
		case "count":
			f.Count, err = strconv.Atoi(val)
			if err != nil || f.Count < 1 {
				err = fmt.Errorf("count %q is not a positive integer", val)
			}
		case "status":
			f.Status, err = strconv.Atoi(val)
			if err != nil || f.Status < 400 || f.Status > 599 {
				err = fmt.Errorf("status %q is not an error status (400..599)", val)
			}
		case "retry-after":
			f.RetryAfter, err = parseDuration(key, val)
		case "delay":
			f.Delay, err = parseDuration(key, val)
		case "disconnect":
			f.Disconnect, err = parseBool(key, val)
		case "cut-body":
			f.CutBody, err = parseBool(key, val)
		default:
			err = fmt.Errorf("unknown key %q (%s)", key, faultKeys)
		}
		if err != nil {
			return f, err
		}
	}
	switch {
	case f.RetryAfter > 0 && f.Status == 0:
		return f, errors.New("retry-after needs a status")
	case f.Status == 0 && f.Delay == 0 && !f.Disconnect && !f.CutBody:
		return f, errors.New("a fault needs a status, a delay, disconnect or cut-body")
	}
	return f, nil
}

// checkFault returns why petstoretest refuses f (a disconnect with a
// status, say), or nil.
func checkFault(f petstoretest.Fault) error {
	return scratchRefusal("InjectFault", func(srv *petstoretest.Server) { srv.InjectFault(f) })
}

// parseOperation checks the op of a -fault SPEC.
func parseOperation(op string) (string, error) {
	switch op {
	case "ListPets", "CreatePet", "GetPet":
		return op, nil
	}
	return "", fmt.Errorf("op %q is not ListPets, CreatePet or GetPet", op)
}

// parseDuration reads the duration val of key, which may not be negative.
func parseDuration(key, val string) (time.Duration, error) {
	d, err := time.ParseDuration(val)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s %q is not a duration such as 500ms, 2s or 1m", key, val)
	}
	return d, nil
}

// parseBool reads the boolean val of key, as strconv.ParseBool does.
func parseBool(key, val string) (bool, error) {
	b, err := strconv.ParseBool(val)
	if err != nil {
		return false, fmt.Errorf("%s %q is not true or false", key, val)
	}
	return b, nil
}

// faultJSON is a fault as POST /_fake/faults takes it and answers it, such
// as {"op": "ListPets", "count": 2, "status": 503, "retryAfter": "30s"}:
// every field may be left out, durations are Go's ("1.5s"; "" or "0s" for
// none), body is sent instead of the Error JSON.
type faultJSON struct {
	Op         string `json:"op"`
	Count      int    `json:"count"`
	Status     int    `json:"status"`
	RetryAfter string `json:"retryAfter"`
	Delay      string `json:"delay"`
	Disconnect bool   `json:"disconnect"`
	CutBody    bool   `json:"cutBody"`
	Body       string `json:"body"`
}

// decodeFault reads a faultJSON strictly (see decodeStrict): one object, no
// unknown field, durations that time.ParseDuration reads and are not
// negative. What the values may be together, petstoretest.Server.InjectFault
// judges.
func decodeFault(data []byte) (petstoretest.Fault, error) {
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return petstoretest.Fault{}, errors.New(`want a JSON object, such as {"op": "ListPets", "status": 503}`)
	}
	fj, err := decodeStrict[faultJSON](data)
	if err != nil {
		return petstoretest.Fault{}, fmt.Errorf("invalid fault: %v", err)
	}
	f := petstoretest.Fault{Operation: fj.Op, Count: fj.Count, Status: fj.Status,
		Disconnect: fj.Disconnect, CutBody: fj.CutBody, Body: fj.Body}
	if fj.RetryAfter != "" {
		if f.RetryAfter, err = parseDuration("retryAfter", fj.RetryAfter); err != nil {
			return petstoretest.Fault{}, err
		}
	}
	if fj.Delay != "" {
		if f.Delay, err = parseDuration("delay", fj.Delay); err != nil {
			return petstoretest.Fault{}, err
		}
	}
	return f, nil
}

// newFaultJSON returns f as InjectFault stores it (a Count of 0 is 1), for
// an answer.
func newFaultJSON(f petstoretest.Fault) faultJSON {
	return faultJSON{Op: f.Operation, Count: max(f.Count, 1), Status: f.Status,
		RetryAfter: f.RetryAfter.String(), Delay: f.Delay.String(),
		Disconnect: f.Disconnect, CutBody: f.CutBody, Body: f.Body}
}
