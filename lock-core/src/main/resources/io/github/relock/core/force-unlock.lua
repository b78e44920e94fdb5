-- Release a lock whoever holds it, and make the old holder's fencing token stale.
-- KEYS[1] lock hash   KEYS[2] fencing counter ('token:floor:released', see acquire.lua)   ARGV[1] release channel
-- Returns 1 if the lock was held, 0 if it was free.
if redis.call('del', KEYS[1]) == 0 then
  return 0
end
local fence = redis.call('get', KEYS[2])
if fence then
  -- bump the counter: the old holder's release then fails, and its hold does not count as released
  local bumped = string.format('%d', tonumber(string.match(fence, '^%d+')) + 1)
  redis.call('set', KEYS[2], bumped .. ':' .. bumped .. ':0', 'keepttl')
end
redis.call('publish', ARGV[1], '')
return 1
