#!/usr/bin/env bash
# An integration script on the command line petstore (cmd/petstore): it
# starts petstore-fake, waits until it answers (making a call again while
# petstore exits 7), adds an animal (once, even when the outcome of a
# create is unknown), looks animals up, and branches on petstore's exit
# statuses (0 ok, 1 failure, 2 usage, 3 key, 4 not found, 5 check found a
# deviation, 6 create's outcome unknown, 7 the call may succeed if made
# again later); then it holds the fake to the interface with petstore
# check -write. Global flags stand anywhere, here
# after the command and its arguments. Against a real deployment, drop the
# fake and set PETSTORE_API_KEY (and -staging or PETSTORE_BASE_URL) instead.
#
#   go build -o bin/ ./cmd/petstore ./cmd/petstore-fake
#   PATH=$PWD/bin:$PATH bash examples/cli-script/script.sh
set -u
petstore=${PETSTORE:-petstore}
fake=${PETSTORE_FAKE:-petstore-fake}

dir=$(mktemp -d)
fake_pid=
cleanup() {
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null && wait "$fake_pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

# The fake prints its two export lines once it accepts connections: read
# them from a FIFO, which waits for them without polling.
mkfifo "$dir/env"
# Its first create drops the connection once the request is in: the
# outcome is unknown to petstore (exit status 6), which create_once handles.
# Its first two lists answer 503: petstore exits 7, which later handles.
"$fake" -addr 127.0.0.1:0 -fault op=CreatePet,disconnect -fault op=ListPets,count=2,status=503 >"$dir/env" 2>"$dir/fake.log" &
fake_pid=$!
{ read -r base && read -r key; } <"$dir/env" || { echo "petstore-fake did not start" >&2; exit 1; }
eval "$base"
eval "$key"

# later runs petstore with its arguments and, while it exits 7 (the call
# may succeed if made again later, and is safe to make again: a 429, a 5xx
# to a list or a get, no connection), says so on stderr, waits and makes it
# again: at most 5 times, the wait doubling from PETSTORE_WAIT seconds
# (default 1). Any other
# status is final: 1 (a 5xx to a create, say) will not get better by
# waiting, and 6 needs a list first (see create_once).
later() {
	local wait=${PETSTORE_WAIT:-1} tries=1 status
	while :; do
		"$petstore" "$@" 2>"$dir/later"
		status=$?
		if [ "$status" -ne 7 ] || [ "$tries" -ge 5 ]; then
			cat "$dir/later" >&2
			return "$status"
		fi
		echo "$1: exit 7 ($(cat "$dir/later")); again in ${wait}s" >&2
		sleep "$wait"
		wait=$((wait * 2))
		tries=$((tries + 1))
	done
}

# lookup prints the animal with id $1, or why there is none; it fails only
# when trying again later or elsewhere could help.
lookup() {
	local pet
	if pet=$("$petstore" get "$1" -retries 0 2>"$dir/err"); then
		echo "found $1: $pet"
	else
		case $? in
		4) echo "no animal $1" ;;
		3) echo "no access: check PETSTORE_API_KEY ($(cat "$dir/err"))"; return 1 ;;
		2) echo "bad usage: $(cat "$dir/err")"; return 1 ;;
		7) echo "try later: $(cat "$dir/err")"; return 1 ;;
		*) echo "failed: $(cat "$dir/err")"; return 1 ;;
		esac
	fi
}

# create_once creates the animal named $1 and sets pet to it. When the
# outcome is unknown (exit status 6: the request went out, no answer came
# back), the animal may exist: it looks for it before creating it again.
create_once() {
	local status
	pet=$("$petstore" create -name "$1" -category 1 -status available -retry-wait 10ms,100ms 2>"$dir/err")
	status=$?
	[ "$status" -eq 6 ] || return "$status"
	echo "create: outcome unknown ($(cat "$dir/err"))"
	pet=$("$petstore" list -limit 100 | grep -o "{\"id\":[0-9]*,\"name\":\"$1\"[^}]*}" | head -n 1)
	if [ -n "$pet" ]; then
		echo "create: it was created"
		return 0
	fi
	echo "create: it was not created: creating it again"
	pet=$("$petstore" create -name "$1" -category 1 -status available)
}

# Wait until the deployment answers, -retries 0 so that each wait is
# later's.
later list -limit 1 -retries 0 >/dev/null || { echo "the deployment does not answer"; exit 1; }
echo "the deployment answers"

create_once Bella || exit 1
id=$(sed -n 's/^{"id":\([0-9]*\),.*/\1/p' <<<"$pet")
echo "created $id"
echo "available: $("$petstore" list -status available -limit 10 -json)"
lookup "$id"
lookup 999
PETSTORE_API_KEY=not-the-key lookup "$id" || echo "(as expected)"
lookup seven || echo "(as expected)"

"$petstore" check -write >"$dir/check"
case $? in
0) echo "check: the deployment keeps to the interface ($(tail -n 1 "$dir/check"))" ;;
5) echo "check: deviations:"; grep '^FAIL' "$dir/check"; exit 5 ;;
*) echo "check could not run"; exit 1 ;;
esac
