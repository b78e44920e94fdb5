-- What a read-write lock's hash says, counting only holds whose own lease has not ended.
-- KEYS[1] lock hash (layout: rw-state.lua)   ARGV[1] a hold's field   ARGV[2] what to answer:
-- 'count' that hold's count (0: none); 'locked' 1 if any hold of the side is alive; 'lease' the ms left of
-- that hold's lease, or if it has none, of the longest lease of any hold of the side (0: none).
-- ARGV[3] the side: 'w' the write hold, 'r' the read holds, '' both.
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local function left(field)
  local values = redis.call('hmget', KEYS[1], field, field .. ':e')
  if not values[1] then
    return 0
  end
  local ends = tonumber(values[2] or (now + math.max(redis.call('pttl', KEYS[1]), 0)))
  return math.max(ends - now, 0), tonumber(values[1])
end
if ARGV[2] == 'count' then
  local ms, count = left(ARGV[1])
  return ms > 0 and count or 0
end
local own = left(ARGV[1])
if ARGV[2] == 'lease' and own > 0 then
  return own
end
local longest = 0
local flat = redis.call('hgetall', KEYS[1])
for i = 1, #flat, 2 do
  local suffix = string.sub(flat[i], -2)
  local of_side = ARGV[3] == '' or (ARGV[3] == 'w') == (suffix == ':w')
  if suffix ~= ':e' and suffix ~= ':t' and suffix ~= ':i' and suffix ~= ':g' and of_side then
    longest = math.max(longest, (left(flat[i])))
  end
end
if ARGV[2] == 'locked' then
  return longest > 0 and 1 or 0
end
return longest
