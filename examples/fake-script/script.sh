#!/usr/bin/env bash
# An integration script against cmd/petstore-fake: one fake for three
# scenarios, each set up and checked through the fake's control API
# (/_fake/) with curl and jq, and the fake reset between them. It prints a
# line per check and exits 1 if any failed.
#
#   bash examples/fake-script/script.sh
#
# PETSTORE_FAKE, when set, is the petstore-fake program to run; otherwise the
# script builds it (with go build, not go run: killing go run would leave
# the fake running). Needs bash, curl and jq.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
fake=""
cleanup() {
	if [ -n "$fake" ]; then
		kill "$fake" 2>/dev/null || true
		wait "$fake" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

fake_bin=${PETSTORE_FAKE:-}
if [ -z "$fake_bin" ]; then
	fake_bin=$tmp/petstore-fake
	(cd "$here/../.." && go build -o "$fake_bin" ./cmd/petstore-fake)
fi

# Start the fake on a free port. It prints two export lines on stdout once it
# serves: read them through a FIFO (no polling), then eval them.
mkfifo "$tmp/stdout"
"$fake_bin" -addr 127.0.0.1:0 >"$tmp/stdout" 2>"$tmp/fake.log" &
fake=$!
exec 3<"$tmp/stdout"
if ! read -r -t 60 -u 3 line1 || ! read -r -t 60 -u 3 line2; then
	echo "petstore-fake did not start; its log:" >&2
	cat "$tmp/fake.log" >&2
	exit 1
fi
eval "$line1"
eval "$line2" # PETSTORE_BASE_URL (ends in /v1) and PETSTORE_API_KEY
root=${PETSTORE_BASE_URL%/v1}

# call METHOD PATH [BODY [CURL-OPTION...]]: one request to the fake, PATH
# from its root (/v1/pets, /_fake/faults), with the key, and BODY as JSON
# unless it is "". It sets $status (000 when no answer came), $body and
# $curl_exit.
call() {
	local args=(-sS -o "$tmp/body" -w '%{http_code}' -X "$1" -H "Authorization: Bearer $PETSTORE_API_KEY")
	if [ -n "${3:-}" ]; then
		args+=(-H 'Content-Type: application/json' --data-binary "$3")
	fi
	args+=("${@:4}")
	rm -f "$tmp/body"
	curl_exit=0
	status=$(curl "${args[@]}" "$root$2" 2>"$tmp/curl.err") || curl_exit=$?
	body=$(cat "$tmp/body" 2>/dev/null || true)
}

failures=0
pass() { echo "PASS $1"; }
fail() {
	echo "FAIL $1"
	echo "     $2"
	failures=$((failures + 1))
}
# expect_status NAME WANT: the last answer's status is WANT.
expect_status() {
	if [ "$status" = "$2" ]; then pass "$1"; else fail "$1" "status $status, want $2; body $body"; fi
}
# expect NAME FILTER: the jq FILTER is true of the last answer's body.
expect() {
	if jq -e "$2" >/dev/null 2>&1 <<<"$body"; then pass "$1"; else fail "$1" "not true: $2; body $body"; fi
}
# expect_journal NAME FILTER: the jq FILTER is true of the journal, the API
# requests the fake received since the start or the last reset.
expect_journal() {
	call GET /_fake/requests
	expect "$1" "$2"
}
reset() {
	call POST /_fake/reset
	expect_status "reset" 204
}

echo "== a: ListPets answers 503 once; curl --retry tries again"
call POST /_fake/faults '{"op":"ListPets","count":1,"status":503}'
expect_status "a: fault added" 201
call GET /v1/pets "" --retry 2 --retry-delay 1
expect_status "a: ListPets succeeds on retry" 200
expect_journal "a: journal: ListPets 503, then 200" \
	'map(select(.operation == "ListPets") | [.status, .fault]) == [[503, true], [200, false]]'
reset

echo "== b: CreatePet's connection is reset; the script tries again"
call POST /_fake/faults '{"op":"CreatePet","disconnect":true}'
expect_status "b: fault added" 201
call POST /v1/pets '{"name":"Bella","categoryId":1,"status":"available"}'
if [ "$curl_exit" != 0 ] && [ "$status" = 000 ]; then pass "b: curl gets no answer"; else fail "b: curl gets no answer" "curl exit $curl_exit, status $status"; fi
expect_journal "b: journal: CreatePet unanswered (status 0), by the fault" \
	'map(select(.operation == "CreatePet") | [.status, .fault, (.body | fromjson | .name)]) == [[0, true, "Bella"]]'
call POST /v1/pets '{"name":"Bella","categoryId":1,"status":"available"}'
expect_status "b: CreatePet succeeds on retry" 201
call GET /_fake/pets
expect "b: one Bella" 'map(select(.name == "Bella")) | length == 1'
reset

echo "== c: new animals, one with an id"
call PUT /_fake/pets '[{"id":10,"name":"Rex","categoryId":1,"status":"available"},{"name":"Tom","categoryId":2,"status":"sold"}]'
expect_status "c: animals replaced" 200
call GET "/v1/pets?status=sold"
expect "c: ListPets(status=sold) returns Tom, numbered after Rex" '. == [{"id":11,"name":"Tom","categoryId":2,"status":"sold"}]'
call GET /v1/pets
expect "c: ListPets returns both, in id order" 'map(.name) == ["Rex", "Tom"]'
expect_journal "c: journal: the two ListPets only" 'map(.operation) == ["ListPets", "ListPets"]'

if [ "$failures" -gt 0 ]; then
	echo "$failures checks failed"
	exit 1
fi
echo "all checks passed"
