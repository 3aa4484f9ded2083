-- A C project in a scratch directory, against the real `reductio serve` (REDUCTIO_BIN):
-- `.h` buffers (filetype `cpp` in stock Neovim) of a C project get reductio, those of a C++
-- project do not; the workspace check's $/progress shows in the statusline example of
-- :help reductio-statusline (stock vim.lsp.status()); the server's log lines are filed at their
-- own level in lsp.log (no INFO line as [ERROR]).
local T = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/harness.lua')
local BIN = assert(os.getenv('REDUCTIO_BIN'), 'REDUCTIO_BIN is not set')
vim.g.reductio_path = BIN
local reductio = require('reductio')
local TIMEOUT = 30000

-- The log as of now: only what this spec adds is looked at.
vim.lsp.log.set_level(vim.log.levels.INFO)
local LOG = vim.lsp.log.get_filename()
local log_start = (vim.uv.fs_stat(LOG) or { size = 0 }).size

local function write(path, lines)
  vim.fn.mkdir(vim.fs.dirname(path), 'p')
  vim.fn.writefile(lines, path)
end

-- proj/: a C project (a `.git` directory is its root marker): sources in src/, the header in
-- include/ (no sources beside it, nor at the root: the root's subdirectories decide). The
-- header holds a leaking function (the fixture), so it gets a diagnostic of its own.
-- cxx/: a C++ project, whose header reductio leaves alone.
local TMP = vim.fs.normalize(vim.fn.tempname())
local PROJ = TMP .. '/proj'
local HEADER = PROJ .. '/include/leak.h'
local LEAK_LINE = T.line_of(T.fixtures .. '/error-path-leak.c', 'return -1;                              // expect: leak copy')
vim.fn.mkdir(PROJ .. '/.git', 'p')
local sources = vim.fn.glob(T.fixtures .. '/*-ok.c', false, true)
table.sort(sources)
T.ok(#sources >= 12, 'enough fixtures for a check with progress')
for i = 1, 12 do
  write(PROJ .. '/src/' .. vim.fs.basename(sources[i]), vim.fn.readfile(sources[i]))
end
write(HEADER, vim.fn.readfile(T.fixtures .. '/error-path-leak.c'))
vim.fn.mkdir(TMP .. '/cxx/.git', 'p')
write(TMP .. '/cxx/list.cpp', { '#include "list.h"', 'int main() { return 0; }' })
write(TMP .. '/cxx/list.h', { 'struct list { struct list *next; };' })

-- The statusline example of :help reductio-statusline, run as written there.
local function help_example(tag)
  local lines = vim.fn.readfile(T.repo .. '/editors/nvim/doc/reductio.txt')
  local at
  for i, l in ipairs(lines) do
    if l:find('*' .. tag .. '*', 1, true) then
      at = i
      break
    end
  end
  T.ok(at, 'the tag ' .. tag)
  local code, inside = {}, false
  for i = at, #lines do
    local l = lines[i]
    if inside then
      if l:match('^<') or l:match('^%S') then
        break
      end
      code[#code + 1] = l:gsub('^    ', '')
    elseif l:match('>lua$') then
      inside = true
    end
  end
  T.ok(#code > 0, 'a >lua block after ' .. tag)
  return table.concat(code, '\n')
end

-- What vim.lsp.status() gave the statusline: the example redraws it on each LspProgress (a
-- headless Neovim evaluates the statusline too), and vim.lsp.status() consumes what it shows.
local shown = {}
local ended = {} -- titles of the progress that ended
local stock_status = vim.lsp.status
vim.lsp.status = function()
  local s = stock_status()
  if s ~= '' then
    shown[#shown + 1] = s
  end
  return s
end
assert(loadstring(help_example('reductio-statusline')))()
vim.api.nvim_create_autocmd('LspProgress', {
  callback = function(ev)
    local client = vim.lsp.get_client_by_id(ev.data.client_id)
    local value = ev.data.params.value
    if client and client.name == 'reductio' and type(value) == 'table' and value.kind == 'end' then
      ended[#ended + 1] = value.title
    end
  end,
})

T.test('a .h of a C project (filetype cpp) gets reductio and its leak diagnostic', function()
  vim.cmd.edit(vim.fn.fnameescape(HEADER))
  T.eq(vim.bo.filetype, 'cpp', "Neovim's filetype for .h")
  T.eq(reductio.header_language(0), 'c')
  local client
  T.wait(TIMEOUT, function()
    client = reductio.client()
    return client ~= nil and client.initialized
  end, 'reductio to attach to include/leak.h')
  T.eq(client.root_dir, PROJ)
  T.wait(TIMEOUT, function()
    return #vim.diagnostic.get(0, { namespace = vim.lsp.diagnostic.get_namespace(client.id) }) > 0
  end, 'the leak diagnostic in the header')
  local d = vim.diagnostic.get(0)[1]
  T.eq(d.source, 'reductio')
  T.eq(d.lnum + 1, LEAK_LINE)
  T.match(d.message, '`copy`')
  T.match(reductio.statusline(), '⚠ 1 leak')
  vim.cmd('doautocmd MenuPopup')
  T.eq(vim.fn.menu_info('PopUp.Prove\\ no\\ leak\\ here').rhs, '<Cmd>ReductioProve<CR>', 'the menu in a C header')
end)

T.test('the workspace check reports $/progress, shown by vim.lsp.status() in the statusline', function()
  T.wait(TIMEOUT, function()
    return vim.list_contains(ended, 'reductio: checking')
  end, 'the end of the "reductio: checking" progress; seen: ' .. vim.inspect(shown))
  T.ok(vim.iter(shown):any(function(s)
    return s:find('^ *%d+%%: reductio: checking: %d+/%d+ files$') ~= nil
  end), 'a statusline with the check in progress:\n' .. table.concat(shown, '\n'))
  T.ok(vim.iter(shown):any(function(s)
    return s:find('reductio: checking: %d+ files checked') ~= nil
  end), 'a statusline with the end of the check:\n' .. table.concat(shown, '\n'))
  -- The whole statusline, as the example renders it, once the buffer has its leak.
  -- The buffer's counts come from reductio/fileSummary (asked when its diagnostics changed).
  T.wait(TIMEOUT, function()
    return reductio.statusline():find('^✓ %d+ proved · ⚠ 1 leak') ~= nil
  end, 'the counts in the statusline (it shows ' .. reductio.statusline() .. ')')
  T.match(vim.api.nvim_eval_statusline(vim.o.statusline, {}).str, 'leak%.h +✓ %d+ proved · ⚠ 1 leak.- +%d+,%d+')
end)

T.test('the server log is filed at its level: INFO lines as [INFO], no [ERROR]', function()
  local client = reductio.client()
  T.eq(client.config.cmd_env.REDUCTIO_LOG, vim.env.REDUCTIO_LOG or 'error')
  local text
  T.wait(TIMEOUT, function()
    local f = io.open(LOG, 'r')
    if not f then
      return false
    end
    f:seek('set', log_start)
    text = f:read('*a')
    f:close()
    return text:find('indexed %d+ C files') ~= nil
  end, 'the "indexed" log message in ' .. LOG)
  local indexed = text:match('[^\n]*indexed %d+ C files[^\n]*')
  T.match(indexed, '^%[INFO%]', 'window/logMessage INFO filed as INFO')
  for line in text:gmatch('[^\n]+') do
    T.ok(not line:find('^%[ERROR%]'), 'an [ERROR] line in lsp.log: ' .. line)
  end
end)

-- issue 21: a file changed outside the editor (a `git checkout`) re-publishes its diagnostics
-- once Neovim reloads the buffer (`:checktime`, as 'autoread' does on focus), without a save.
T.test('a file changed on disk re-publishes within a second of the reload', function()
  local file = PROJ .. '/src/disk.c'
  write(file, vim.fn.readfile(T.fixtures .. '/error-path-leak.c'))
  local opened = vim.uv.hrtime()
  vim.cmd.edit(vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local function leaks()
    return #vim.tbl_filter(function(d)
      return d.source == 'reductio'
    end, vim.diagnostic.get(buf))
  end
  T.wait(TIMEOUT, function()
    return leaks() == 1
  end, 'the leak in src/disk.c')
  T.out(('# open -> diagnostics: %.0f ms'):format((vim.uv.hrtime() - opened) / 1e6))
  vim.o.autoread = true
  write(file, vim.fn.readfile(T.fixtures .. '/error-path-ok.c'))
  local changed = vim.uv.hrtime()
  vim.cmd('checktime')
  T.wait(5000, function()
    return leaks() == 0
  end, 'the diagnostics of the reloaded buffer')
  local ms = (vim.uv.hrtime() - changed) / 1e6
  T.out(('# disk change -> diagnostics: %.0f ms'):format(ms))
  T.ok(ms < 1000, ('re-published after %.0f ms'):format(ms))
  T.eq(vim.bo[buf].modified, false, 'reloaded, not edited')
end)

T.test('a .h of a C++ project, and C++ sources, do not get reductio', function()
  vim.cmd.edit(vim.fn.fnameescape(TMP .. '/cxx/list.h'))
  T.eq(vim.bo.filetype, 'cpp')
  T.eq(reductio.header_language(0), 'cpp')
  vim.cmd.edit(vim.fn.fnameescape(TMP .. '/cxx/list.cpp'))
  vim.wait(300)
  for _, f in ipairs({ 'list.h', 'list.cpp' }) do
    local buf = vim.fn.bufnr(TMP .. '/cxx/' .. f)
    T.eq(#vim.lsp.get_clients({ bufnr = buf, name = 'reductio' }), 0, 'no reductio in cxx/' .. f)
  end
  vim.cmd('doautocmd MenuPopup')
  T.eq(vim.fn.menu_info('PopUp.Prove\\ no\\ leak\\ here'), vim.empty_dict(), 'no menu in C++')
end)

T.test('header_language: g:reductio_c_headers, reductio.toml, a header beside .c files', function()
  local buf = vim.fn.bufadd(TMP .. '/cxx/list.h')
  vim.g.reductio_c_headers = true
  T.eq(reductio.header_language(buf), 'c')
  vim.g.reductio_c_headers = false
  T.eq(reductio.header_language(vim.fn.bufadd(HEADER)), 'cpp')
  vim.g.reductio_c_headers = nil
  write(TMP .. '/toml/reductio.toml', {})
  write(TMP .. '/toml/x.cpp', {})
  T.eq(reductio.header_language(vim.fn.bufadd(TMP .. '/toml/x.h')), 'c', 'reductio.toml: a C project')
  write(TMP .. '/lone/a.c', {})
  T.eq(reductio.header_language(vim.fn.bufadd(TMP .. '/lone/a.h')), 'c', 'no root: the .c beside it')
  T.eq(reductio.header_language(vim.fn.bufadd(TMP .. '/lone/a.c')), nil, 'not a header')
end)

T.test('the server stops cleanly', function()
  local client = vim.lsp.get_clients({ name = 'reductio' })[1]
  T.ok(client, 'a client')
  client:stop()
  T.wait(5000, function()
    return client:is_stopped()
  end, 'the server to stop')
  vim.fn.delete(TMP, 'rf')
end)

T.run()
