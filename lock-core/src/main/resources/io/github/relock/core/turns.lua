-- Prepended to acquire.lua, release.lua, transfer.lua and turn-leave.lua (after announce.lua): the turns of a
-- plain lock's waiting clients.
-- KEYS[3] holds the clients that wait for the lock while another client has it, in the order they found it
-- busy: each client's id followed by ':' (a client id holds no ':', and an owner id starts with one). The
-- last release keeps a freed lock a moment for the first of them and names it, so that only that client
-- wakes; the others sleep until their turn. Clients take turns instead of racing, where one that kept
-- losing would wait for ever more rounds, and a release wakes one client, not all. Turns never let two
-- owners in: they only make a free lock look busy to the others for a moment.
-- turns(announce) makes the functions, for a call that meets turns: the common one, a free lock nobody waits
-- for, makes none (a script makes every function it defines anew on each call). announce comes as an argument:
-- a function that refers to an outer local costs more to make.
local function turns(announce)
  local turn = {}

  -- The client of an owner id: the id up to its first ':' (inclusive), as the line keeps it.
  function turn.client(owner)
    return string.match(owner, '^[^:]*:') or owner
  end

  function turn.first(queue)
    return string.match(queue, '^[^:]*:')
  end

  -- Where the client's entry starts in the line, or nil if it is not in it.
  function turn.at(queue, client)
    if string.sub(queue, 1, #client) == client then
      return 1
    end
    local at = string.find(queue, ':' .. client, 1, true)
    return at and at + 1
  end

  function turn.queued(queue, client)
    return turn.at(queue, client) ~= nil
  end

  -- The lock was freed with clients in line: kept for the first for keep ms (if it never comes, the line goes
  -- and every client looks again); the announcement names the line, first to last.
  function turn.announce(key, queue, channel, keep)
    redis.call('pexpire', key, keep)
    announce(channel, '+' .. queue)
  end

  return turn
end
