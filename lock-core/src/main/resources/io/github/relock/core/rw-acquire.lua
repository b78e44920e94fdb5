-- Take or re-enter the read or the write side of a read-write lock, in one atomic step.
-- KEYS[1] lock hash (layout: rw-state.lua, prepended)   KEYS[2] fencing counter
-- ARGV[1] the hold's field   ARGV[2] lease in ms   ARGV[3] holds the caller believes it already has
-- ARGV[4] 'r' read or 'w' write   ARGV[5] how long the fencing counter is kept, in ms
-- ARGV[6] a caller that will wait: how long its place in the turns lasts unless it tries again, in ms
-- (0: it will not wait, and takes no place)   ARGV[7] the token floor of the caller's last attempt of this wait that
-- found the lock busy (0: none did)
-- A waiter that a release gave its hold to (rw-release.lua) after that attempt takes it up on its next attempt; an
-- older hold marked given is one its owner took up from the release's announcement and has since lost track of.
-- Returns {holds, token}: holds >= 1 acquired (token 0 on re-entry), {0, ms, floor} busy (ms: when to look
-- again at the latest; floor: no greater than the last token issued, so a hold a release gives this waiter
-- from now on has a greater token), {-1, 0} the caller's earlier hold is gone (expired or force-unlocked).
local hash, field, lease, expected = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local now = rw_now()
-- taking up a given hold and re-entering read only the caller's own fields; a new hold reads the whole hash
local holds = rw_own(hash, field, now)
if expected == 0 and holds > 0 then
  local floor, given = tonumber(ARGV[7]), tonumber(redis.call('hget', hash, field .. ':t') or 0)
  if floor > 0 and given > floor and redis.call('hdel', hash, field .. ':g') == 1 then
    -- a release gave this waiter its hold (rw-release.lua) in this wait: it takes it up, with the lease it asks for
    redis.call('hset', hash, field .. ':e', string.format('%d', now + lease))
    rw_keep(hash, lease)
    return {1, given}
  end
  -- a replayed first acquisition, or a hold the client lost track of: the owner's own, so a new hold
  rw_drop(hash, field)
  holds = 0
end

if expected > 0 then
  if holds < expected then
    return {-1, 0}
  end
  -- set, not added to: a replayed re-entry never counts twice
  redis.call('hset', hash, field, expected + 1)
  local ends = math.max(tonumber(redis.call('hget', hash, field .. ':e') or 0), now + lease)
  redis.call('hset', hash, field .. ':e', string.format('%d', ends))
  rw_keep(hash, ends - now)
  return {expected + 1, 0}
end

local state = rw_state(hash, now)
local busy_until = 0
local waited = state.waits[field]
local since = waited and waited[2] or now
if ARGV[4] == 'w' then
  if state.writer or state.readers > 0 then
    busy_until = state.first_end
  elseif state.reader_since and state.reader_since < since then
    busy_until = state.readers_until -- readers that waited before this writer go first
  end
elseif state.writer and state.writer ~= field .. ':w' then
  busy_until = state.first_end
elseif not state.writer and state.writer_since and state.writer_since <= since then
  -- a writer that waited before this reader goes first (its own write hold lets the owner read: a downgrade)
  busy_until = state.writers_until
end
if busy_until > 0 then
  local keep = tonumber(ARGV[6])
  if keep > 0 then
    -- refreshed on every attempt, since kept: a waiter that died or gave up stops counting after keep ms
    redis.call('hset', hash, field .. ':i', string.format('%d:%d', now + keep, since))
    rw_keep(hash, keep)
    busy_until = math.min(busy_until, now + keep * 2 / 3)
  end
  -- tokens are issued above the last one and at least the clock in µs (rw_token)
  local floor = math.max(tonumber(redis.call('get', KEYS[2]) or 0), now * 1000)
  return {0, math.max(busy_until - now, 1), floor}
end

local token = rw_token(KEYS[2], ARGV[5])
redis.call('hdel', hash, field .. ':i')
redis.call('hset', hash, field, 1, field .. ':e', string.format('%d', now + lease), field .. ':t', token)
rw_keep(hash, lease)
return {1, tonumber(token)}
