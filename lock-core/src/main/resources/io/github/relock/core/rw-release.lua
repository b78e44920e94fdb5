-- Give back one hold of a read-write lock, at most once per request, and wake whoever may go now.
-- KEYS[1] lock hash (layout: rw-state.lua, prepended)   KEYS[2] recently ended holds (field:token, by time)
-- ARGV[1] the hold's field   ARGV[2] its fencing token (with ARGV[3] = 0, empty: whichever hold the field has,
-- for an acquisition whose reply never came)   ARGV[3] holds before this release, or 0 to end the
-- hold whatever its count, as a loss (its maximum hold time passed)   ARGV[4] writers' release channel
-- ARGV[5] readers' release channel   KEYS[3] fencing counter   ARGV[6] how long it is kept, in ms
-- A release that lets waiters in hands them their holds here (rw_grant), so that they wake holding the lock:
-- the write hold's release gives one to every reader that waited before the first waiting writer; the last
-- hold's release, if no such reader waits, gives the write hold to the writer that waited longest.
-- Returns the holds left (0: released), or -1 when the caller does not hold this hold (any more);
-- with ARGV[3] = 0, 1 if the hold was ended and 0 if it was gone.
local hash, field, token, expected = KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3])
local now = rw_now()
local state = rw_state(hash, now)
local holds = tonumber(redis.call('hget', hash, field) or 0)
if holds > 0 and token ~= '' and redis.call('hget', hash, field .. ':t') ~= token then
  holds = 0 -- the same owner's newer hold: not this one
end
local ended = field .. ':' .. token
if expected > 0 then
  if holds == expected - 1 and holds > 0 then
    return holds -- a retried release that already ran: never decrement twice
  end
  if holds < expected then
    -- gone: released by this very request (its reply lost), or expired or force-unlocked
    if expected == 1 and holds == 0 and redis.call('zscore', KEYS[2], ended) then
      return 0
    end
    return -1
  end
  if expected > 1 then
    redis.call('hset', hash, field, expected - 1)
    return expected - 1
  end
elseif holds == 0 then
  return 0
end
rw_drop(hash, field)
if expected > 0 then
  -- remembered a few minutes (and at most the last 1,000) for a retry whose first reply was lost
  redis.call('zadd', KEYS[2], now, ended)
  redis.call('zremrangebyscore', KEYS[2], '-inf', now - 300000)
  redis.call('zremrangebyrank', KEYS[2], 0, -1001)
  redis.call('pexpire', KEYS[2], 300000)
end
local writer = string.sub(field, -2) == ':w'
local readers_left = state.readers - (writer and 0 or 1)
local readers_in = 0
if writer then
  local let_in = {}
  for waiter, wait in pairs(state.waits) do
    if string.sub(waiter, -2) ~= ':w' and (not state.writer_since or wait[2] < state.writer_since) then
      let_in[#let_in + 1] = rw_given(rw_grant(hash, KEYS[3], ARGV[6], waiter, wait[1], now), waiter)
      readers_in = readers_in + 1
    end
  end
  if readers_in > 0 then
    -- those let in hold the lock already, and only they wake, each told its hold's token (rw_given), one after
    -- another; the rest wait behind a writer, and are told when it is done
    announce(ARGV[5], table.concat(let_in))
  end
end
if readers_in == 0 and readers_left == 0 and (writer or not state.writer) then
  -- the last hold out: the writer that waited longest, unless a reader waited before it
  local next, since = nil, nil
  for waiter, wait in pairs(state.waits) do
    if string.sub(waiter, -2) == ':w' and (not since or wait[2] < since or (wait[2] == since and waiter < next)) then
      next, since = waiter, wait[2]
    end
  end
  if next and not (state.reader_since and state.reader_since < since) then
    -- its hold's token and its field (rw_given): only that waiter wakes
    announce(ARGV[4], rw_given(rw_grant(hash, KEYS[3], ARGV[6], next, state.waits[next][1], now), next))
  else
    announce(ARGV[4], '') -- every waiting writer may try
  end
end
return expected > 0 and 0 or 1
