-- A waiter of a fair lock stops waiting: it leaves the line, and if the lock is free the next waiter is told.
-- KEYS[1] lock hash   KEYS[2] (unused: keeps the line at KEYS[3])   KEYS[3], KEYS[4] the line (line.lua)
-- ARGV[1] owner id   ARGV[2] release channel
line_leave(KEYS[3], KEYS[4], ARGV[1])
if redis.call('exists', KEYS[1]) == 0 then
  local head = line_head(KEYS[3], KEYS[4], line_now())
  if head then
    announce(ARGV[2], head)
  end
end
return 0
