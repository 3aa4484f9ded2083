-- Headless Neovim end-to-end test of `reductio serve` (run by tests/nvim/run.sh).
--
-- Opens a C file with a leak, waits for the leak diagnostic, lists the code actions there,
-- runs "Prove no leak here" on a safe assignment and expects `proved`, then applies the quick
-- fix, saves, and expects the diagnostic to go away. Prints one line per step; any failure
-- exits with status 1 (a watchdog exits with 2).

vim.defer_fn(function()
  io.stdout:write('FAIL: timed out\n')
  vim.cmd('cquit 2')
end, 60000)

local bin = os.getenv('REDUCTIO_BIN') or 'reductio'
local safe_line = tonumber(os.getenv('SAFE_LINE') or '')

local function say(...)
  io.stdout:write(table.concat({ ... }, ' ') .. '\n')
end

local function fail(msg)
  io.stdout:write('FAIL: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end

if not safe_line then
  fail('set SAFE_LINE')
end

vim.lsp.config('reductio', {
  cmd = { bin, 'serve' },
  filetypes = { 'c' },
  root_markers = { 'reductio.toml', '.git' },
})
vim.lsp.enable('reductio')

local function wait(what, ms, cond)
  if not vim.wait(ms, cond, 20) then
    fail('waiting for ' .. what)
  end
end

local function request(client, method, params, buf)
  local res, err = client:request_sync(method, params, 10000, buf)
  if not res then
    fail(method .. ': ' .. tostring(err))
  end
  if res.err then
    fail(method .. ': ' .. vim.inspect(res.err))
  end
  return res.result
end

local function code_actions(client, buf, line, col)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = line, character = col }, ['end'] = { line = line, character = col } },
    context = { diagnostics = {} },
  }
  return request(client, 'textDocument/codeAction', params, buf) or {}
end

local function run(client, buf)
  say('attached:', client.name, 'encoding=' .. client.offset_encoding)

  -- 1. The leak diagnostic, published on open.
  wait('diagnostics', 15000, function()
    return #vim.diagnostic.get(buf) > 0
  end)
  local diags = vim.diagnostic.get(buf)
  for _, d in ipairs(diags) do
    local related = d.user_data and d.user_data.lsp and d.user_data.lsp.relatedInformation or {}
    say(string.format('diagnostic %d:%d [%s %s] %s | first step: %s', d.lnum + 1, d.col + 1,
      tostring(d.source), tostring(d.code), d.message, related[1] and related[1].message or '-'))
  end
  local leak = diags[1]
  if leak.source ~= 'reductio' or leak.code ~= 'return-local' then
    fail('unexpected diagnostic ' .. vim.inspect(leak))
  end

  -- 2. Code actions at the leak.
  local actions = code_actions(client, buf, leak.lnum, leak.col)
  local titles, quickfix = {}, nil
  for _, a in ipairs(actions) do
    table.insert(titles, a.title)
    if a.kind == 'quickfix' and a.isPreferred then
      quickfix = a
    end
  end
  say('code actions:', table.concat(titles, ' | '))
  if not quickfix then
    fail('no preferred quick fix')
  end

  -- 3. "Prove no leak here" on a safe assignment.
  local line_text = vim.api.nvim_buf_get_lines(buf, safe_line - 1, safe_line, true)[1]
  local col = #line_text:match('^%s*')
  local prove
  for _, a in ipairs(code_actions(client, buf, safe_line - 1, col)) do
    if a.title == 'Prove no leak here' then
      prove = a
    end
  end
  if not prove then
    fail('no "Prove no leak here" action on line ' .. safe_line)
  end
  local cmd = prove.command
  local result = request(client, 'workspace/executeCommand',
    { command = cmd.command, arguments = cmd.arguments }, buf)
  local v = result.verdicts[1]
  say(string.format('prove line %d: %s `%s` (%s): %s', safe_line, v.verdict, v.variable, v.probe, v.message))
  if v.verdict ~= 'proved' then
    fail('expected proved')
  end

  -- 4. The custom request, and hover, at the leak.
  local r = request(client, 'reductio/prove', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = leak.lnum, character = leak.col },
  }, buf)
  local kinds = {}
  for _, x in ipairs(r.verdicts) do
    table.insert(kinds, x.variable .. '=' .. x.verdict)
  end
  say('reductio/prove at the leak:', table.concat(kinds, ', '))
  local hover = request(client, 'textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = leak.lnum, character = leak.col },
  }, buf)
  say('hover:', hover.contents.value:match('\n\n([^\n]*)') or '?')

  -- 5. Apply the quick fix (incremental edit), save: the diagnostic goes away.
  vim.lsp.util.apply_workspace_edit(quickfix.edit, client.offset_encoding)
  vim.cmd('silent write')
  wait('diagnostics to clear after the fix', 15000, function()
    return #vim.diagnostic.get(buf) == 0
  end)
  say('after quick fix "' .. quickfix.title .. '" and :write, diagnostics:', #vim.diagnostic.get(buf))
  say('OK')
  vim.cmd('qa!')
end

vim.api.nvim_create_autocmd('LspAttach', {
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if client and client.name == 'reductio' then
      vim.schedule(function()
        local ok, err = pcall(run, client, args.buf)
        if not ok then
          fail(tostring(err))
        end
      end)
    end
  end,
})
