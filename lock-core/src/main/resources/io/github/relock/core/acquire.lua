-- Take, re-enter or report the holder's remaining lease, in one atomic step.
-- KEYS[1] lock hash (field = owner id, value = hold count)   KEYS[2] fencing counter
-- ARGV[1] owner id   ARGV[2] lease in ms   ARGV[3] holds the caller believes it already has
-- Returns {holds, token}: holds >= 1 acquired (token is 0 on re-entry: the caller keeps its own),
-- {0, pttl} held by another owner, {-1, 0} the caller's earlier hold is gone (expired or force-unlocked).
local expected = tonumber(ARGV[3])
local holds = tonumber(redis.call('hget', KEYS[1], ARGV[1]) or 0)

-- the same request already ran (a client library replayed it after a reconnect): do not count it twice
if holds == expected + 1 then
  return {holds, tonumber(redis.call('get', KEYS[2]) or 0)}
end
if holds ~= expected then
  return {-1, 0}
end

local lease = tonumber(ARGV[2])
if holds > 0 then
  holds = redis.call('hincrby', KEYS[1], ARGV[1], 1)
  -- re-entry may lengthen the lease, never shorten what an outer hold asked for
  if redis.call('pttl', KEYS[1]) < lease then
    redis.call('pexpire', KEYS[1], lease)
    redis.call('pexpire', KEYS[2], lease)
  end
  return {holds, 0}
end

if redis.call('exists', KEYS[1]) == 1 then
  return {0, redis.call('pttl', KEYS[1])}
end

-- the clock floor keeps tokens increasing even after the counter key has expired with an old lease
local now = redis.call('time')
local token = math.max(tonumber(now[1]) * 1000000 + tonumber(now[2]),
                       tonumber(redis.call('get', KEYS[2]) or 0) + 1)
redis.call('hset', KEYS[1], ARGV[1], 1)
redis.call('pexpire', KEYS[1], lease)
-- %d: a bare Lua number may be written in exponent form and then never equal the token again
redis.call('set', KEYS[2], string.format('%d', token), 'px', lease)
return {1, token}
