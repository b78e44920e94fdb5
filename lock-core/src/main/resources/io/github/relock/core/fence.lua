-- Prepended to every script that reads a lock's fencing counter (see LuaScript): its format in one place.
-- The counter reads 'token:floor:released': the last token issued; every hold whose token is at least
-- floor and below token ended in a release (not an expiry); released is 1 once the last one did too.
-- parse_fence takes the counter's text (false: none) and returns token, floor and released as strings, or nothing
-- when there is no counter.
local function parse_fence(fence)
  if not fence then
    return nil, nil, nil
  end
  local token, floor, released = string.match(fence, '^(%d+):(%d+):([01])$')
  return token or fence, floor or fence, released or '0'
end
