-- wrk's script for the bench and the soak (bench/wrk.mjs sets the variables):
-- one route's method, headers and body; addresses that vary (BENCH_ADDRESSES:
-- `unique`, a new query string on every request, or `mixed`, a share of those
-- among a set of popular addresses); or a mix of requests that each
-- connection cycles through (BENCH_MIX_COUNT, the soak's), a pause before each
-- request (BENCH_DELAY_MS, for a moderate rate), the responses counted by
-- status, a stop after BENCH_STOP_AFTER responses. It ends with one line of
-- JSON that bench/wrk.mjs reads, its own CPU time included.
local path = os.getenv("BENCH_PATH") or "/"
local addresses = os.getenv("BENCH_ADDRESSES")
local prefix = os.getenv("BENCH_PREFIX") or "wrk"
local popular = tonumber(os.getenv("BENCH_POPULAR") or "1")
local unique_share = tonumber(os.getenv("BENCH_UNIQUE_SHARE") or "0")
local stop_after = tonumber(os.getenv("BENCH_STOP_AFTER") or "0")

local mix_count = tonumber(os.getenv("BENCH_MIX_COUNT") or "0")
local delay_ms = tonumber(os.getenv("BENCH_DELAY_MS") or "0")
local count_statuses = os.getenv("BENCH_COUNT_STATUSES") == "1"

local function headers_of (text)
  local headers = {}
  for name, value in (text or ""):gmatch("([^:\n]+): ([^\n]*)") do headers[name] = value end
  return headers
end

wrk.method = os.getenv("BENCH_METHOD") or "GET"
wrk.path = path
wrk.body = os.getenv("BENCH_BODY")
for name, value in pairs(headers_of(os.getenv("BENCH_HEADERS"))) do wrk.headers[name] = value end

if mix_count > 0 then
  local requests = {}
  local turn = 0
  function init ()
    for index = 1, mix_count do
      local prefix = "BENCH_MIX_" .. index .. "_"
      requests[index] = wrk.format(os.getenv(prefix .. "METHOD"), os.getenv(prefix .. "PATH"), headers_of(os.getenv(prefix .. "HEADERS")), os.getenv(prefix .. "BODY"))
    end
  end
  function request ()
    turn = turn % mix_count + 1
    return requests[turn]
  end
end

if delay_ms > 0 then
  function delay ()
    return delay_ms
  end
end

-- wrk builds its request once unless the script defines request(): only varying addresses pay for Lua per request.
if addresses == "unique" or addresses == "mixed" then
  local count = 0
  local separator = path:find("?", 1, true) and "&" or "?"
  local function unique ()
    count = count + 1
    return path .. separator .. "unique=" .. prefix .. "-" .. count
  end
  local function next_path ()
    if addresses == "unique" or math.random() < unique_share then return unique() end
    return path .. separator .. "popular=" .. math.random(0, popular - 1)
  end
  function request ()
    return wrk.format(nil, next_path())
  end
end

-- Likewise response(): wrk parses every response for Lua only when it is defined.
statuses = {}
if stop_after > 0 or count_statuses then
  local seen = 0
  function response (status)
    statuses[status] = (statuses[status] or 0) + 1
    seen = seen + 1
    if stop_after > 0 and seen >= stop_after then wrk.thread:stop() end
  end
end

-- The threads, for done() to read each one's counts.
local threads = {}
function setup (thread)
  threads[#threads + 1] = thread
end

local function statuses_json ()
  local totals = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses") or {}) do totals[status] = (totals[status] or 0) + count end
  end
  local parts = {}
  for status, count in pairs(totals) do parts[#parts + 1] = string.format("\"%d\":%d", status, count) end
  return "{" .. table.concat(parts, ",") .. "}"
end

-- utime + stime of this process, in clock ticks (fields 14 and 15 of /proc/self/stat).
local function cpu_ticks ()
  local file = io.open("/proc/self/stat")
  if not file then return -1 end
  local stat = file:read("*a")
  file:close()
  local fields = {}
  for field in stat:match("%) (.*)"):gmatch("%S+") do fields[#fields + 1] = field end
  return tonumber(fields[12]) + tonumber(fields[13])
end

function done (summary, latency)
  local errors = summary.errors
  io.write(string.format(
    "\nBENCH_RESULT {\"requests\":%d,\"durationMicros\":%d,\"bytes\":%d,\"errors\":{\"connect\":%d,\"read\":%d,\"write\":%d,\"status\":%d,\"timeout\":%d},\"latencyMicros\":{\"p50\":%d,\"p99\":%d,\"max\":%d},\"cpuTicks\":%d,\"statuses\":%s}\n",
    summary.requests, summary.duration, summary.bytes,
    errors.connect, errors.read, errors.write, errors.status, errors.timeout,
    latency:percentile(50), latency:percentile(99), latency.max, cpu_ticks(), statuses_json()))
end
