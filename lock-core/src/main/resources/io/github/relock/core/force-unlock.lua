-- Release a lock whoever holds it, or only one given hold, and make the old holder's fencing token stale.
-- KEYS[1] lock hash   KEYS[2] fencing counter (read by fence.lua, prepended)   ARGV[1] release channel
-- KEYS[3] the plain lock's turns (turns.lua)
-- ARGV[2], ARGV[3] (optional) an owner id and its fencing token: release only that hold, whatever its count
-- (an empty token: whichever hold that owner has, for an acquisition whose reply never came)
-- Returns 1 if the lock was held (by that hold), 0 otherwise.
local current = parse_fence(redis.call('get', KEYS[2]))
if ARGV[2] and ((ARGV[3] ~= '' and current ~= ARGV[3]) or redis.call('hexists', KEYS[1], ARGV[2]) == 0) then
  return 0
end
if redis.call('del', KEYS[1]) == 0 then
  return 0
end
redis.call('del', KEYS[3]) -- every waiter is told below, and whoever comes first takes it
if current then
  -- bump the counter: the old holder's release then fails, and its hold does not count as released
  local bumped = string.format('%d', tonumber(current) + 1)
  redis.call('set', KEYS[2], bumped .. ':' .. bumped .. ':0', 'keepttl')
end
announce(ARGV[1], '')
return 1
