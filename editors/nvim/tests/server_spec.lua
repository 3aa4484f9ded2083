-- Against the real `reductio serve` (REDUCTIO_BIN): diagnostics with their trace,
-- :ReductioProve on a leaking and on a safe line, :ReductioTrace into the quickfix list, and
-- :checkhealth with the server running.
local T = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/harness.lua')
local BIN = assert(os.getenv('REDUCTIO_BIN'), 'REDUCTIO_BIN is not set')
vim.g.reductio_path = BIN
local reductio = require('reductio')

local LEAK = T.fixtures .. '/error-path-leak.c'
local OK = T.fixtures .. '/error-path-ok.c'
local LEAK_LINE = T.line_of(LEAK, 'return -1;                              // expect: leak copy')
local OK_LINE = T.line_of(OK, 'return sum;')
local TIMEOUT = 20000

--- Opens `file`, waits until reductio is attached and initialized; returns the client.
local function open(file)
  vim.cmd.edit(vim.fn.fnameescape(file))
  local client
  T.wait(TIMEOUT, function()
    client = reductio.client()
    return client ~= nil and client.initialized
  end, 'reductio to attach to ' .. vim.fs.basename(file) .. ' (server stderr is in the LSP log)')
  return client
end

local function reductio_diagnostics(bufnr)
  return vim.tbl_filter(function(d)
    return d.source == 'reductio'
  end, vim.diagnostic.get(bufnr or 0))
end

--- Runs :ReductioProve at `line`:`col` (1-based) and waits for the answer.
local function prove_at(line, col)
  vim.api.nvim_win_set_cursor(0, { line, col - 1 })
  local before = reductio.last
  T.notes = {}
  vim.cmd('ReductioProve')
  T.wait(TIMEOUT, function()
    return reductio.last ~= before
  end, 'the reductio/prove answer')
  return T.notes[#T.notes], reductio.last.verdicts
end

T.test('the leaking fixture gets a diagnostic whose related information is the trace', function()
  -- Cold: this first C buffer makes the plugin start the server.
  local t0 = vim.uv.hrtime()
  local client = open(LEAK)
  T.eq(client.name, 'reductio')
  T.eq(client.config.cmd, { BIN, 'serve' })
  T.wait(TIMEOUT, function()
    return #reductio_diagnostics() > 0
  end, 'leak diagnostics')
  local ms = (vim.uv.hrtime() - t0) / 1e6
  T.out(('# latency first diagnostics after :edit (the plugin starts the server): %.0f ms'):format(ms))
  T.ok(ms < 2000, ('first diagnostics after %.0f ms'):format(ms))
  local diags = reductio_diagnostics()
  T.eq(#diags, 1, 'one leak')
  local d = diags[1]
  T.eq(d.lnum + 1, LEAK_LINE)
  T.eq(d.code, 'return-local')
  T.eq(d.severity == vim.diagnostic.severity.WARN or d.severity == vim.diagnostic.severity.ERROR, true, 'warning or error')
  T.match(d.message, '^`copy` leaks: allocated at line 21, last reference lost here$')
  local related = d.user_data.lsp.relatedInformation
  T.eq(vim.tbl_map(function(r)
    return r.location.range.start.line + 1
  end, related), { 21, 22, 24, 25 })
  T.match(related[1].message, 'allocated')
end)

T.test(':ReductioProve on the leaking line answers "Leak" as a warning, with a float', function()
  local note, verdicts = prove_at(LEAK_LINE, 9)
  T.match(reductio.last.summary.text, '^`copy` leaks: allocated at line 21, last reference lost here%.')
  -- With the float open the message is that text, cut to one line of the command line.
  T.match(note.msg, '^reductio: `copy` leaks: allocated at ')
  T.ok(vim.fn.strdisplaywidth(note.msg) <= vim.v.echospace, 'one line: ' .. note.msg)
  T.eq(note.level, vim.log.levels.WARN)
  T.ok(vim.iter(verdicts):any(function(v)
    return v.verdict == 'leak' and v.variable == 'copy'
  end), 'a leak verdict for copy')
  local float
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then
      float = w
    end
  end
  T.ok(float, 'a floating window')
  local text = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false), '\n')
  T.match(text, '^`copy` leaks: allocated at line 21, last reference lost here%.')
  T.match(text, 'leak: `copy` %(return%-local%)')
  T.match(text, '1%. .*error%-path%-leak%.c:21:%d+  allocated')
  vim.api.nvim_win_close(float, true)
end)

T.test(':ReductioTrace fills the quickfix list with the trace steps in order', function()
  vim.api.nvim_win_set_cursor(0, { LEAK_LINE, 8 })
  reductio.last = nil -- from the diagnostic, not from the last prove
  vim.cmd('ReductioTrace')
  local qf = vim.fn.getqflist({ title = 1, items = 1 })
  T.match(qf.title, '^reductio trace: `copy` leaks: allocated at line 21, last reference lost here$')
  T.eq(vim.tbl_map(function(i)
    return { vim.api.nvim_buf_get_name(i.bufnr), i.lnum }
  end, qf.items), { { LEAK, 21 }, { LEAK, 22 }, { LEAK, 24 }, { LEAK, 25 } })
  T.match(qf.items[1].text, 'allocated')
  T.match(qf.items[4].text, '`copy` goes out of scope')
  T.eq(qf.items[4].type, 'W')
  T.eq(vim.fn.getqflist({ winid = 1 }).winid ~= 0, true, 'the quickfix window is open')
  T.eq(vim.api.nvim_buf_get_name(0), LEAK, 'the cursor stays in the source')
  vim.cmd('cclose')
end)

T.test('the code action "Prove no leak here" answers like :ReductioProve', function()
  vim.api.nvim_win_set_cursor(0, { LEAK_LINE, 8 })
  local before = reductio.last
  T.notes = {}
  vim.lsp.buf.code_action({
    filter = function(a)
      return a.title == 'Prove no leak here'
    end,
    apply = true,
  })
  T.wait(TIMEOUT, function()
    return reductio.last ~= before
  end, 'the code action to run')
  T.match(T.notes[#T.notes].msg, '^reductio: `copy` leaks: allocated at')
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then
      vim.api.nvim_win_close(w, true)
    end
  end
end)

T.test('the code action "Show leak trace of `copy`" fills the quickfix list', function()
  vim.fn.setqflist({}, 'r', { title = 'before', items = {} })
  vim.lsp.buf.code_action({
    filter = function(a)
      return a.title == 'Show leak trace of `copy`'
    end,
    apply = true,
  })
  T.wait(TIMEOUT, function()
    return vim.fn.getqflist({ title = 1 }).title ~= 'before'
  end, 'the trace')
  T.eq(vim.tbl_map(function(i)
    return i.lnum
  end, vim.fn.getqflist()), { 21, 22, 24, 25 })
  vim.cmd('cclose')
end)

T.test(':ReductioProve on the safe line says where `copy` is freed, and no leak', function()
  open(OK)
  reductio.setup({ float = false }) -- the whole answer in the message
  local note, verdicts = prove_at(OK_LINE, 5)
  reductio.setup({ float = true })
  T.match(note.msg, '`copy` proved leak%-free %(line ' .. (OK_LINE - 1) .. ': `free%(copy%)` frees it%)')
  T.ok(not note.msg:find('Leak:'), 'not a leak: ' .. note.msg)
  T.ok(not vim.iter(verdicts):any(function(v)
    return v.verdict == 'leak'
  end), 'no leak verdict')
  T.eq(#reductio_diagnostics(), 0, 'no diagnostics in the fixed twin')
end)

T.test(':ReductioTrace on a proof lists where it was contradicted', function()
  vim.cmd('ReductioTrace')
  local qf = vim.fn.getqflist({ title = 1, items = 1 })
  T.eq(qf.title, 'reductio: where `copy` is contradicted')
  T.eq(qf.items[1].lnum, OK_LINE - 1)
  vim.cmd('cclose')
end)

T.test(':ReductioProve where there is no probe or assignment says so', function()
  local note = prove_at(1, 1)
  T.match(note.msg, '^reductio: No leak probe or assignment here')
end)

T.test(':ReductioProve at the allocation: the memory assigned there leaks at line 25', function()
  open(LEAK)
  local alloc = T.line_of(LEAK, 'copy = malloc(sizeof pkt->body);')
  local note = prove_at(alloc, 5)
  local last = reductio.last
  T.eq(last.summary.outcome, 'leak')
  T.match(last.summary.text, '^The value overwritten here: No leak here: `copy` proved leak%-free')
  T.match(last.summary.text, 'The memory assigned here: `copy` %(line 21%) leaks at line 25%.$')
  T.eq(note.level, vim.log.levels.WARN)
  T.eq(last.assigned[1].summary, 'leaks at line 25')
  local float
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then
      float = w
    end
  end
  T.ok(float, 'a floating window')
  local text = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false), '\n')
  T.match(text, '\nThe value overwritten here:\nproved: `copy` %(allocation%)')
  T.match(text, '\nThe memory assigned here:\nmemory assigned to `copy` at .*error%-path%-leak%.c:21:5: leaks at line 25\n')
  T.match(text, '\n  leak: .*error%-path%-leak%.c:25:9  `copy` goes out of scope: leaks\n    1%. .*:21:5  allocated')
  T.match(text, '\n  freed: .*error%-path%-leak%.c:30:5  freed')
  vim.api.nvim_win_close(float, true)
end)

T.test('the hover at the allocation names the leak at line 25 and the free at 30, no absolute path', function()
  open(LEAK)
  local alloc = T.line_of(LEAK, 'copy = malloc(sizeof pkt->body);')
  local client = reductio.client()
  local res = client:request_sync('textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(0) },
    position = { line = alloc - 1, character = 4 },
  }, TIMEOUT, 0)
  T.ok(res and not res.err and res.result, 'a hover: ' .. vim.inspect(res))
  local text = res.result.contents.value
  T.match(text, '%*%*The value overwritten here:%*%*')
  T.match(text, '%*%*The memory assigned here:%*%*\n`copy` %(line 21%): leaks at line 25\n')
  T.match(text, '\n%- line 25: `copy` goes out of scope: leaks\n')
  T.match(text, '\n%- line 30: freed %(`free%(copy%)`%)')
  T.ok(not text:find(T.fixtures, 1, true), 'an absolute path in the hover: ' .. text)
end)

T.test(':ReductioProve at a proved allocation lists where its block is freed', function()
  open(OK)
  local alloc = T.line_of(OK, 'copy = malloc(sizeof pkt->body);')
  prove_at(alloc, 5)
  local a = reductio.last.assigned[1]
  T.ok(a, 'the memory assigned here: ' .. vim.inspect(reductio.last))
  T.match(a.summary, '^never leaks: freed at lines 24, 31')
  T.match(reductio.last.summary.text, 'The memory assigned here: `copy` %(line 20%) never leaks: freed at lines 24, 31')
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then
      vim.api.nvim_win_close(w, true)
    end
  end
end)

--- The statusline text `reductio check FILE --all` gives for `file`: its summary's counts.
local function cli_counts(file)
  local out = vim.system({ BIN, 'check', '--all', '--format', 'json', file }):wait()
  T.ok(out.code == 0 or out.code == 1, 'check ran: ' .. (out.stderr or ''))
  local s = vim.json.decode(out.stdout).summary
  return { proved = s.proved, leaks = s.leaks, unproved = s.unproved }
end

T.test('the statusline shows the counts of `check FILE --all`, from reductio/fileSummary', function()
  -- A copy, since the test edits and saves it.
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  local file = dir .. '/leak.c'
  vim.fn.writefile(vim.fn.readfile(LEAK), file)
  local want = cli_counts(file)
  T.ok(want.proved > 0 and want.leaks == 1, vim.inspect(want))
  local text = require('reductio.format').counts(want)
  T.eq(text, ('✓ %d proved · ⚠ 1 leak'):format(want.proved))
  local client = open(file)
  T.wait(TIMEOUT, function()
    return reductio.statusline() == text
  end, 'the statusline ' .. text .. ' (it shows ' .. reductio.statusline() .. ')')
  T.eq(require('reductio.summary').counts[vim.api.nvim_get_current_buf()], want)
  -- Suppress the leak: its diagnostic goes, the counts are asked again and stay every probe's
  -- verdict, the suppressed leak included, as `check --all` counts them.
  local asked = 0
  local request = client.request
  client.request = function(self, method, ...)
    if method == 'reductio/fileSummary' then
      asked = asked + 1
    end
    return request(self, method, ...)
  end
  vim.api.nvim_buf_set_lines(0, LEAK_LINE - 1, LEAK_LINE - 1, false, { '        // reductio-ignore: leak -- test' })
  vim.cmd('silent write')
  T.wait(TIMEOUT, function()
    return #reductio_diagnostics() == 0 and asked > 0
  end, 'the leak diagnostic gone and the counts asked again')
  client.request = request
  T.eq(cli_counts(file), want)
  T.wait(TIMEOUT, function()
    return reductio.statusline() == text
  end, 'the same counts (it shows ' .. reductio.statusline() .. ')')
  -- The copy had a server of its own (its directory is its root): stop it, back to the fixture.
  vim.cmd('bwipeout!')
  client:stop()
  T.wait(5000, function()
    return client:is_stopped()
  end, 'the copy\'s server to stop')
  vim.fn.delete(dir, 'rf')
  open(LEAK)
end)

T.test(':checkhealth reductio shows the running server', function()
  vim.cmd('checkhealth reductio')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  T.match(text, 'OK found ' .. vim.pesc(BIN))
  T.match(text, 'OK running: client %d+')
  T.ok(not text:find('ERROR'), text)
  vim.cmd('bwipeout!')
end)

T.test('the server stops cleanly', function()
  local client = vim.lsp.get_clients({ name = 'reductio' })[1]
  T.ok(client, 'a client')
  client:stop()
  T.wait(5000, function()
    return client:is_stopped()
  end, 'the server to stop')
end)

T.run()
