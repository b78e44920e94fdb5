-- The lean floor's acquisition (LeanLibrary): a reentrant hash lock checked by owner, with no fencing.
-- KEYS[1] lock hash (field = owner id, value = hold count)   ARGV[1] owner id   ARGV[2] lease in ms
-- Returns nil when taken or re-entered, otherwise the holder's remaining lease in ms.
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[1]) == 1 then
  redis.call('hincrby', KEYS[1], ARGV[1], 1)
  redis.call('pexpire', KEYS[1], ARGV[2])
  return nil
end
return redis.call('pttl', KEYS[1])
