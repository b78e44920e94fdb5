-- The hold count of one field of a read-write lock, 0 if its own lease has ended.
-- KEYS[1] lock hash (layout: rw-state.lua)   ARGV[1] the hold's field
local values = redis.call('hmget', KEYS[1], ARGV[1], ARGV[1] .. ':e')
if not values[1] then
  return 0
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if values[2] and tonumber(values[2]) <= now then
  return 0
end
return tonumber(values[1])
