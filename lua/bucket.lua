-- Multi-token bucket: consume, refund or peek one bucket atomically.
--
-- State: one number per key.
--   value > 0  the instant (µs, Redis time) at which the bucket is full again ("full_at");
--              the key expires at that instant (PXAT), so an idle bucket costs no memory.
--   value < 0  refillPerSecond = 0 only: minus the missing tokens; no TTL (the bucket never refills).
--   no key     a full bucket.
-- tokens(now) = capacity - max(0, full_at - now) * refill / 1e6, so refill fractions are never
-- lost: the state is a time, not a rounded token count. A key is meant to keep one policy; if the
-- policy changes, the state is read under the new one (a stored deficit starts refilling now, a
-- stored instant under refill 0 counts as an empty bucket until it passes) and never as debt.
--
-- Replies (flat array of strings; numbers formatted with %.17g so they parse back exactly):
--   { status, remaining, retry, reset, now }
--   status     'ok' | 'denied' | 'never' (cost > capacity: nothing written) | 'expired'
--   remaining  tokens left after the operation (tokens)
--   retry      µs until `cost` tokens exist; '0' when allowed; '-1' when never
--   reset      µs until the bucket is full again; '-1' when never (refill 0)
--   now        the Redis time the script used (µs)
--   'expired' (now > deadline) carries only { 'expired', now } and writes nothing.
local key      = KEYS[1]            -- bucket key, already prefixed
local op       = ARGV[1]            -- 'consume' | 'refund' | 'peek'
local amount   = ARGV[2]            -- consume: cost, refund: tokens to give back, peek: ignored (tokens)
local capacity = ARGV[3]            -- maximum tokens, > 0 (tokens)
local refill   = ARGV[4]            -- refill rate, >= 0 (tokens per second)
local deadline = ARGV[5]            -- '' or Redis time after which the call must do nothing (µs)
local now      = ARGV[6]            -- '' (use TIME) or a test clock (µs); production never sets it

local function fail(message)
  return redis.error_reply('ERR graphql-budget bucket: ' .. message)
end

-- A finite number >= 0 (or > 0 when `positive`), or nil and an error message.
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
  if now > deadline then return { 'expired', fmt(now) } end
end

-- The bucket before the operation as `base`: the instant it is full again (refill > 0, µs), or
-- the missing tokens (refill = 0). Either is clamped to an empty bucket: only a policy change can
-- leave more, and a bucket never holds debt.
local stored = tonumber(redis.call('GET', key) or '0') or 0
local base, deficit
if refill > 0 then
  if stored < 0 then base = now + (-stored) * 1000000 / refill else base = math.max(stored, now) end
  if base - now > capacity * 1000000 / refill then base = now + capacity * 1000000 / refill end
  deficit = (base - now) * refill / 1000000
else
  base = 0
  if stored < 0 then base = -stored elseif stored > now then base = capacity end
  if base > capacity then base = capacity end
  deficit = base
end

-- `after` is the state after the operation, in the same unit as `base`.
local function reply(status, after, retry)
  local missing, reset = after, -1
  if refill > 0 then
    missing = (after - now) * refill / 1000000
    reset = after - now
  elseif after <= 0 then
    reset = 0
  end
  return { status, fmt(capacity - missing), fmt(retry), fmt(reset), fmt(now) }
end

-- Writes the state: a full bucket is no key at all; a refilling one expires when full.
local function store(after)
  if refill > 0 then
    if after <= now then
      redis.call('DEL', key)
    else
      redis.call('SET', key, fmt(after), 'PXAT', string.format('%.0f', math.ceil(after / 1000)))
    end
  elseif after <= 0 then
    redis.call('DEL', key)
  else
    redis.call('SET', key, fmt(-after))
  end
end

if op == 'peek' then
  return reply('ok', base, 0)
end

if op == 'refund' then
  if amount == 0 or deficit == 0 then return reply('ok', base, 0) end
  local after
  if refill > 0 then after = math.max(now, base - amount * 1000000 / refill) else after = math.max(0, base - amount) end
  store(after)
  return reply('ok', after, 0)
end

-- consume: take `amount` tokens if they exist, otherwise write nothing.
if amount > capacity then
  return reply('never', base, -1)
end
if capacity - deficit < amount then
  local retry = -1
  if refill > 0 then retry = (base - now) + (amount - capacity) * 1000000 / refill end
  return reply('denied', base, retry)
end
if amount == 0 then return reply('ok', base, 0) end
local after
if refill > 0 then after = base + amount * 1000000 / refill else after = base + amount end
store(after)
return reply('ok', after, 0)
