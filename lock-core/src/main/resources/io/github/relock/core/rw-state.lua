-- Prepended to the read-write lock's scripts: the layout of its hash, in one place.
-- Each hold is a field F = hold count, with F..':e' = when its own lease ends and F..':t' = its fencing
-- token; F is the owner id for a read hold and the owner id..':w' for a write hold. An owner that waits
-- adds F..':i' = 'until:since': since when it waits, and until when that stands unless it tries again.
-- A release that lets waiters in gives them their holds at once (rw_grant) and marks each F..':g' until its
-- owner's next attempt takes it up; such a hold lasts only as long as the claim it replaced.
-- Waiters go in turns by since: a reader waits for the writers that waited before it, a writer for the
-- holders and for the readers that waited before it. Times are Redis server time, in ms.

local function rw_now()
  local time = redis.call('time')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
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
      local ends = tonumber(values[field .. ':e'] or (now + math.max(redis.call('pttl', hash), 1)))
      if ends <= now then
        redis.call('hdel', hash, field, field .. ':e', field .. ':t', field .. ':g')
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
-- that died or stopped waiting unannounced holds nobody up for longer than its claim would have.
local function rw_grant(hash, fence, retention, field, ends, now)
  redis.call('hdel', hash, field .. ':i')
  redis.call('hset', hash, field, 1, field .. ':e', string.format('%d', ends), field .. ':t', rw_token(fence, retention),
    field .. ':g', 1)
  rw_keep(hash, ends - now)
end
