-- Extend the leases of many held locks in one call (the watchdog's batch).
-- KEYS: pairs of (lock hash, fencing counter)   ARGV[1] lease in ms   ARGV[i + 1]: owner id of pair i
-- Returns one flag per pair: 1 renewed, 0 the owner no longer holds that lock.
local lease = tonumber(ARGV[1])
local renewed = {}
for i = 1, #KEYS / 2 do
  local lock = KEYS[2 * i - 1]
  if redis.call('hexists', lock, ARGV[i + 1]) == 1 then
    -- never shorten: a re-entry may have asked for a longer lease than the watchdog's
    if redis.call('pttl', lock) < lease then
      redis.call('pexpire', lock, lease)
      redis.call('pexpire', KEYS[2 * i], lease)
    end
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
