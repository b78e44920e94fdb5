-- A writer that stopped waiting withdraws its claim, so that the readers it held back go now.
-- KEYS[1] lock hash   ARGV[1] the writer's field   ARGV[2] readers' release channel
if redis.call('hdel', KEYS[1], ARGV[1] .. ':i') == 1 then
  redis.call('publish', ARGV[2], ARGV[1])
end
return 0
