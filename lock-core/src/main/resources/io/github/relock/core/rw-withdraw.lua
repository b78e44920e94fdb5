-- An owner that stopped waiting gives up its place in the turns, so that those it held back go now; a hold a
-- release gave it meanwhile (rw-release.lua) and that it never took up goes back.
-- KEYS[1] lock hash   ARGV[1] the waiter's field   ARGV[2] the channel of those it held back (a writer: the
-- readers'; a reader: the writers')   ARGV[3] the writers' release channel
-- (announced '': a writers' announcement that names an owner wakes only that owner's waiter)
local field = ARGV[1]
if redis.call('hdel', KEYS[1], field .. ':g') == 1 then
  redis.call('hdel', KEYS[1], field, field .. ':e', field .. ':t', field .. ':i')
  announce(ARGV[2], '')
  if ARGV[3] ~= ARGV[2] then
    announce(ARGV[3], '')
  end
elseif redis.call('hdel', KEYS[1], field .. ':i') == 1 then
  announce(ARGV[2], '')
end
return 0
