// Generated from lua/bucket.lua by scripts/embed-lua.ts (run by `npm run build`): edit the .lua file, not
// this one. test/bucket/bucket-lua.test.ts checks that the two hold the same text.

/** The text of `lua/bucket.lua`, embedded so that both builds carry it without reading a file. */
export const BUCKET_LUA = `-- Multi-token bucket: consume, refund or peek one bucket atomically.
--
-- Time inside the script is counted in ticks of 0.25 µs (Redis time in µs × 4).
-- State: one string per key; no key is a full bucket.
--   '<full_at>:<rate>'  refilling: full_at is the instant (ticks, Redis time, a whole number in
--                       lowercase hex) at which the bucket is full again, rate the refill rate it
--                       was written with (tokens per second, 7 significant digits), written with
--                       one string.format('%x:%.7g', full_at, rate): at most 14 + 1 + 13 = 28
--                       characters. The key expires at full_at (PXAT, ms rounded up), so an idle
--                       bucket costs no memory.
--   '-<missing>'        refillPerSecond = 0: minus the missing tokens (%.17g, may be fractional);
--                       no TTL (the bucket never refills).
--   '<full_at>'         a positive decimal without ':': the previous release's state, the instant
--                       under the call's own rate (under refill 0: an empty bucket until it passes);
--                       the next write replaces it. A value that is none of these is a full bucket.
-- missing(now) = max(0, full_at - now) * rate / 4e6 tokens; tokens = capacity - missing. Refill
-- fractions are never floored away: the state is a time, not a rounded token count.
--
-- Policy change: the missing tokens (used and not yet refilled) are what carries over.
--   - The call's rate formatted with %.7g equal to the stored rate is the same policy: full_at is
--     read under the call's exact rate, with nothing converted. A capacity change alone converts
--     nothing either: the missing tokens stay.
--   - Any other rate, or a switch to or from refill 0: missing is counted under the stored rate up
--     to now, and from now on the call's rate refills it. remaining = capacity - missing may then
--     be below 0, a debt (reported as 0 tokens left): it is never capped at the new capacity, or
--     a downgrade and an upgrade would wipe it; it is bounded only so that refilling it takes at
--     most 1e9 s at the new rate. An upgrade never takes a token away, a downgrade keeps the debt.
--   The stored rate has 7 significant digits: the conversion at a policy change uses that value.
-- Rounding: each write rounds full_at to the nearest tick (ties to even: at most 1/8 µs of refill
-- either way), which is what double arithmetic at today's instants (2^52..2^53 ticks, up to 2041)
-- does by itself; after 2041 the doubles' step is 2 ticks (0.5 µs). Missing tokens read from
-- full_at that lie within half a µs of refill (at most 0.001 token) of a whole number are taken as
-- that number: Redis time is in whole µs, so only the tick rounding puts them there. Integer costs
-- on integer capacities and rates up to 8000/s therefore give integer answers, and repeated
-- rounding never drifts from them.
--
-- Replies: { status, state, now }
--   status  'ok' | 'denied' | 'never' (cost > capacity: nothing written) | 'expired'
--   state   the bucket after the operation: refill > 0: ticks until it is full again;
--           refill = 0: the missing tokens
--   now     the Redis time the script used (µs)
--   A number is an integer reply when it is a whole number below 2^53, otherwise a string
--   formatted with %.17g (a Lua number reply would be truncated). Tokens left, retry and reset
--   times follow from these, the amount and the policy (src/bucket/bucket-math.ts).
--   'expired' (now > deadline) carries only { 'expired', now } and writes nothing.
local key      = KEYS[1]            -- bucket key, already prefixed
local op       = ARGV[1]            -- 'consume' | 'refund' | 'peek'
local amount   = ARGV[2]            -- consume: cost, refund: tokens to give back, peek: ignored (tokens)
local capacity = ARGV[3]            -- maximum tokens, > 0 (tokens)
local rateText = ARGV[4]            -- refill rate, >= 0 (tokens per second)
local deadline = ARGV[5]            -- absent, '' or Redis time after which the call must do nothing (µs)
local now      = ARGV[6]            -- absent, '' (use TIME) or a test clock (µs); production never sets it

local TICKS = 4000000               -- ticks per second
local EXACT = 9007199254740992      -- 2^53: whole numbers below it are sent as integer replies
local MAX_REFILL_SECONDS = 1e9      -- longest time a bucket may take to refill (s)

local function fail(message)
  return redis.error_reply('ERR graphql-budget bucket: ' .. message)
end

-- A finite number >= 0 (or > 0 when \`positive\`), or nil and an error message.
local function number(name, text, positive)
  local value = tonumber(text)
  if value == nil then
    return nil, name .. ' must be a number, got ' .. string.format('%q', tostring(text))
  end
  if value ~= value or value == math.huge or value == -math.huge then
    return nil, name .. ' must be a finite number, got ' .. tostring(text)
  end
  if value < 0 or (positive and value == 0) then
    return nil, name .. ' must be ' .. (positive and '> 0' or '>= 0') .. ', got ' .. tostring(text)
  end
  return value
end

local function fmt(value)
  return string.format('%.17g', value)
end

-- A reply number: integer replies are exact below 2^53; anything else goes as a string.
local function out(value)
  if value == math.floor(value) and value < EXACT and value > -EXACT then return value end
  return fmt(value)
end

-- The nearest whole number, ties to even.
local function round(value)
  local whole = math.floor(value)
  local rest = value - whole
  if rest > 0.5 or (rest == 0.5 and whole % 2 == 1) then whole = whole + 1 end
  return whole
end

-- Missing tokens read from an instant at \`rate\`: the nearest whole number when within half a µs
-- of refill (at most 0.001 token) of it, since only the tick rounding can put them there.
local function snap(missing, rate)
  local whole = math.floor(missing + 0.5)
  local radius = rate * 5e-7
  if radius > 0.001 then radius = 0.001 end
  if missing - whole <= radius and whole - missing <= radius then return whole end
  return missing
end

if op ~= 'consume' and op ~= 'refund' and op ~= 'peek' then
  return fail('op must be consume, refund or peek, got ' .. string.format('%q', tostring(op)))
end
local err, refill
capacity, err = number('capacity', capacity, true)
if not capacity then return fail(err) end
refill, err = number('refillPerSecond', rateText, false)
if not refill then return fail(err) end
if refill > 0 and capacity / refill > MAX_REFILL_SECONDS then
  return fail('capacity / refillPerSecond (seconds to refill) must be at most 1e9, got ' .. fmt(capacity / refill))
end
if op == 'peek' then
  amount = 0
else
  amount, err = number(op == 'consume' and 'cost' or 'amount', amount, false)
  if not amount then return fail(err) end
end
if now == nil or now == '' then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
else
  now, err = number('now', now, false)
  if not now then return fail(err) end
end
if deadline ~= nil and deadline ~= '' then
  deadline, err = number('deadline', deadline, false)
  if not deadline then return fail(err) end
  if now > deadline then return { 'expired', out(now) } end
end
local tick = now * 4                -- now (ticks)

-- The stored state as \`at\` (refilling: full_at, ticks; refill 0: the missing tokens) and the rate
-- it was written with: \`kept\` (its %.7g text) or \`keptRate\` (tokens per second). \`rateKept\` is the
-- call's rate as %.7g text once known (it is what the next write stores).
local stored = redis.call('GET', key)
local at, kept, keptRate, rateKept
if stored then
  local colon = string.find(stored, ':', 1, true)
  if colon then
    at = tonumber(string.sub(stored, 1, colon - 1), 16)
    kept = string.sub(stored, colon + 1)
  else
    at = tonumber(stored)
    if at == nil or at ~= at or at == math.huge or at == -math.huge then
      at = nil                    -- not a state: a full bucket
    elseif at < 0 then
      at, keptRate = -at, 0
    elseif refill > 0 then
      keptRate = refill           -- the previous release's instant, under the call's own rate
    else
      at, keptRate = (at > tick) and capacity or 0, 0
    end
  end
end
if kept then
  if kept ~= rateText and refill > 0 then rateKept = string.format('%.7g', refill) end
  if kept == rateText or kept == rateKept then
    keptRate, rateKept = refill, kept
  else
    keptRate = tonumber(kept)
  end
  if at == nil or not (keptRate and keptRate > 0 and keptRate < math.huge) then at, keptRate = nil, nil end
end

-- The bucket before the operation, under the call's policy: \`missing\` tokens (may exceed the
-- capacity after a policy change: a debt) and, when it refills, \`base\`, the instant it is full
-- again (ticks).
local missing, base = 0, tick
if at == nil then
  -- full
elseif keptRate == refill then
  if refill > 0 then
    if at > tick then
      base = at
      missing = snap((at - tick) * refill / TICKS, refill)
    end
  else
    missing = at
  end
else
  if keptRate > 0 then
    if at > tick then missing = snap((at - tick) * keptRate / TICKS, keptRate) end
  else
    missing = at
  end
  if refill > 0 then
    if missing > MAX_REFILL_SECONDS * refill then missing = MAX_REFILL_SECONDS * refill end
    base = round(tick + missing * TICKS / refill)
  end
end

-- The reply for a bucket \`short\` tokens short of full (refill > 0: full again at \`full_at\`, ticks).
local function reply(status, full_at, short)
  if refill > 0 then return { status, out(full_at - tick), out(now) } end
  return { status, out(short), out(now) }
end

-- Writes the bucket \`short\` tokens short of full, and replies ok: a full bucket is no key at
-- all; a refilling one expires when full.
local function store(short)
  if refill > 0 then
    local full_at = round(tick + short * TICKS / refill)
    if short <= 0 or full_at <= tick then
      redis.call('DEL', key)
      full_at = tick
    else
      local state = rateKept and string.format('%x:', full_at) .. rateKept or string.format('%x:%.7g', full_at, refill)
      redis.call('SET', key, state, 'PXAT', string.format('%d', math.ceil(full_at / 4000)))
    end
    return reply('ok', full_at)
  end
  if short <= 0 then
    redis.call('DEL', key)
    short = 0
  else
    redis.call('SET', key, fmt(-short))
  end
  return reply('ok', 0, short)
end

if op == 'peek' then
  return reply('ok', base, missing)
end

if op == 'refund' then
  if amount == 0 or missing == 0 then return reply('ok', base, missing) end
  return store(math.max(0, missing - amount))
end

-- consume: take \`amount\` tokens if they exist, otherwise write nothing.
if amount > capacity then
  return reply('never', base, missing)
end
if capacity - missing < amount then
  return reply('denied', base, missing)
end
if amount == 0 then return reply('ok', base, missing) end
return store(missing + amount)
`;
