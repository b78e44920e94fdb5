-- The lean floor's release (LeanLibrary): gives back one hold, only the owner's.
-- KEYS[1] lock hash   ARGV[1] owner id   ARGV[2] lease in ms   ARGV[3] release channel
-- Returns nil when the caller holds no hold on it, 0 when holds remain, 1 when the lock is free.
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
  return nil
end
if redis.call('hincrby', KEYS[1], ARGV[1], -1) > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 0
end
redis.call('del', KEYS[1])
-- nobody listens here (LeanLibrary waits by pausing), but a real lock would tell its waiters: the work stays
redis.call('publish', ARGV[3], ARGV[1])
return 1
