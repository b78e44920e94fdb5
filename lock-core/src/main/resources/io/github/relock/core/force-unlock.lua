-- Release a lock whoever holds it, or only one given hold, and make the old holder's fencing token stale.
-- KEYS[1] lock hash   KEYS[2] fencing counter ('token:floor:released', see acquire.lua)   ARGV[1] release channel
-- ARGV[2], ARGV[3] (optional) an owner id and its fencing token: release only that hold, whatever its count
-- Returns 1 if the lock was held (by that hold), 0 otherwise.
local fence = redis.call('get', KEYS[2])
if ARGV[2] and (not fence or string.match(fence, '^%d+') ~= ARGV[3]
    or redis.call('hexists', KEYS[1], ARGV[2]) == 0) then
  return 0
end
if redis.call('del', KEYS[1]) == 0 then
  return 0
end
if fence then
  -- bump the counter: the old holder's release then fails, and its hold does not count as released
  local bumped = string.format('%d', tonumber(string.match(fence, '^%d+')) + 1)
  redis.call('set', KEYS[2], bumped .. ':' .. bumped .. ':0', 'keepttl')
end
redis.call('publish', ARGV[1], '')
return 1
