-- End every hold of a read-write lock, and wake its waiters. Retried releases of those holds then find
-- them gone, and report them lost.
-- KEYS[1] lock hash   ARGV[1] writers' release channel   ARGV[2] readers' release channel
-- Returns 1 if the lock was held, 0 otherwise.
if redis.call('del', KEYS[1]) == 0 then
  return 0
end
announce(ARGV[2], '')
announce(ARGV[1], '')
return 1
