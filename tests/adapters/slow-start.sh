#!/bin/sh
# A one-shot adapter whose start-up is slow, as an interpreter loading a big client library on
# a busy machine is: it sleeps SECONDS, then becomes the adapter named by the rest of its
# arguments (the endpoint URL stays the last one).
#
# Usage: slow-start.sh SECONDS PROGRAM [ARGS...] ENDPOINT_URL
seconds=$1
shift
sleep "$seconds"
exec "$@"
