-- Release a lock whoever holds it, and make the old holder's fencing token stale.
-- KEYS[1] lock hash   KEYS[2] fencing counter   ARGV[1] release channel
-- Returns 1 if the lock was held, 0 if it was free.
if redis.call('del', KEYS[1]) == 0 then
  return 0
end
-- bump rather than delete the counter: the old holder's release then fails, tokens keep growing
local pttl = redis.call('pttl', KEYS[2])
if pttl <= 0 then pttl = 60000 end
local bumped = tonumber(redis.call('get', KEYS[2]) or 0) + 1
redis.call('set', KEYS[2], string.format('%d', bumped), 'px', pttl)
redis.call('publish', ARGV[1], '')
return 1
