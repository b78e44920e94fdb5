-- An owner that stopped waiting gives up its place in the turns, so that those it held back go now.
-- KEYS[1] lock hash   ARGV[1] the waiter's field   ARGV[2] the channel of those it held back (a writer: the
-- readers'; a reader: the writers')
if redis.call('hdel', KEYS[1], ARGV[1] .. ':i') == 1 then
  announce(ARGV[2], ARGV[1])
end
return 0
