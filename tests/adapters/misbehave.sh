#!/usr/bin/env bash
# A test adapter that breaks (or keeps) the process contract in the way its first argument
# names. It writes its process id, which is its process group id, to the file named by its
# second argument, so that a test can check that the group is gone afterwards.
#
# Usage: misbehave.sh BEHAVIOUR PID_FILE [ENDPOINT_URL]
behaviour=$1
echo $$ >"$2"

case "$behaviour" in
hang-with-grandchild)
    # A grandchild that holds stdout and stderr open, ignores polite signals and sleeps;
    # the script itself hangs too.
    (
        trap '' TERM HUP INT
        exec sleep 1000
    ) &
    echo "hanging, with a grandchild" >&2
    sleep 1000
    ;;
observe-then-leave-grandchild)
    # A valid observation, then exit while a grandchild keeps the pipes open.
    (exec sleep 1000) &
    echo '{"outcome": "TOOL_SUCCESS", "status": 200, "code": null, "detail": "left a child"}'
    exit 0
    ;;
observe-then-linger)
    echo '{"outcome": "TOOL_SUCCESS", "detail": "and lingers"}'
    sleep 1000
    ;;
garbage)
    echo 'not json at all'
    ;;
two-lines)
    echo '{"outcome": "TOOL_SUCCESS"}'
    echo '{"outcome": "TOOL_ERROR"}'
    ;;
exit-3)
    echo "the client exploded" >&2
    exit 3
    ;;
signal)
    kill -SEGV $$
    ;;
unsupported)
    echo '{"unsupported": "this client cannot speak SSE"}'
    ;;
mute-in-persistent-mode)
    # Says nothing when probed for persistent mode; a good one-shot adapter otherwise.
    if [ "$MCP_ERROR_LAYERS_MODE" = persistent ]; then sleep 1000; fi
    echo '{"outcome": "TOOL_SUCCESS"}'
    ;;
*)
    echo "unknown behaviour: $behaviour" >&2
    exit 64
    ;;
esac
