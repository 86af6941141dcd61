package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/petstore/petstore-go"
)

// The SDK names its Go API in its errors (ListPetsParams.Limit,
// WithBaseURL); the command line names what its user typed or set (-limit,
// -base-url, PETSTORE_BASE_URL). describe says an error in the user's
// terms from the fields of the SDK's typed errors, never by rewriting their
// text: nothing a server sent is changed (but for quoting, see errLine).

// paramFlags are the flags of ParamError.Field, and whether the value is
// quoted (a string, which may hold anything) or not (a number).
var paramFlags = map[string]struct {
	flag  string
	quote bool
}{
	"ListPetsParams.Limit":  {"-limit", false},
	"ListPetsParams.Status": {"-status", true},
	"NewPet.Name":           {"-name", true},
	"NewPet.Status":         {"-status", true},
}

// optionFlags are the flags of ConfigError.Option, for an option the
// command passes from a flag; WithBaseURL's is the flag that set it (see
// baseSource), and a value from a variable is named by ConfigError.Env.
var optionFlags = map[string]string{
	"WithMaxRetries": "-retries",
	"WithRetryWait":  "-retry-wait",
}

// describe returns err's text as the command says it: a parameter, an
// option or a variable the SDK refused named as the user typed or set it;
// a missing key with the variable to set; anything else as the SDK says it
// (an attempt that ran out of time names no option: the command sets none,
// and the SDK calls its default "the default limit per attempt").
func (e *env) describe(err error) string {
	var pe *petstore.ParamError
	var ce *petstore.ConfigError
	switch {
	case errors.Is(err, petstore.ErrMissingAPIKey):
		return "no API key: set PETSTORE_API_KEY"
	case errors.As(err, &pe):
		if p, ok := paramFlags[pe.Field]; ok {
			return "invalid parameters: " + p.flag + " " + paramText(pe.Value, pe.Reason, p.quote)
		}
	case errors.As(err, &ce):
		if name := e.configName(ce); name != "" {
			return name + ": " + e.configReason(ce)
		}
	}
	return err.Error()
}

// paramText returns "is VALUE; REASON", or REASON alone for an empty
// value ("is empty").
func paramText(value, reason string, quote bool) string {
	switch {
	case value == "":
		return reason
	case quote:
		value = strconv.Quote(value)
	}
	return "is " + value + "; " + reason
}

// configName returns the flag or variable that gave the value ce refuses,
// or "" if the command does not know it.
func (e *env) configName(ce *petstore.ConfigError) string {
	switch {
	case ce.Env != "":
		return ce.Env
	case ce.Option == "WithBaseURL":
		_, source := e.baseSource()
		return source
	}
	return optionFlags[ce.Option]
}

// configReason returns why ce refuses its value. One reason names the
// SDK's option beside the variable (http to a host that is not loopback,
// which WithInsecureHTTP or PETSTORE_INSECURE_HTTP=1 allows): the command
// tells it by asking NewClient again with WithInsecureHTTP, and says it
// itself; the URL, which NewClient then accepts, holds no user info, query
// or fragment to hide.
func (e *env) configReason(ce *petstore.ConfigError) string {
	if ce.Option == "WithBaseURL" {
		if _, err := petstore.NewClient("", append(e.options(), petstore.WithInsecureHTTP())...); err == nil {
			return fmt.Sprintf("URL %q: http to a host that is not loopback would send the API key in clear text; use https, or set PETSTORE_INSECURE_HTTP=1", e.base())
		}
	}
	return ce.Reason
}
