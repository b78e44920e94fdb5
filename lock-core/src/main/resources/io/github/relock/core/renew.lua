-- Extend the leases of many held locks in one call (the watchdog's batch).
-- KEYS: lock hashes   ARGV[1] lease in ms   ARGV[i + 1]: owner id of KEYS[i] (a read-write lock: the hold's field)
-- Returns one flag per lock: 1 renewed, 0 the owner no longer holds it.
-- The caller only sends holds whose lease is shorter than ARGV[1]; the script checks again, since a
-- re-entry may lengthen a lease between that choice and this call.
local lease = tonumber(ARGV[1])
local now
-- Lengthens a lease, never shortens it: PEXPIRE GT in one call (Redis 7); Redis 6.2 refuses GT on the
-- first lock, and the rest read the lease first (PTTL), as every renewal did before
local gt
local function extend(key)
  if gt ~= false then
    local reply = redis.pcall('pexpire', key, ARGV[1], 'GT')
    if type(reply) ~= 'table' or not reply.err then
      gt = true
      -- GT counts a key without a lease as longer than any: give it one, as the PTTL path below does
      if reply == 0 and redis.call('pttl', key) == -1 then
        redis.call('pexpire', key, ARGV[1])
      end
      return
    end
    gt = false
  end
  if redis.call('pttl', key) < lease then
    redis.call('pexpire', key, ARGV[1])
  end
end
local renewed = {}
for i = 1, #KEYS do
  local field = ARGV[i + 1]
  renewed[i] = 0
  if redis.call('hexists', KEYS[i], field) == 1 then
    -- a read-write lock's hash ends in ':rw' (ReadWriteSide.keys): its holds have leases of their own
    local ends = string.sub(KEYS[i], -3) == ':rw' and redis.call('hget', KEYS[i], field .. ':e')
    if not ends then
      -- never shorter: a re-entry may have lengthened the lease after this hold was picked for renewal
      extend(KEYS[i])
      renewed[i] = 1
    else
      -- a hold of a read-write lock: its own lease, and the hash's only ever lengthened (others share it)
      if not now then
        local time = redis.call('time')
        now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
      end
      if tonumber(ends) > now then
        -- never shorter either: a hold a release gave may have a claim that ends later than this lease would
        redis.call('hset', KEYS[i], field .. ':e', string.format('%d', math.max(tonumber(ends), now + lease)))
        extend(KEYS[i])
        renewed[i] = 1
      end
    end
  end
end
return renewed
