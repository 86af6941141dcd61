#!/usr/bin/env bash
# journal-rss.sh BINARY: starts the petstore-fake BINARY on loopback, sends
# it 300 POSTs of 1 MiB without the key (all refused, all in the journal),
# reads GET /_fake/requests, and prints the program's resident memory, peak
# (VmHWM) and current (VmRSS), from /proc/PID/status after each step. Linux,
# bash and curl. TestJournalRSS checks the same in Go; this is for a binary
# of any version:
#
#   go build -o /tmp/petstore-fake ./cmd/petstore-fake
#   cmd/petstore-fake/testdata/journal-rss.sh /tmp/petstore-fake
set -euo pipefail
bin=$1
dir=$(mktemp -d)
trap 'rm -r "$dir"' EXIT
head -c 1048576 /dev/zero | tr '\0' a >"$dir/body"
"$bin" -addr 127.0.0.1:0 >"$dir/env" 2>/dev/null &
pid=$!
until grep -qs PETSTORE_API_KEY "$dir/env"; do kill -0 "$pid"; sleep 0.1; done
eval "$(cat "$dir/env")"
memory() { echo "$(grep -E '^(VmHWM|VmRSS):' "/proc/$pid/status" | tr -s ' \t' ' ' | tr '\n' ' ')($1)"; }
memory "started"
for _ in $(seq 300); do
	curl -s -o /dev/null --data-binary @"$dir/body" "$PETSTORE_BASE_URL/pets"
done
memory "after 300 refused 1 MiB POSTs"
bytes=$(curl -s -H "Authorization: Bearer $PETSTORE_API_KEY" "${PETSTORE_BASE_URL%/v1}/_fake/requests" | wc -c)
memory "after GET /_fake/requests, $bytes bytes"
kill "$pid"
wait "$pid"
