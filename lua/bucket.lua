-- Multi-token buckets: apply a list of operations in order (consume, refund or peek, each on one
-- bucket or on several at once), atomically, on one Redis time.
--
-- Time inside the script is counted in ticks of 0.25 µs (Redis time in µs × 4).
-- State: one string per key; no key is a full bucket.
--   '<full_at>:<rate>'  refilling: full_at is the instant (ticks, Redis time, a whole number in
--                       lowercase hex) at which the bucket is full again, rate the refill rate it
--                       was written with (tokens per second, exact: the call's own text when it is
--                       at most 24 characters, which reads back as the same double, otherwise
--                       %.17g): at most 14 + 1 + 24 = 39 characters. (The previous release kept the
--                       rate to 7 significant digits: such a state converts once, at its next call.)
--                       The key expires at full_at (PXAT, ms rounded up), so an idle bucket costs
--                       no memory.
--   '-<missing>'        refillPerSecond = 0: minus the missing tokens (%.17g, may be fractional);
--                       no TTL (the bucket never refills).
--   '<full_at>'         a positive decimal without ':': the previous release's state, the instant
--                       under the call's own rate (under refill 0: an empty bucket until it passes);
--                       the next write replaces it. A value that is none of these is a full bucket.
-- missing(now) = max(0, full_at - now) * rate / 4e6 tokens; tokens = capacity - missing. Refill
-- fractions are never floored away: the state is a time, not a rounded token count.
--
-- Policy change: the missing tokens (used and not yet refilled) are what carries over.
--   - The call's rate equal to the stored rate is the same policy: nothing is converted. A
--     capacity change alone converts nothing either: the missing tokens stay.
--   - Any other rate, or a switch to or from refill 0: missing is counted under the stored rate up
--     to now, and from now on the call's rate refills it. remaining = capacity - missing may then
--     be below 0, a debt (reported as 0 tokens left): it is never capped at the new capacity, or
--     a downgrade and an upgrade would wipe it; it is bounded only so that refilling it takes at
--     most 1e9 s at the new rate. An upgrade never takes a token away, a downgrade keeps the debt.
--   A refused consume under another policy writes the conversion of each bucket that refused it:
--   from that call on the bucket refills at the call's rate. (Were it left unwritten, every
--   refused call would count the missing tokens under the old rate again, and a caller moved from
--   refill 0 to a refilling policy while short would wait forever.) A peek, an allowed consume of
--   0, and a refund or take of 0 convert nothing.
-- Rounding: each write rounds full_at to the nearest tick (ties to even: at most 1/8 µs of refill
-- either way), which is what double arithmetic at today's instants (2^52..2^53 ticks, up to 2041)
-- does by itself; after 2041 the doubles' step is 2 ticks (0.5 µs). Missing tokens read from
-- full_at that lie within half a µs of refill (at most 0.001 token) of a whole number are taken as
-- that number: Redis time is in whole µs, so only the tick rounding puts them there. Integer costs
-- on integer capacities and rates up to 8000/s therefore give integer answers, and repeated
-- rounding never drifts from them.
--
-- Operations, applied in the order given, each seeing the state the previous ones left:
--   consume  takes `amount` tokens from every one of its buckets if each holds them; otherwise
--            takes nothing from any (all or nothing), and a bucket that refused keeps a policy
--            change's conversion. A single bucket is the plain case.
--   refund   gives `amount` tokens back to each of its buckets, never beyond its capacity; what
--            it would leave missing below 1e-15 of `amount` (a few units in the last place), plus
--            1/8 µs of the old rate's refill when the call converted the bucket to a new policy
--            (the tick rounding of the last write), is rounding, and the bucket is full.
--   peek     reads each of its buckets.
--   take     takes `amount` tokens from each of its buckets whether or not it holds them: what it
--            lacks is kept as a debt (missing tokens beyond the capacity), bounded as at a policy
--            change so that the rate refills it within 1e9 s.
-- Reads are one MGET per call (in chunks) and writes one SET or DEL per changed key at the end,
-- so a bucket that several operations of the call touch is read once and written once.
--
-- Call:
--   KEYS       the buckets of every operation, in operation order (already prefixed; a key may
--              appear in several operations, but not twice in one consume)
--   ARGV[1]    '' (use TIME) or a test clock (µs); production never sets it
--   then, per operation (its buckets are the next n entries of KEYS):
--     op        'c<n>' consume, 'r<n>' refund, 'p<n>' peek or 't<n>' take, over n >= 1 buckets
--     amount    consume: cost, refund: tokens to give back, take: tokens to take, peek: ignored (tokens)
--     deadline  '' or the Redis time after which the operation must do nothing (µs)
--     then, per bucket:
--       capacity  maximum tokens, > 0 (tokens)
--       rate      refill rate, >= 0 (tokens per second)
--
-- Reply: { now, status, state, status, state, ... }: the Redis time the script used (µs), then
-- one pair per bucket, in the order of KEYS.
--   status  'ok' | 'denied' | 'never' (cost > capacity) | 'expired' | 'error'
--   state   the bucket after the operation: refill > 0: ticks until it is full again;
--           refill = 0: the missing tokens
--   A consume answers 'ok' for every bucket when it took the tokens. When it did not, each bucket
--   says whether it alone could pay ('ok', 'denied' or 'never') and its state is as it stands.
--   'expired' (now > deadline) and 'error' (the operation's arguments are invalid; state is the
--   message) mark every bucket of an operation that did nothing. A call that cannot be read as a
--   list of operations is an error reply, and writes nothing.
--   A number is an integer reply when it is a whole number below 2^53, otherwise a string
--   formatted with %.17g (a Lua number reply would be truncated). Tokens left, retry and reset
--   times follow from these, the amount and the policy (src/bucket/bucket-math.ts).

-- Constants: 4000000 ticks per second (TICKS); 9007199254740992 = 2^53, below which whole numbers
-- are exact integer replies; MAX_REFILL_SECONDS.
local MAX_REFILL_SECONDS = 1e9      -- longest time a bucket may take to refill (s)
local MGET_CHUNK = 1000             -- keys per MGET (unpack has a limit)

-- The hot path avoids function calls (each costs about as much as a dozen arithmetic steps):
-- floor(x) is written x - x % 1, which is the same for every finite x (Lua's % is x - floor(x)).
-- Helpers capture few locals: a closure is made on every call, and each local it captures costs
-- (so they spell the constants out).
-- Globals (KEYS, ARGV, string.*) are table lookups on every use: the hot path reads locals.
local KEYS, ARGV, tonumber = KEYS, ARGV, tonumber
local format, find, sub, byte = string.format, string.find, string.sub, string.byte
local huge = math.huge

-- A reply number: integer replies are exact below 2^53; anything else goes as a string (%.17g).
local function out(value)
  if value % 1 == 0 and value < 9007199254740992 and value > -9007199254740992 then return value end   -- 2^53
  return format('%.17g', value)
end

-- The number in `text` if it is finite and >= 0 (> 0 when `mustBePositive`), or nil and an error
-- message. Parsed once per call: tonumber is strtod, and a batch repeats its policies and costs.
-- Valid texts (finite and >= 0) are kept in `valid`, which the hot path reads without a call.
local parsed, valid = {}, {}
local function number(name, text, mustBePositive)
  local value = parsed[text]
  if value == nil then
    value = tonumber(text) or false
    parsed[text] = value
  end
  if value and value >= 0 and value < huge and (value > 0 or not mustBePositive) then
    valid[text] = value
    return value
  end
  if not value then
    return nil, name .. ' must be a number, got ' .. format('%q', tostring(text))
  end
  if value ~= value or value == huge or value == -huge then
    return nil, name .. ' must be a finite number, got ' .. tostring(text)
  end
  return nil, name .. ' must be ' .. (mustBePositive and '> 0' or '>= 0') .. ', got ' .. tostring(text)
end

local now = ARGV[1]
if now == nil or now == '' then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
else
  local err
  now, err = number('now', now, false)
  if not now then return redis.error_reply('ERR graphql-budget bucket: ' .. err) end
end
local tick = now * 4                -- now (ticks)

-- The stored values, by position in KEYS (what MGET answered: a string, or false for no key, a
-- full bucket). A key named twice is read twice (cheaper than finding the repeats).
local keyCount = #KEYS
local got
if keyCount == 0 then
  got = {}
elseif keyCount <= MGET_CHUNK then
  got = redis.call('MGET', unpack(KEYS))
else
  got = {}
  for first = 1, keyCount, MGET_CHUNK do
    local last = first + MGET_CHUNK - 1
    if last > keyCount then last = keyCount end
    local chunk = redis.call('MGET', unpack(KEYS, first, last))
    for i = first, last do got[i] = chunk[i - first + 1] end
  end
end
-- What this call writes, by the position i in KEYS of the operation that wrote it: the new value
-- (false: no key) at new[2i - 1] and its PXAT (ms; false: no TTL) at new[2i]. `latest` gives a
-- key's last such position, where a later operation on the key reads it and from where it is
-- written at the end.
local new, latest = {}, {}
local written, writes = {}, 0       -- positions written, in order
local keptText = {}                 -- a rate's text -> the text a write stores (exact)

-- The bucket `key` (KEYS[index]) as a call with this policy sees it: `missing` tokens (may exceed
-- the capacity after a policy change: a debt), `base`, the instant it is full again (ticks;
-- when it refills), and, when the stored state was converted to this policy (a policy change),
-- the rate it was stored with (tokens per second; nil: no conversion).
local function load(key, index, capacity, refill, rateText)
  local last, stored = latest[key], nil
  if last then stored = new[2 * last - 1] else stored = got[index] end
  if not stored then return 0, tick end
  local at, kept, keptRate
  local colon = find(stored, ':', 1, true)
  if colon then
    at = tonumber(sub(stored, 1, colon - 1), 16)
    kept = sub(stored, colon + 1)
  else
    at = tonumber(stored)
    if at == nil or at ~= at or at == huge or at == -huge then
      at = nil                      -- not a state: a full bucket
    elseif at < 0 then
      at, keptRate = -at, 0
    elseif refill > 0 then
      keptRate = refill             -- the previous release's instant, under the call's own rate
    else
      at, keptRate = (at > tick) and capacity or 0, 0
    end
  end
  if kept then
    if kept == rateText then
      keptRate = refill
    else
      keptRate = tonumber(kept)
    end
    if at == nil or not (keptRate and keptRate > 0 and keptRate < huge) then at, keptRate = nil, nil end
  end

  if at == nil then return 0, tick end
  local rate = keptRate
  local missing = 0
  if rate > 0 then
    -- No state this script writes is full later than 1e9 s from now (MAX_REFILL_SECONDS, 4e15
    -- ticks): an instant beyond that was not written by it (planted, or garbage) and reads as that far.
    if at > tick + 4e15 then at = tick + 4e15 end
    if at > tick then
      -- The missing tokens, snapped to the nearest whole number when within half a µs of refill
      -- (at most 0.001 token) of it, since only the tick rounding can put them there.
      missing = (at - tick) * rate / 4000000   -- TICKS
      local half = missing + 0.5
      local whole = half - half % 1
      local radius = rate * 5e-7
      if radius > 0.001 then radius = 0.001 end
      if missing - whole <= radius and whole - missing <= radius then missing = whole end
    end
  else
    missing = at
  end
  if keptRate == refill then
    if refill > 0 and at > tick then return missing, at end
    return missing, tick
  end
  local base = tick
  if refill > 0 then
    if missing > 1e9 * refill then missing = 1e9 * refill end   -- MAX_REFILL_SECONDS
    -- round(tick + missing * TICKS / refill): the nearest whole number, ties to even.
    local full = tick + missing * 4000000 / refill   -- TICKS
    base = full - full % 1
    local rest = full - base
    if rest > 0.5 or (rest == 0.5 and base % 2 == 1) then base = base + 1 end
  end
  return missing, base, rate
end

-- Leaves the bucket `key` (KEYS[index]) `short` tokens short of full (written to Redis at the
-- end): a full bucket is no key at all, a refilling one expires when full. Returns its reply state.
local function save(key, index, short, refill, rateText)
  latest[key] = index
  writes = writes + 1
  written[writes] = index
  if refill > 0 then
    -- round(tick + short * TICKS / refill): the nearest whole number, ties to even.
    local full = tick + short * 4000000 / refill   -- TICKS
    local full_at = full - full % 1
    local rest = full - full_at
    if rest > 0.5 or (rest == 0.5 and full_at % 2 == 1) then full_at = full_at + 1 end
    if short <= 0 or full_at <= tick then
      new[2 * index - 1], new[2 * index] = false, false
      return 0
    end
    new[2 * index - 1] = format('%x:%s', full_at, keptText[rateText])
    -- PXAT: full_at in ms, rounded up (a whole number: the %d string Redis would parse).
    local ms = full_at / 4000
    local whole = ms - ms % 1
    if whole < ms then whole = whole + 1 end
    new[2 * index] = format('%d', whole)
    return out(full_at - tick)
  end
  if short <= 0 then
    new[2 * index - 1], new[2 * index] = false, false
    return 0
  end
  new[2 * index - 1], new[2 * index] = format('%.17g', -short), false
  return out(short)
end

local reply, replied = { out(now) }, 1
local lastCapacityText, lastRateText, lastCapacity, lastRefill   -- the last single-bucket policy checked
local scratch                       -- per bucket of a consume over several: missing, base, status
local inConsume                     -- key -> index of the last consume over several that named it

-- One operation after another: validate it, then apply it; each appends a pair per bucket.
local arg, first, index, args = 2, 1, 0, #ARGV
while arg <= args do
  local word = ARGV[arg]
  local kind, n
  if word == 'c1' then
    kind, n = 'c', 1
  elseif word == 'r1' then
    kind, n = 'r', 1
  elseif word == 'p1' then
    kind, n = 'p', 1
  else
    -- The letter and count read as bytes when the count is one digit (no substrings, no strtod).
    local letter = byte(word, 1)
    kind = letter == 99 and 'c' or letter == 114 and 'r' or letter == 112 and 'p' or letter == 116 and 't' or nil
    if #word == 2 then n = byte(word, 2) - 48 else n = tonumber(sub(word, 2)) end
    if kind == nil or n == nil or n < 1 or n % 1 ~= 0 or (#word == 2 and n > 9) then
      return redis.error_reply('ERR graphql-budget bucket: op must be c<n>, r<n>, p<n> or t<n> (consume, refund, peek or take over n buckets), got ' .. format('%q', word) .. ' at ARGV[' .. arg .. ']')
    end
  end
  if arg + 2 + 2 * n > args or first + n - 1 > keyCount then
    return redis.error_reply('ERR graphql-budget bucket: operation ' .. word .. ' at ARGV[' .. arg .. '] needs more ARGV or KEYS than were given')
  end
  index = index + 1
  local amountText, deadlineText, policies = ARGV[arg + 1], ARGV[arg + 2], arg + 3

  -- Check the amount, the deadline and every bucket's policy before touching any bucket: an
  -- operation that fails a check, or whose deadline passed, answers each bucket and does nothing.
  local amount, err, status = 0, nil, nil
  if kind ~= 'p' then
    amount = valid[amountText]
    if amount == nil then amount, err = number(kind == 'c' and 'cost' or 'amount', amountText, false) end
  end
  if err == nil and deadlineText ~= '' then
    -- Each deadline is its own text: parsed here, not kept.
    local deadline = tonumber(deadlineText)
    if not (deadline and deadline >= 0 and deadline < huge) then
      deadline, err = number('deadline', deadlineText, false)
    end
    if err == nil and now > deadline then status, err = 'expired', 0 end
  end
  -- The policy of a single bucket, kept for applying the operation below. A batch repeats its
  -- policies: one the previous single-bucket operation named (the same texts) was checked then.
  local capacity, refill, rateText
  if n == 1 and err == nil and ARGV[policies] == lastCapacityText and ARGV[policies + 1] == lastRateText then
    capacity, refill, rateText = lastCapacity, lastRefill, lastRateText
  else
    for i = 1, n do
      if err ~= nil then break end
      local capacityText = ARGV[policies + 2 * i - 2]
      capacity = valid[capacityText]
      if capacity == nil or capacity == 0 then capacity, err = number('capacity', capacityText, true) end
      if err == nil then
        rateText = ARGV[policies + 2 * i - 1]
        refill = valid[rateText]
        if refill == nil then refill, err = number('refillPerSecond', rateText, false) end
      end
      if err == nil and refill > 0 then
        if capacity / refill > MAX_REFILL_SECONDS then
          err = 'capacity / refillPerSecond (seconds to refill) must be at most 1e9, got ' .. format('%.17g', capacity / refill)
        elseif keptText[rateText] == nil then
          keptText[rateText] = #rateText <= 24 and rateText or format('%.17g', refill)
        end
      end
      if err == nil and kind == 'c' and n > 1 then
        local key = KEYS[first + i - 1]
        inConsume = inConsume or {}
        if inConsume[key] == index then err = 'a consume names the same key twice: ' .. key end
        inConsume[key] = index
      end
    end
    if n == 1 and err == nil then
      lastCapacityText, lastRateText, lastCapacity, lastRefill = ARGV[policies], rateText, capacity, refill
    end
  end

  if err ~= nil then
    for i = 1, n do
      reply[replied + 1], reply[replied + 2], replied = status or 'error', err, replied + 2
    end
  elseif n == 1 then
    -- One bucket: a consume, refund, peek or take of it.
    local key = KEYS[first]
    local missing, base, converted = load(key, first, capacity, refill, rateText)
    local after
    status = 'ok'
    if kind == 'c' then
      if amount > capacity then
        status = 'never'
      elseif capacity - missing < amount then
        status = 'denied'
      elseif amount > 0 then
        after = save(key, first, missing + amount, refill, rateText)
      end
      -- A refused consume under another policy keeps the conversion.
      if status ~= 'ok' and converted then after = save(key, first, missing, refill, rateText) end
    elseif kind == 'r' and amount > 0 and missing > 0 then
      local left = missing - amount
      if left <= amount * 1e-15 + (converted and converted * 1.25e-7 or 0) then left = 0 end
      after = save(key, first, left, refill, rateText)
    elseif kind == 't' and amount > 0 then
      -- The debt grows by `amount`, bounded (as at a policy change) so the rate refills it within 1e9 s.
      local short = missing + amount
      if refill > 0 and short > MAX_REFILL_SECONDS * refill then short = MAX_REFILL_SECONDS * refill end
      after = save(key, first, short, refill, rateText)
    end
    if after == nil then after = out(refill > 0 and base - tick or missing) end
    reply[replied + 1], reply[replied + 2], replied = status, after, replied + 2
  elseif kind ~= 'c' then
    -- refund, peek and take over several buckets: each bucket on its own, in order.
    for i = 1, n do
      local at = first + i - 1
      local key, rateText = KEYS[at], ARGV[policies + 2 * i - 1]
      local capacity, refill = parsed[ARGV[policies + 2 * i - 2]], parsed[rateText]
      local missing, base, converted = load(key, at, capacity, refill, rateText)
      local after
      if kind == 'r' and amount > 0 and missing > 0 then
        local left = missing - amount
        if left <= amount * 1e-15 + (converted and converted * 1.25e-7 or 0) then left = 0 end
        after = save(key, at, left, refill, rateText)
      elseif kind == 't' and amount > 0 then
        local short = missing + amount
        if refill > 0 and short > MAX_REFILL_SECONDS * refill then short = MAX_REFILL_SECONDS * refill end
        after = save(key, at, short, refill, rateText)
      end
      if after == nil then after = out(refill > 0 and base - tick or missing) end
      reply[replied + 1], reply[replied + 2], replied = 'ok', after, replied + 2
    end
  else
    -- consume over several buckets: every one must hold `amount` tokens, or nothing is taken from any.
    scratch = scratch or {}
    local all = true
    for i = 1, n do
      local rateText, at = ARGV[policies + 2 * i - 1], 4 * (i - 1)
      local capacity = parsed[ARGV[policies + 2 * i - 2]]
      local missing, base, converted = load(KEYS[first + i - 1], first + i - 1, capacity, parsed[rateText], rateText)
      status = 'ok'
      if amount > capacity then
        status, all = 'never', false
      elseif capacity - missing < amount then
        status, all = 'denied', false
      end
      scratch[at + 1], scratch[at + 2], scratch[at + 3], scratch[at + 4] = missing, base, status, converted
    end
    for i = 1, n do
      local rateText, at = ARGV[policies + 2 * i - 1], 4 * (i - 1)
      local refill, missing = parsed[rateText], scratch[at + 1]
      local after
      if all and amount > 0 then
        after = save(KEYS[first + i - 1], first + i - 1, missing + amount, refill, rateText)
      elseif scratch[at + 4] and scratch[at + 3] ~= 'ok' then
        after = save(KEYS[first + i - 1], first + i - 1, missing, refill, rateText)
      else
        after = out(refill > 0 and scratch[at + 2] - tick or missing)
      end
      reply[replied + 1], reply[replied + 2], replied = scratch[at + 3], after, replied + 2
    end
  end
  arg = policies + 2 * n
  first = first + n
end
if first - 1 ~= keyCount then
  return redis.error_reply('ERR graphql-budget bucket: the operations name ' .. (first - 1) .. ' keys, KEYS has ' .. keyCount)
end

for i = 1, writes do
  local at = written[i]
  local key = KEYS[at]
  if latest[key] == at then
    local stored, pxat = new[2 * at - 1], new[2 * at]
    if stored then
      if pxat then
        redis.call('SET', key, stored, 'PXAT', pxat)
      else
        redis.call('SET', key, stored)
      end
    elseif got[at] then
      redis.call('DEL', key)
    end
  end
end
return reply
