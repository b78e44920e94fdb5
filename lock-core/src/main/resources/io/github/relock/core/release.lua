-- Give back one hold, only if it is still the caller's hold, and at most once per request.
-- KEYS[1] lock hash   KEYS[2] fencing counter (read by ending.lua, prepended)
-- ARGV[1] owner id   ARGV[2] fencing token of the hold   ARGV[3] holds before this release
-- ARGV[4] release channel   ARGV[5] how long the fencing counter is kept, in ms
-- KEYS[3] (the plain lock) its clients' turns, see turns.lua; ARGV[6] how long a freed lock is kept for a turn
-- KEYS[3], KEYS[4] (a fair lock instead) its waiting line, see line.lua
-- (announce.lua, fence.lua, ending.lua and turns.lua are prepended for a plain lock; for a fair one, line.lua
-- instead of turns.lua)
-- Returns the holds left (0: released), or -1 when the caller does not hold this lock (any more).
local fair = KEYS[4] ~= nil
local current, floor, released, queue = read_ending(fair, ARGV[2])
-- a last release, as most are, needs no strtod
local expected = ARGV[3] == '1' and 1 or tonumber(ARGV[3])
if current ~= ARGV[2] then
  -- a retried last release that ran before a new owner took the lock: this hold ended in a release
  local token = tonumber(ARGV[2])
  if expected == 1 and tonumber(floor) <= token and token < tonumber(current) then
    return 0
  end
  return -1 -- expired, force-unlocked or taken since: not this hold any more
end
if released == '1' then
  return expected == 1 and 0 or -1 -- a retried last release that already ran
end
if expected > 1 then
  local holds = tonumber(redis.call('hget', KEYS[1], ARGV[1]) or 0)
  -- a retried release that already ran: never decrement twice
  if holds == expected - 1 then
    return holds
  end
  if holds < expected then
    return -1
  end
  -- the count becomes what the caller believes, also when a release that failed left one more behind
  redis.call('hset', KEYS[1], ARGV[1], expected - 1)
  -- ARGV[7] (a re-entry given back for want of a replica's acknowledgement): the lease it lengthened goes back
  local restore = tonumber(ARGV[7] or 0)
  if restore > 0 and redis.call('pttl', KEYS[1]) > restore then
    redis.call('pexpire', KEYS[1], restore)
  end
  return expected - 1
end
-- the last hold: one owner at a time, so its field is the hash's only one and taking it frees the lock (a
-- field written in by hand stays, and keeps the lock busy until the hash's lease ends: the keys are relock's)
if redis.call('hdel', KEYS[1], ARGV[1]) == 0 then
  return -1
end
redis.call('set', KEYS[2], current .. ':' .. floor .. ':1', 'px', ARGV[5])
if fair then
  -- a fair lock tells its next waiter by name: only that one may take it
  announce(ARGV[4], line_head(KEYS[3], KEYS[4], line_now()) or '')
else
  if queue then
    turns(announce).announce(KEYS[3], queue, ARGV[4], ARGV[6])
  else
    announce(ARGV[4], ARGV[1])
  end
end
return 0
