-- Prepended to the read-write lock's scripts: the layout of its hash, in one place.
-- Each hold is a field F = hold count, with F..':e' = when its own lease ends and F..':t' = its fencing
-- token; F is the owner id for a read hold and the owner id..':w' for a write hold. An owner that waits
-- adds F..':i' = 'until:since': since when it waits, and until when that stands unless it tries again.
-- A release that lets waiters in gives them their holds at once (rw_grant) and marks each F..':g': such a hold
-- lasts only as long as the claim it replaced, until its owner's next attempt or a renewal lengthens it. Its
-- owner may take it up from the release's announcement alone, which carries its token (rw_given); the mark
-- then stays until the hold ends, and tells a withdrawal that gives back a hold nobody took up. An attempt takes such
-- a hold up only if it was given during the attempt's own wait (rw-acquire.lua).
-- Waiters go in turns by since: a reader waits for the writers that waited before it, a writer for the
-- holders and for the readers that waited before it. Times are Redis server time, in ms.

local function rw_now()
  local time = redis.call('time')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- When a hold ends, from its own lease as stored (ends); a hold written without one lives as long as the hash.
local function rw_ends(hash, ends, now)
  return tonumber(ends or (now + math.max(redis.call('pttl', hash), 1)))
end

-- Drops field's hold: its count, its lease, its token and the mark of a hold a release gave it.
local function rw_drop(hash, field)
  redis.call('hdel', hash, field, field .. ':e', field .. ':t', field .. ':g')
end

-- Drops the holds and waiters whose time is up, and returns who is left: readers (read holds), writer (the
-- write hold's field or nil), first_end (the earliest lease end of a hold: a waiter looks again then, since
-- a holder that died frees its share there), waits (each waiter's field to {until, since}), and for the
-- waiting writers and readers apart: the earliest since (writer_since, reader_since) and the latest until.
local function rw_state(hash, now)
  local flat = redis.call('hgetall', hash)
  local values = {}
  for i = 1, #flat, 2 do
    values[flat[i]] = flat[i + 1]
  end
  local state = { readers = 0, writer = nil, first_end = nil, waits = {}, writers_until = 0, readers_until = 0 }
  for field, value in pairs(values) do
    local suffix = string.sub(field, -2)
    if suffix == ':i' then
      local ends, since = string.match(value, '^(%d+):?(%d*)$')
      ends, since = tonumber(ends or 0), tonumber(since) or 0
      if ends <= now then
        redis.call('hdel', hash, field)
      else
        local waiter = string.sub(field, 1, -3)
        state.waits[waiter] = { ends, since }
        if string.sub(waiter, -2) == ':w' then
          state.writer_since = math.min(state.writer_since or since, since)
          state.writers_until = math.max(state.writers_until, ends)
        else
          state.reader_since = math.min(state.reader_since or since, since)
          state.readers_until = math.max(state.readers_until, ends)
        end
      end
    elseif suffix ~= ':e' and suffix ~= ':t' and suffix ~= ':g' then
      -- a hold without a lease of its own (never written so) lives as long as the hash
      local ends = rw_ends(hash, values[field .. ':e'], now)
      if ends <= now then
        rw_drop(hash, field)
      else
        state.first_end = math.min(state.first_end or ends, ends)
        if suffix == ':w' then
          state.writer = field
        else
          state.readers = state.readers + 1
        end
      end
    end
  end
  return state
end

-- The holds field has, or 0 if it has none or its own lease has ended: then they are dropped, as rw_state drops them.
local function rw_own(hash, field, now)
  local values = redis.call('hmget', hash, field, field .. ':e')
  local holds = tonumber(values[1] or 0)
  if holds > 0 and rw_ends(hash, values[2], now) <= now then
    rw_drop(hash, field)
    return 0
  end
  return holds
end

-- The hash lives as long as its longest hold or claim: never shortened, since others' holds share it.
local function rw_keep(hash, ttl)
  if redis.call('pttl', hash) < ttl then
    redis.call('pexpire', hash, ttl)
  end
end

-- Issues the lock's next fencing token: above the last one, and at least the clock in µs, so that it keeps
-- increasing even if the counter is gone (kept only for retention ms).
local function rw_token(fence, retention)
  local last = tonumber(redis.call('get', fence) or 0)
  local time = redis.call('time')
  local token = string.format('%d', math.max(tonumber(time[1]) * 1000000 + tonumber(time[2]), last + 1))
  redis.call('set', fence, token, 'px', retention)
  return token
end

-- Gives waiter field its hold in a release (see above): until its claim would have lapsed, so that a waiter
-- that died or stopped waiting unannounced holds nobody up for longer than its claim would have. Returns the
-- hold's fencing token.
local function rw_grant(hash, fence, retention, field, ends, now)
  local token = rw_token(fence, retention)
  redis.call('hdel', hash, field .. ':i')
  redis.call('hset', hash, field, 1, field .. ':e', string.format('%d', ends), field .. ':t', token, field .. ':g', 1)
  rw_keep(hash, ends - now)
  return token
end

-- How a release's announcement names a waiter it gave a hold: '<token> <length of field in bytes> <field>'.
-- Entries follow one another with nothing between them; the length says where a field ends, so a field may
-- hold any character.
local function rw_given(token, field)
  return token .. ' ' .. #field .. ' ' .. field
end
