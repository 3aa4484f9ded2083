-- Editor latency through headless Neovim (run by bench/editor-latency.sh; `nvim --headless
-- --clean --cmd "set rtp^=editors/nvim" -l bench/nvim-latency.lua`), with the reductio plugin
-- and the real `reductio serve` (REDUCTIO_BIN):
--   1. first diagnostics: from `:edit FIXTURE` (the plugin starts the server) to the leak
--      diagnostic in the buffer, cold (REDUCTIO_FIXTURE, a file with one leak);
--   2. saves: FILE (REDUCTIO_FILE, in a scratch copy of its project) is opened, the workspace
--      check is let finish, then REDUCTIO_SAVES times a leaking line
--      `char *reductio_nvim = malloc(1);` is inserted 9 lines into the first function at or
--      after the middle of the file (or REDUCTIO_FUNCTION; REDUCTIO_LINE: at or after that
--      line instead), then removed, each followed by
--      `:write`, timed from `:write` to the first publishDiagnostics of that buffer version,
--      and to the last one (once none has come for a second: the complete diagnostics).
-- Prints `# latency ...` lines; exits 1 if a diagnostic never comes.
local BIN = assert(os.getenv('REDUCTIO_BIN'), 'REDUCTIO_BIN is not set')
vim.g.reductio_path = BIN
local reductio = require('reductio')

local function out(s)
  io.stdout:write(s .. '\n')
end
local function fail(msg)
  out('FAIL: ' .. msg)
  vim.cmd('cquit 1')
end
local function pct(xs, p)
  local v = vim.deepcopy(xs)
  table.sort(v)
  return v[math.max(1, math.min(#v, math.ceil(p / 100 * #v)))]
end
local function leaks(buf)
  return #vim.tbl_filter(function(d)
    return d.source == 'reductio'
  end, vim.diagnostic.get(buf))
end

-- When each version of each buffer got its diagnostics: the first publish of that version,
-- and the last (the server may publish a saved file twice: the edited functions' leaks first,
-- then the file's complete diagnostics when they differ).
local published, last_published = {}, {}
local orig = vim.lsp.handlers['textDocument/publishDiagnostics']
vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, params, ctx, cfg)
  if params and params.version then
    local key = params.uri .. '#' .. params.version
    published[key] = published[key] or vim.uv.hrtime()
    last_published[key] = vim.uv.hrtime()
  end
  return orig(err, params, ctx, cfg)
end

-- 1. First diagnostics of a fixture, cold.
local fixture = os.getenv('REDUCTIO_FIXTURE')
if fixture then
  local t0 = vim.uv.hrtime()
  vim.cmd.edit(vim.fn.fnameescape(fixture))
  local buf = vim.api.nvim_get_current_buf()
  if not vim.wait(20000, function()
    return leaks(buf) > 0
  end, 1) then
    fail('no diagnostics for ' .. fixture)
  end
  out(('# latency first diagnostics after :edit %s (plugin starts the server): %.0f ms'):format(
    vim.fs.basename(fixture), (vim.uv.hrtime() - t0) / 1e6))
end

-- 2. Saves of a real file.
local file = os.getenv('REDUCTIO_FILE')
if file then
  vim.cmd.edit(vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local client
  if not vim.wait(20000, function()
    client = reductio.client(buf)
    return client ~= nil and client.initialized
  end, 20) then
    fail('reductio did not attach to ' .. file)
  end
  -- Let the workspace check end: the servers' CPU time stops growing for 2 s. The servers are
  -- Neovim's child processes (the client object does not expose its pid).
  local function cpu()
    local sum = 0
    for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid()) or {}) do
      local f = io.open('/proc/' .. pid .. '/stat')
      if f then
        local st = f:read('*a')
        f:close()
        local fields = vim.split(st:sub(st:find(')', 1, true) + 2), ' ')
        sum = sum + tonumber(fields[12]) + tonumber(fields[13])
      end
    end
    return sum
  end
  local last, since = cpu(), vim.uv.now()
  while vim.uv.now() - since < 2000 do
    vim.wait(250)
    local now = cpu()
    if now ~= last then
      last, since = now, vim.uv.now()
    end
  end
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local name = os.getenv('REDUCTIO_FUNCTION')
  if name == '' then
    name = nil
  end
  local def
  for i, l in ipairs(lines) do
    local is_def = l:match('^[%a_][%w_ \t*]*%(') and not l:match(';%s*$')
      and ((lines[i + 1] or ''):match('^{') or l:match('%)%s*{%s*$'))
    if is_def and (name and l:find(name .. '(', 1, true) or (not name and i >= #lines / 2)) then
      def = i
      break
    end
  end
  if not def then
    fail('no function to edit in ' .. file)
  end
  -- 9 lines into the function, or from REDUCTIO_LINE on (1-based: e.g. past an `#if 0` arm),
  -- the first statement line: the leaking line goes after it.
  local at = tonumber(os.getenv('REDUCTIO_LINE') or '') or def + 9
  while not lines[at]:match('^%s+[%w_(*].*;%s*$') do
    at = at + 1
  end
  local uri = vim.uri_from_bufnr(buf)
  local n = tonumber(os.getenv('REDUCTIO_SAVES') or '20')
  local times, complete = {}, {}
  local base = leaks(buf)
  for k = 1, n + n % 2 do
    if k % 2 == 1 then
      vim.api.nvim_buf_set_lines(buf, at, at, false, { '\tchar *reductio_nvim = malloc(1);' })
    else
      vim.api.nvim_buf_set_lines(buf, at, at + 1, false, {})
    end
    local v = vim.lsp.util.buf_versions[buf]
    local t = vim.uv.hrtime()
    vim.cmd('silent write')
    if not vim.wait(20000, function()
      return published[uri .. '#' .. v] ~= nil
    end, 1) then
      fail('no diagnostics for version ' .. v)
    end
    times[#times + 1] = (published[uri .. '#' .. v] - t) / 1e6
    -- The last publish of this version: none for a second.
    local seen = last_published[uri .. '#' .. v]
    repeat
      vim.wait(1000)
      local again = last_published[uri .. '#' .. v] ~= seen
      seen = last_published[uri .. '#' .. v]
    until not again
    complete[#complete + 1] = (seen - t) / 1e6
    -- The leaking line adds leak diagnostics (one per path that loses the block); removing
    -- it takes them away again.
    if not vim.wait(2000, function()
      return k % 2 == 1 and leaks(buf) > base or k % 2 == 0 and leaks(buf) == base
    end, 1) then
      fail(('save %d: %d leak diagnostics, %d before the first save'):format(k, leaks(buf), base))
    end
  end
  out(('# latency :write -> publishDiagnostics, %s (%d lines, a leaking line at %d added/removed): n=%d p50 %.0f ms, p95 %.0f ms, max %.0f ms'):format(
    vim.fs.basename(file), #lines, at + 1, #times, pct(times, 50), pct(times, 95), pct(times, 100)))
  out(('# latency :write -> last publishDiagnostics of that version (complete): n=%d p50 %.0f ms, p95 %.0f ms, max %.0f ms'):format(
    #complete, pct(complete, 50), pct(complete, 95), pct(complete, 100)))
end
vim.cmd('qa!')
