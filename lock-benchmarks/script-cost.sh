#!/usr/bin/env bash
# Where Redis spends its time in one uncontended lock/unlock pair, inside Redis only:
# no network, no client. Each pair runs in ONE script call, so that redis-benchmark can repeat it (the
# release needs the acquire's token), and INFO commandstats splits the time:
#   relock   relock's acquire.lua then release.lua (a plain lock's preludes, defined once for both), as lock()
#            and unlock() run them
#   lean     the harness's lean floor (Redisson-style, no fencing), the same way
#   commands only the commands relock's pair runs, with fixed arguments and none of the Lua around them: the
#            floor for relock's pair as long as it makes these calls (what each one is for: see the README)
#   empty    a script that returns at once, called with the same keys and arguments (the cost of a call)
# A real pair is two script calls, so add one "empty" to relock's and lean's figures to compare them with
# the harness's Redis CPU per pair (which also counts reading and writing the two round trips).
#
# Time on a machine others use too swings by a third from run to run; INSTRUCTIONS=1 adds a second table
# that does not: the CPU instructions redis-server executes per call, counted by valgrind's callgrind
# (a server of its own per script, 500 and then 1,500 calls, the difference over 1,000: start-up drops out).
#
# A second part measures the real thing: relock's two scripts exactly as LuaScript assembles them (announce.lua,
# the preludes it lists, the script) and lean's two, each pair as two EVALSHA calls with the keys and arguments
# LockCommands sends for lock() and then unlock() (the release gets the acquire's token): every call runs its
# preludes' top level again. Beside them, relock's floor: two scripts that make relock's commands, with its keys
# and arguments, and nothing else. A small Python client (python3, no packages) drives these pairs.
#
# Needs redis-server and redis-benchmark (Debian: apt-get install redis-server), and valgrind for
# INSTRUCTIONS=1. Starts its own servers on 127.0.0.1 and stops them, by their PID, when done.
# Usage: [INSTRUCTIONS=1] lock-benchmarks/script-cost.sh [calls] [rounds]
set -euo pipefail

CALLS=${1:-200000}
ROUNDS=${2:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
CORE="$HERE/../lock-core/src/main/resources/io/github/relock/core"
LEAN="$HERE/src/main/resources/io/github/relock/benchmarks/lean"
WORK=$(mktemp -d)
PORT=$(( 20000 + RANDOM % 20000 ))

redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --pidfile "$WORK/redis.pid" --logfile "$WORK/redis.log" --dir "$WORK"
stop() {
    if [[ -f "$WORK/redis.pid" ]]; then
        local pid
        pid=$(cat "$WORK/redis.pid")
        kill "$pid" 2>/dev/null || true
        # gone before its directory goes: it writes its log as it exits
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    rm -rf "$WORK"
}
trap stop EXIT
cli() { redis-cli -p "$PORT" "$@"; }
for _ in $(seq 50); do cli ping >/dev/null 2>&1 && break; sleep 0.1; done

# relock: the acquire as lock() sends it (holds 0, will wait), then the release of that one hold
{
    cat "$CORE/announce.lua" "$CORE/fence.lua" "$CORE/ending.lua" "$CORE/turns.lua"
    echo "local function acquire(KEYS, ARGV)"; cat "$CORE/acquire.lua"; echo "end"
    echo "local function release(KEYS, ARGV)"; cat "$CORE/release.lua"; echo "end"
    cat <<'EOF'
-- each with the keys LockCommands sends it: five to the acquire, three to the release
local got = acquire(KEYS, {ARGV[1], ARGV[2], '0', ARGV[4], '1', ARGV[6], ARGV[7]})
if got[1] ~= 1 then return redis.error_reply('not acquired') end
local left = release({KEYS[1], KEYS[2], KEYS[3]}, {ARGV[1], string.format('%d', got[2]), '1', ARGV[7], ARGV[4], ARGV[6]})
if left ~= 0 then return redis.error_reply('not released') end
return 1
EOF
} > "$WORK/relock.lua"
{
    echo "local function acquire(ARGV)"; cat "$LEAN/acquire.lua"; echo "end"
    echo "local function release(ARGV)"; cat "$LEAN/release.lua"; echo "end"
    cat <<'EOF'
if acquire({ARGV[1], ARGV[2]}) ~= nil then return redis.error_reply('not acquired') end
if release({ARGV[1], ARGV[2], ARGV[7]}) ~= 1 then return redis.error_reply('not released') end
return 1
EOF
} > "$WORK/lean.lua"
# what relock's pair runs on a lock used before (its counter there), in order, without its logic
cat > "$WORK/commands.lua" <<'EOF'
redis.call('exists', KEYS[1], KEYS[4])
redis.call('mget', KEYS[2], KEYS[3])
redis.call('time')
redis.call('hset', KEYS[1], ARGV[1], 1)
redis.call('pexpire', KEYS[1], ARGV[2])
redis.call('set', KEYS[2], '1764245000123456:1764245000123456:0', 'px', ARGV[4])
redis.call('mget', KEYS[2], KEYS[3])
redis.call('hdel', KEYS[1], ARGV[1])
redis.call('set', KEYS[2], '1764245000123456:1764245000123456:1', 'px', ARGV[4])
redis.call('publish', ARGV[7], ARGV[1])
return 1
EOF
echo "return 1" > "$WORK/empty.lua"

# the real scripts: the text LuaScript sends for ACQUIRE and RELEASE (announce.lua, then the preludes it names,
# then the script), read from its declarations so that this stays what the client sends
LUASCRIPT="$HERE/../lock-core/src/main/java/io/github/relock/core/internal/command/LuaScript.java"
assemble() {
    local files
    files=$(awk -v name="$1" '$0 ~ "LuaScript<.*> " name " = " { on = 1 } on { print } on && /;/ { exit }' \
        "$LUASCRIPT" | grep -o '"[a-z-]*\.lua"' | tr -d '"')
    [[ -n "$files" ]] || { echo "no $1 in LuaScript.java" >&2; exit 1; }
    local script preludes
    script=$(echo "$files" | head -1); preludes=$(echo "$files" | tail -n +2)
    # shellcheck disable=SC2086 # file names without spaces
    (cd "$CORE" && cat announce.lua $preludes "$script")
}
assemble ACQUIRE > "$WORK/relock-acquire.lua"
assemble RELEASE > "$WORK/relock-release.lua"
# relock's pair with its keys, arguments and commands but none of its Lua: the floor of the real pair for as long as
# it sends what it sends and makes these calls
cat > "$WORK/floor-acquire.lua" <<'EOF'
redis.call('exists', KEYS[1], KEYS[4])
redis.call('mget', KEYS[2], KEYS[3])
local now = redis.call('time')
redis.call('hset', KEYS[1], ARGV[1], '1')
redis.call('pexpire', KEYS[1], ARGV[2])
redis.call('set', KEYS[2], now[1] .. now[2] .. ':' .. now[1] .. now[2] .. ':0', 'px', ARGV[4])
return {1, 1}
EOF
cat > "$WORK/floor-release.lua" <<'EOF'
redis.call('mget', KEYS[2], KEYS[3])
redis.call('hdel', KEYS[1], ARGV[1])
redis.call('set', KEYS[2], ARGV[2] .. ':' .. ARGV[2] .. ':1', 'px', ARGV[5])
redis.call('publish', ARGV[4], ARGV[1])
return 0
EOF
cp "$LEAN/acquire.lua" "$WORK/lean-acquire.lua"
cp "$LEAN/release.lua" "$WORK/lean-release.lua"
# runs pairs of two EVALSHA calls: argv port pairs kind acquire-sha release-sha
cat > "$WORK/pairs.py" <<'EOF'
import socket, sys
port, pairs, kind, acquire, release = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
sock = socket.create_connection(('127.0.0.1', port))
io = sock.makefile('rwb')
def call(*args):
    out = [b'*%d\r\n' % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b'$%d\r\n%s\r\n' % (len(a), a))
    io.write(b''.join(out)); io.flush()
    return read()
def read():
    line = io.readline()[:-2]
    t, rest = line[:1], line[1:]
    if t == b':': return int(rest)
    if t == b'$':
        n = int(rest)
        if n < 0: return None
        data = io.read(n + 2)[:-2]; return data
    if t == b'*':
        n = int(rest)
        return None if n < 0 else [read() for _ in range(n)]
    if t == b'-': raise SystemExit('error: ' + rest.decode())
    return rest
lock, fence, turn, fair, fair_fence = 'lock:{cost}', 'lock:{cost}:fence', 'lock:{cost}:turn', 'lock:{cost}:fair', 'lock:{cost}:fair:fence'
owner, lease, retention, turn_ms, channel = 'client1:1', 30000, 604800000, 50, 'lock:{cost}:released'
for _ in range(pairs):
    if kind in ('relock', 'floor'):
        # LockCommands.acquire as lock() sends it (no holds before, will wait), then release of that one hold
        got = call('EVALSHA', acquire, 5, lock, fence, turn, fair, fair_fence, owner, lease, 0, retention, 1, turn_ms, channel)
        if got[0] != 1: raise SystemExit('not acquired: %r' % got)
        left = call('EVALSHA', release, 3, lock, fence, turn, owner, got[1], 1, channel, retention, turn_ms)
        if left != 0: raise SystemExit('not released: %r' % left)
    else:
        if call('EVALSHA', acquire, 1, lock, owner, lease) is not None: raise SystemExit('not acquired')
        if call('EVALSHA', release, 1, lock, owner, lease, channel) != 1: raise SystemExit('not released')
EOF

# the keys and arguments LockCommands sends: lock, counter, turns, the fair lock's hash and counter
ARGS=(5 "lock:{cost}" "lock:{cost}:fence" "lock:{cost}:turn" "lock:{cost}:fair" "lock:{cost}:fair:fence" "client1:1" 30000 0 604800000 1 50 "lock:{cost}:ch")
# prints: µs per call of the script, µs per call spent in the commands it ran, and how many it ran
measure() {
    local sha
    sha=$(cli script load "$(cat "$WORK/$1.lua")")
    cli flushall >/dev/null
    cli evalsha "$sha" "${ARGS[@]}" >/dev/null # the counter exists, as on any lock used before
    cli config resetstat >/dev/null
    redis-benchmark -p "$PORT" -n "$CALLS" -c 1 -q evalsha "$sha" "${ARGS[@]}" >/dev/null
    cli info commandstats | tr -d '\r' | awk -F'[:=,]' -v n="$CALLS" '
        /^cmdstat_evalsha/ { script = $5 / n; next }
        /^cmdstat_(config|script|flushall|ping)/ { next }
        /^cmdstat_/ { usec += $5; calls += $3 }
        END { printf "%.2f %.2f %.2f\n", script, usec / n, calls / n }'
}

declare -A TOTAL INNER COUNT
for name in relock lean commands empty; do TOTAL[$name]=""; done
for round in $(seq "$ROUNDS"); do
    for name in relock lean commands empty; do
        read -r total inner count < <(measure "$name")
        TOTAL[$name]+="$total "; INNER[$name]+="$inner "; COUNT[$name]=$count
    done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "Redis time per uncontended pair, inside one script call (median of $ROUNDS rounds of $CALLS calls; $(redis-server --version | awk '{print $3}'))"
echo
echo "| script | µs per call | µs in its commands | commands | µs in Lua and redis.call around them |"
echo "|---|---:|---:|---:|---:|"
for name in relock lean commands empty; do
    t=$(echo "${TOTAL[$name]}" | median); i=$(echo "${INNER[$name]}" | median)
    awk -v name="$name" -v t="$t" -v i="$i" -v c="${COUNT[$name]}" \
        'BEGIN { printf "| %s | %.1f | %.1f | %d | %.1f |\n", name, t, i, c, t - i }'
done
pair() { awk -v r="$1" -v l="$2" -v e="$3" 'BEGIN { printf "%.2f", (r + e) / (l + e) }'; }
echo
echo "A pair as lock() and unlock() make it is two calls: relock's Redis time per pair is $(pair \
    "$(echo "${TOTAL[relock]}" | median)" "$(echo "${TOTAL[lean]}" | median)" "$(echo "${TOTAL[empty]}" | median)")× lean's;"
echo "its commands alone, with none of its Lua around them, already take $(pair \
    "$(echo "${TOTAL[commands]}" | median)" "$(echo "${TOTAL[lean]}" | median)" "$(echo "${TOTAL[empty]}" | median)")× lean's"


# prints µs per pair (two calls) of the real scripts $1 (relock or lean), from INFO commandstats
measure_real() {
    local acquire release
    acquire=$(cli script load "$(cat "$WORK/$1-acquire.lua")"); release=$(cli script load "$(cat "$WORK/$1-release.lua")")
    cli flushall >/dev/null
    python3 "$WORK/pairs.py" "$PORT" 1 "$1" "$acquire" "$release" # the counter exists, as on any lock used before
    cli config resetstat >/dev/null
    python3 "$WORK/pairs.py" "$PORT" "$CALLS" "$1" "$acquire" "$release"
    cli info commandstats | tr -d '\r' | awk -F'[:=,]' -v n="$CALLS" '/^cmdstat_evalsha/ { printf "%.2f\n", $5 / n }'
}
declare -A REAL
for round in $(seq "$ROUNDS"); do
    for name in relock floor lean; do REAL[$name]+="$(measure_real "$name") "; done
done
echo
echo "The real pair: the two scripts as sent, as two EVALSHA calls (median of $ROUNDS rounds of $CALLS pairs)"
echo
echo "| pair | µs per pair | acquire.lua + release.lua bytes |"
echo "|---|---:|---:|"
for name in relock floor lean; do
    echo "| $name | $(echo "${REAL[$name]}" | median) | $(cat "$WORK/$name-acquire.lua" "$WORK/$name-release.lua" | wc -c) |"
done
echo
echo "relock's real pair takes $(awk -v r="$(echo "${REAL[relock]}" | median)" -v l="$(echo "${REAL[lean]}" | median)" \
    'BEGIN { printf "%.2f", r / l }')× lean's Redis time; its floor (relock's"
echo "commands, keys and arguments with none of its Lua) $(awk -v r="$(echo "${REAL[floor]}" | median)" \
    -v l="$(echo "${REAL[lean]}" | median)" 'BEGIN { printf "%.2f", r / l }')×"

[[ "${INSTRUCTIONS:-}" == 1 ]] || exit 0
# instructions redis-server runs for $2 calls of script $1, start-up included
instructions() {
    local dir port pid sha
    dir=$(mktemp -d "$WORK/cg.XXXX"); port=$(( 20000 + RANDOM % 20000 ))
    valgrind --tool=callgrind --callgrind-out-file="$dir/out" redis-server --port "$port" --bind 127.0.0.1 \
        --save '' --appendonly no --dir "$dir" >"$dir/log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.2; done
    sha=$(redis-cli -p "$port" script load "$(cat "$WORK/$1.lua")")
    redis-cli -p "$port" evalsha "$sha" "${ARGS[@]}" >/dev/null
    redis-benchmark -p "$port" -n "$2" -c 1 -q evalsha "$sha" "${ARGS[@]}" >/dev/null
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
    wait "$pid" || true
    awk '/^(summary|totals):/ { print $2; exit }' "$dir/out"
}
declare -A IR
for name in relock lean commands empty; do
    IR[$name]=$(( ($(instructions "$name" 1500) - $(instructions "$name" 500)) / 1000 ))
done
echo
echo "Instructions redis-server runs per call (callgrind, 1,000 calls)"
echo
echo "| script | instructions per call |"
echo "|---|---:|"
for name in relock lean commands empty; do echo "| $name | ${IR[$name]} |"; done
echo
echo "Per pair of two calls, relock's instructions are $(pair "${IR[relock]}" "${IR[lean]}" "${IR[empty]}")× lean's;"
echo "its commands alone, with none of its Lua around them, already run $(pair "${IR[commands]}" "${IR[lean]}" "${IR[empty]}")× lean's"

# instructions redis-server runs for $2 real pairs of $1 (relock or lean), start-up included
real_instructions() {
    local dir port pid acquire release
    dir=$(mktemp -d "$WORK/cg.XXXX"); port=$(( 20000 + RANDOM % 20000 ))
    # only what runs while Redis reads and runs a client's commands: its timers (serverCron), which run as
    # often as the wall clock says and valgrind slows that down by a varying amount, would add noise
    valgrind --tool=callgrind --toggle-collect=readQueryFromClient --callgrind-out-file="$dir/out" redis-server \
        --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" >"$dir/log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.2; done
    acquire=$(redis-cli -p "$port" script load "$(cat "$WORK/$1-acquire.lua")")
    release=$(redis-cli -p "$port" script load "$(cat "$WORK/$1-release.lua")")
    python3 "$WORK/pairs.py" "$port" "$(( $2 + 1 ))" "$1" "$acquire" "$release"
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
    wait "$pid" || true
    awk '/^(summary|totals):/ { print $2; exit }' "$dir/out"
}
declare -A RIR
for name in relock floor lean; do
    RIR[$name]=$(( ($(real_instructions "$name" 1500) - $(real_instructions "$name" 500)) / 1000 ))
done
echo
echo "Instructions redis-server runs per real pair while it reads and runs the two calls: the two scripts as sent,"
echo "as two EVALSHA calls (callgrind, 1,000 pairs; its timers and the writing of replies left out)"
echo
echo "| pair | instructions per pair | Redis calls per pair |"
echo "|---|---:|---:|"
echo "| relock | ${RIR[relock]} | ${COUNT[relock]} |"
echo "| floor | ${RIR[floor]} | ${COUNT[commands]} |"
echo "| lean | ${RIR[lean]} | ${COUNT[lean]} |"
echo
echo "relock's real pair runs $(awk -v r="${RIR[relock]}" -v l="${RIR[lean]}" 'BEGIN { printf "%.2f", r / l }')× lean's instructions;"
echo "its floor, relock's commands, keys and arguments with none of its Lua, $(awk -v r="${RIR[floor]}" -v l="${RIR[lean]}" \
    'BEGIN { printf "%.2f", r / l }')×"
