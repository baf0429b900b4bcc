// Generated from lua/bucket.lua by scripts/embed-lua.ts (run by `npm run build`): edit the .lua file, not
// this one. test/bucket/bucket-lua.test.ts checks that the two hold the same text.

/** The text of `lua/bucket.lua`, embedded so that both builds carry it without reading a file. */
export const BUCKET_LUA = `-- Multi-token bucket: consume, refund or peek one bucket atomically.
--
-- Time inside the script is counted in ticks of 0.25 µs (Redis time in µs × 4).
-- State: one number per key.
--   value > 0  the instant (ticks, Redis time) at which the bucket is full again ("full_at"), a
--              whole number of ticks, so Redis keeps it int-encoded; the key expires at that
--              instant (PXAT), so an idle bucket costs no memory.
--   value < 0  refillPerSecond = 0 only: minus the missing tokens (may be fractional); no TTL (the
--              bucket never refills).
--   no key     a full bucket.
-- tokens(now) = capacity - max(0, full_at - now) * refill / 4e6, so refill fractions are never
-- floored away: the state is a time, not a rounded token count. Each write rounds full_at to the
-- nearest tick (ties to even: at most 1/8 µs, either way), which is what double arithmetic at
-- today's instants (2^52..2^53 ticks, up to 2041) does by itself; after 2041 the doubles' step is
-- 2 ticks (0.5 µs) and the state stays a whole number. A key is meant to keep one policy; if the
-- policy changes, the state is read under the new one (a stored deficit starts refilling now, a
-- stored instant under refill 0 counts as an empty bucket until it passes) and never as debt.
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
local refill   = ARGV[4]            -- refill rate, >= 0 (tokens per second)
local deadline = ARGV[5]            -- absent, '' or Redis time after which the call must do nothing (µs)
local now      = ARGV[6]            -- absent, '' (use TIME) or a test clock (µs); production never sets it

local TICKS = 4000000               -- ticks per second
local EXACT = 9007199254740992      -- 2^53: whole numbers below it are sent as integer replies

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

if op ~= 'consume' and op ~= 'refund' and op ~= 'peek' then
  return fail('op must be consume, refund or peek, got ' .. string.format('%q', tostring(op)))
end
local err
capacity, err = number('capacity', capacity, true)
if not capacity then return fail(err) end
refill, err = number('refillPerSecond', refill, false)
if not refill then return fail(err) end
if refill > 0 and capacity / refill > 1e9 then
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

-- The bucket before the operation as \`base\`: the instant it is full again (refill > 0, ticks), or
-- the missing tokens (refill = 0). Either is clamped to an empty bucket: only a policy change can
-- leave more, and a bucket never holds debt.
local stored = tonumber(redis.call('GET', key) or '0') or 0
local base, deficit
if refill > 0 then
  if stored < 0 then base = round(tick + (-stored) * TICKS / refill) else base = math.max(stored, tick) end
  if base - tick > capacity * TICKS / refill then base = round(tick + capacity * TICKS / refill) end
  deficit = (base - tick) * refill / TICKS
else
  base = 0
  if stored < 0 then base = -stored elseif stored > tick then base = capacity end
  if base > capacity then base = capacity end
  deficit = base
end

-- \`after\` is the state after the operation, in the same unit as \`base\`.
local function reply(status, after)
  if refill > 0 then return { status, out(after - tick), out(now) } end
  return { status, out(after), out(now) }
end

-- Writes the state: a full bucket is no key at all; a refilling one expires when full.
local function store(after)
  if refill > 0 then
    if after <= tick then
      redis.call('DEL', key)
    else
      redis.call('SET', key, string.format('%d', after), 'PXAT', string.format('%d', math.ceil(after / 4000)))
    end
  elseif after <= 0 then
    redis.call('DEL', key)
  else
    redis.call('SET', key, fmt(-after))
  end
end

if op == 'peek' then
  return reply('ok', base)
end

if op == 'refund' then
  if amount == 0 or deficit == 0 then return reply('ok', base) end
  local after
  if refill > 0 then after = math.max(tick, round(base - amount * TICKS / refill)) else after = math.max(0, base - amount) end
  store(after)
  return reply('ok', after)
end

-- consume: take \`amount\` tokens if they exist, otherwise write nothing.
if amount > capacity then
  return reply('never', base)
end
if capacity - deficit < amount then
  return reply('denied', base)
end
if amount == 0 then return reply('ok', base) end
local after
if refill > 0 then after = round(base + amount * TICKS / refill) else after = base + amount end
store(after)
return reply('ok', after)
`;
