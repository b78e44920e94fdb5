-- Give back one hold, only if it is still the caller's hold, and at most once per request.
-- KEYS[1] lock hash   KEYS[2] fencing counter
-- ARGV[1] owner id   ARGV[2] fencing token of the hold   ARGV[3] holds before this release   ARGV[4] release channel
-- Returns the holds left (0: released and announced), or -1 when the caller does not hold this lock.
if redis.call('get', KEYS[2]) ~= ARGV[2] then
  return -1  -- expired, force-unlocked or taken since: not this hold any more
end
local expected = tonumber(ARGV[3])
local holds = tonumber(redis.call('hget', KEYS[1], ARGV[1]) or 0)
-- a retried release that already ran: never decrement twice. At zero the hash must be gone too,
-- or the caller is not the owner at all but merely knows the current token
if holds == expected - 1 and (holds > 0 or redis.call('exists', KEYS[1]) == 0) then
  return holds
end
if holds ~= expected then
  return -1
end
if holds > 1 then
  return redis.call('hincrby', KEYS[1], ARGV[1], -1)
end
redis.call('del', KEYS[1])
-- the counter stays until its own expiry so the next token still sees it
redis.call('publish', ARGV[4], ARGV[1])
return 0
