-- Extend the leases of many held locks in one call (the watchdog's batch).
-- KEYS: lock hashes   ARGV[1] lease in ms   ARGV[i + 1]: owner id of KEYS[i]
-- Returns one flag per lock: 1 renewed, 0 the owner no longer holds it.
-- The caller only sends holds whose lease is shorter than ARGV[1], so this never shortens one.
local renewed = {}
for i = 1, #KEYS do
  if redis.call('hexists', KEYS[i], ARGV[i + 1]) == 1 then
    redis.call('pexpire', KEYS[i], ARGV[1])
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
