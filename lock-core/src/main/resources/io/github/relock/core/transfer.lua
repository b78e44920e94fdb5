-- Hand the caller's last hold to a waiting owner of the same client, in one step.
-- A plain lock: once the client's turn is used up and another client is in line, the lock goes to the line
-- instead and the caller's client to its back. A fair lock: the waiter gets it only if it is the head of the
-- line; else the lock is released to the head, as release.lua does.
-- KEYS[1] lock hash   KEYS[2] fencing counter (read by ending.lua, prepended)
-- ARGV[1] owner id   ARGV[2] its fencing token   ARGV[3] new owner id   ARGV[4] new owner's lease in ms
-- ARGV[5] release channel   ARGV[6] 1 if the client's turn is used up, else 0 (plain lock)
-- ARGV[7] how long the fencing counter is kept, in ms
-- KEYS[3] (a plain lock) its turns (turns.lua)   ARGV[8] how long a freed lock is kept for a turn, in ms
-- KEYS[3], KEYS[4] (a fair lock instead) its waiting line, see line.lua
-- Returns the new owner's fencing token (> 0), 0 when freed and announced, -1 when the caller does not hold it.
local fair = KEYS[4] ~= nil
local current, floor, released, queue = read_ending(fair, ARGV[2])
if current ~= ARGV[2] then
  -- a retried hand-off that already ran: the new owner cannot have moved, it waits for this reply
  if redis.call('hget', KEYS[1], ARGV[3]) == '1' and redis.call('hlen', KEYS[1]) == 1 then
    return tonumber(current)
  end
  -- a retried free that already ran, and another owner took the lock since (see release.lua)
  local token = tonumber(ARGV[2])
  if tonumber(floor) <= token and token < tonumber(current) then
    return 0
  end
  return -1  -- expired, force-unlocked or taken since: not this hold any more
end
if released == '1' then
  return 0 -- a retried free that already ran, as in release.lua
end
if tonumber(redis.call('hget', KEYS[1], ARGV[1]) or 0) ~= 1 then
  return -1  -- only the last hold moves; anything else is not the state the caller knows
end
if fair then
  local head = line_head(KEYS[3], KEYS[4], line_now())
  if head ~= ARGV[3] then
    -- another owner came first: the lock is released to it, by name
    redis.call('hdel', KEYS[1], ARGV[1])
    redis.call('set', KEYS[2], current .. ':' .. floor .. ':1', 'px', ARGV[7])
    announce(ARGV[5], head or '')
    return 0
  end
end
-- the client's turn is used up: if another client is in line, the lock is kept for the first of the line, and
-- this client, whose threads still wait, goes to the back of it
local free, client = false, nil
if ARGV[6] == '1' and queue then
  local turn = turns(announce)
  client = turn.client(ARGV[1])
  local at = turn.at(queue, client)
  if at then
    queue = string.sub(queue, 1, at - 1) .. string.sub(queue, at + #client)
  end
  free = queue ~= ''
end
if free then
  redis.call('del', KEYS[1])
  redis.call('set', KEYS[2], current .. ':' .. floor .. ':1', 'px', ARGV[7])
  redis.call('set', KEYS[3], queue .. client, 'px', ARGV[8])
  announce(ARGV[5], '+' .. queue .. client)
  return 0
end
-- in before out: the hash never vanishes midway (in a migrating Cluster slot it would stop being local),
-- and a refusal over maxmemory comes at this first write, before anything changed
redis.call('hset', KEYS[1], ARGV[3], 1)
redis.call('hdel', KEYS[1], ARGV[1])
redis.call('pexpire', KEYS[1], ARGV[4])
if fair then
  line_leave(KEYS[3], KEYS[4], ARGV[3]) -- the head took the lock
end
-- a new holder gets a new, larger token, as on any first acquisition; the old hold ended cleanly
local now = redis.call('time')
local token = math.max(tonumber(now[1]) * 1000000 + tonumber(now[2]), tonumber(current) + 1)
redis.call('set', KEYS[2], string.format('%d', token) .. ':' .. floor .. ':0', 'px', ARGV[7])
return token
