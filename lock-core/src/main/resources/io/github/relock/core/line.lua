-- Prepended to acquire.lua, release.lua and fair-leave.lua: the waiting line of a fair lock, in one place.
-- KEYS[3] the line: owner id -> arrival number, in the order Redis received each waiter's first attempt
-- KEYS[4] owner id -> until when (Redis time, ms) its place is kept unless it tries again; field '#' counts
-- arrivals. Exclusive locks pass neither key, and these functions then never run.

local function line_now()
  local time = redis.call('time')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- The first waiter whose place is still kept; those before it gave up without a word, or died, and go.
local function line_head(line, places, now)
  while true do
    local head = redis.call('zrange', line, 0, 0)[1]
    if not head then
      return nil, 0
    end
    local kept = tonumber(redis.call('hget', places, head) or 0)
    if kept > now then
      return head, kept
    end
    redis.call('zrem', line, head)
    redis.call('hdel', places, head)
  end
end

-- Gives the owner a place at the end of the line, or keeps the one it has, for keep ms more.
local function line_join(line, places, owner, now, keep)
  if not redis.call('zscore', line, owner) then
    redis.call('zadd', line, redis.call('hincrby', places, '#', 1), owner)
  end
  redis.call('hset', places, owner, string.format('%d', now + keep))
  -- both live while anyone waits: every place lapses within keep ms of its owner's last attempt
  redis.call('pexpire', line, keep * 2)
  redis.call('pexpire', places, keep * 2)
end

local function line_leave(line, places, owner)
  redis.call('zrem', line, owner)
  redis.call('hdel', places, owner)
end
