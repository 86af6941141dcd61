//go:build race

package main

// raceEnabled is whether the tests run with -race: the program they build is
// then built with it too.
const raceEnabled = true
