--- reductio for Neovim: prove or refute memory leaks in C by contradiction.
--- The language server (`reductio serve`) is configured in lsp/reductio.lua and enabled by
--- plugin/reductio.lua; this module holds the commands. See :help reductio.
local format = require('reductio.format')

local api = vim.api
local M = {}

local NAME = 'reductio'
local PROVE = 'reductio/prove'
local SERVER_CHECK_COMMAND = 'reductio.checkWorkspace'

---@class reductio.Options
---@field float boolean Show the full answer of :ReductioProve in a floating window.
---@field open_quickfix boolean :ReductioTrace and :ReductioCheck open the quickfix window.
---@field trace_in_float boolean|nil Add the trace to diagnostic floats (default: on Neovim 0.11,
---  which does not show LSP related information itself; 0.12 does).
M.options = {
  float = true,
  open_quickfix = true,
  trace_in_float = nil,
}

--- UI options only; the server is configured with vim.lsp.config('reductio', {...}).
---@param opts? reductio.Options
function M.setup(opts)
  M.options = vim.tbl_deep_extend('force', M.options, opts or {})
end

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = NAME })
end

--- The binary to run: `g:reductio_path`, else `reductio` on PATH.
---@return string
function M.binary()
  local p = vim.g.reductio_path
  if type(p) == 'string' and p ~= '' then
    return vim.fn.expand(p)
  end
  return NAME
end

--- Where `reductio serve` writes its log. The server logs to stderr, and Neovim files every
--- stderr line as [ERROR] in lsp.log; what the server reports through `window/logMessage` is
--- filed at its own level. So stderr is kept to errors (and panics) unless $REDUCTIO_LOG says
--- otherwise (`debug`, `trace`: everything, on stderr).
---@return table<string, string>
function M.server_env()
  local level = vim.env.REDUCTIO_LOG
  return { REDUCTIO_LOG = (level and level ~= '') and level or 'error' }
end

--- Files found upwards from a buffer that mark the project root (the first one found wins).
M.root_markers = { 'reductio.toml', 'compile_commands.json', '.git' }

-- Extensions of C++ sources and headers: their presence near a `.h` says it is C++.
local CXX = {}
for _, ext in ipairs({ 'cc', 'cpp', 'cxx', 'c++', 'C', 'cp', 'CPP', 'hpp', 'hh', 'hxx', 'h++', 'ipp', 'tpp', 'cppm', 'ixx' }) do
  CXX[ext] = true
end

--- C and C++ sources directly in `dir` (not recursive, bounded).
local function count_sources(dir)
  local c, cxx = 0, 0
  local ok = pcall(function()
    local n = 0
    for name, type in vim.fs.dir(dir) do
      n = n + 1
      if n > 5000 then
        break
      end
      if type == 'file' or type == 'link' then
        local ext = name:match('%.([^.]+)$')
        if ext == 'c' then
          c = c + 1
        elseif ext and CXX[ext] then
          cxx = cxx + 1
        end
      end
    end
  end)
  if not ok then
    return 0, 0
  end
  return c, cxx
end

local function decide(c, cxx)
  if c == 0 and cxx == 0 then
    return nil
  end
  return c >= cxx and 'c' or 'cpp'
end

--- Per directory: 'c', 'cpp' or false (no sources). Directories are read once per session.
local dir_language_cache = {}

local function dir_language(dir)
  if dir_language_cache[dir] == nil then
    dir_language_cache[dir] = decide(count_sources(dir)) or false
  end
  return dir_language_cache[dir] or nil
end

--- The sources in the root's subdirectories (one level, bounded), as for include/ beside src/.
local root_language_cache = {}

local function root_language(root)
  if root_language_cache[root] == nil then
    local c, cxx, seen = 0, 0, 0
    pcall(function()
      for sub, type in vim.fs.dir(root) do
        if type == 'directory' and not sub:match('^%.') and sub ~= 'node_modules' then
          local a, b = count_sources(vim.fs.joinpath(root, sub))
          c, cxx = c + a, cxx + b
          seen = seen + 1
          if seen >= 64 then
            break
          end
        end
      end
    end)
    root_language_cache[root] = decide(c, cxx) or false
  end
  return root_language_cache[root] or nil
end

--- The language of a `.h` buffer, which Neovim gives the `cpp` filetype unless
--- g:c_syntax_for_h is set: 'c' when g:reductio_c_headers is true, or the project has a
--- reductio.toml, or the nearest directory with sources (the header's own, then its parents up
--- to the project root, then the root's subdirectories, as in include/ beside src/) holds
--- mostly `.c` files; 'cpp' when they are mostly C++; nil for a buffer that is not a `.h` file
--- or when nothing tells.
---@param bufnr integer
---@return 'c'|'cpp'|nil
function M.header_language(bufnr)
  local name = api.nvim_buf_get_name(bufnr)
  if not name:match('%.h$') then
    return nil
  end
  local forced = vim.g.reductio_c_headers
  if forced == true or forced == 1 then
    return 'c'
  elseif forced == false or forced == 0 then
    return 'cpp'
  end
  name = vim.fs.normalize(vim.fn.fnamemodify(name, ':p'))
  local markers = vim.tbl_get(vim.lsp.config, NAME, 'root_markers') or M.root_markers
  local root = vim.fs.root(name, markers)
  if root and vim.uv.fs_stat(vim.fs.joinpath(root, 'reductio.toml')) then
    return 'c'
  end
  local dir = vim.fs.dirname(name)
  -- Without a root: the header's directory and its parent.
  local stop = root or vim.fs.dirname(dir)
  for _ = 1, 16 do
    local lang = dir_language(dir)
    if lang then
      return lang
    end
    local parent = vim.fs.dirname(dir)
    if dir == stop or parent == dir then
      break
    end
    dir = parent
  end
  if root then
    return root_language(root)
  end
  return nil
end

--- Whether reductio is for this buffer: a C buffer, or a `.h` buffer of a C project (see
--- |M.header_language()|).
---@param bufnr? integer
---@return boolean
function M.is_c_buffer(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and api.nvim_get_current_buf() or bufnr
  local ft = vim.bo[bufnr].filetype
  if ft == 'c' then
    return true
  end
  return ft == 'cpp' and M.header_language(bufnr) == 'c'
end

--- `root_dir` of lsp/reductio.lua: attaches to C buffers and to `.h` buffers of C projects
--- (`filetypes` also lists `cpp`, the filetype of `.h`), at the root found by `root_markers`.
---@param bufnr integer
---@param on_dir fun(root_dir?: string)
function M.root_dir(bufnr, on_dir)
  if not M.is_c_buffer(bufnr) then
    return
  end
  local markers = vim.tbl_get(vim.lsp.config, NAME, 'root_markers') or M.root_markers
  on_dir(vim.fs.root(bufnr, markers))
end

--- The configured server command's executable, resolved on PATH.
---@return string|nil path, string name
function M.executable()
  local ok, config = pcall(function()
    return vim.lsp.config[NAME]
  end)
  local cmd = ok and config and config.cmd
  local name = type(cmd) == 'table' and cmd[1] or M.binary()
  local exe = vim.fn.exepath(name)
  return exe ~= '' and exe or nil, name
end

--- The reductio client attached to `bufnr` (default: current buffer).
---@param bufnr? integer
---@return vim.lsp.Client|nil
function M.client(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr or api.nvim_get_current_buf(), name = NAME })[1]
end

local function not_attached(bufnr)
  local exe, name = M.executable()
  local why = exe and 'the server is not attached to this buffer (is it a C file?)'
    or ('`' .. name .. '` was not found on PATH: install it (cargo install --path server) or set g:reductio_path')
  notify(('reductio: %s. See :checkhealth reductio'):format(why), vim.log.levels.ERROR)
  return bufnr
end

--- Verdict files are absolute (server) or relative to the directory `reductio` ran in (CLI).
---@param file string
---@param bases string[]
---@return string
local function resolve_file(file, bases)
  if file:sub(1, 1) == '/' or file:match('^%a:[/\\]') then
    return vim.fs.normalize(file)
  end
  for _, base in ipairs(bases) do
    local p = vim.fs.normalize(vim.fs.joinpath(base, file))
    if vim.uv.fs_stat(p) then
      return p
    end
  end
  return vim.fs.normalize(vim.fs.joinpath(bases[1] or vim.fn.getcwd(), file))
end

local function bases_for(bufnr, client)
  local bases = {}
  if client and client.root_dir then
    bases[#bases + 1] = client.root_dir
  end
  local name = api.nvim_buf_get_name(bufnr)
  if name ~= '' then
    bases[#bases + 1] = vim.fs.dirname(name)
  end
  bases[#bases + 1] = vim.fn.getcwd()
  return bases
end

local function rel(path)
  return vim.fn.fnamemodify(path, ':~:.')
end

--- The last :ReductioProve answer: { bufnr, lnum, verdicts, assigned, summary }.
M.last = nil

local function show_float(lines)
  vim.lsp.util.open_floating_preview(lines, 'text', {
    border = 'rounded',
    focus_id = 'reductio-prove',
    max_width = math.max(60, math.floor(vim.o.columns * 0.8)),
    wrap = true,
  })
end

--- `{textDocument, position}` from the arguments of the server's commands: `[uri, position]`
--- or `[{textDocument, position}]`.
---@param args any[]|nil
---@return { textDocument: { uri: string }, position: { line: integer, character: integer } }|nil
function M.params_from_args(args)
  if type(args) ~= 'table' then
    return nil
  end
  local uri, pos = args[1], args[2]
  if type(uri) == 'table' then
    pos = uri.position
    uri = uri.textDocument and uri.textDocument.uri or uri.uri
  end
  if type(uri) ~= 'string' or type(pos) ~= 'table' or type(pos.line) ~= 'number' or type(pos.character) ~= 'number' then
    return nil
  end
  return { textDocument = { uri = uri }, position = { line = pos.line, character = pos.character } }
end

--- :ReductioProve — run the probes at the cursor (or at `opts.params`) and show the verdicts.
---@param opts? { bufnr?: integer, params?: table, on_result?: fun(verdicts: table[], summary: table) }
function M.prove(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or api.nvim_get_current_buf()
  local client = M.client(bufnr)
  if not client then
    return not_attached(bufnr)
  end
  local win = api.nvim_get_current_win()
  local params = opts.params or vim.lsp.util.make_position_params(win, client.offset_encoding)
  local lnum = params.position.line + 1
  client:request(PROVE, params, function(err, result)
    if err then
      notify('reductio: prove failed: ' .. tostring(err.message or err), vim.log.levels.ERROR)
      return
    end
    local verdicts = type(result) == 'table' and result.verdicts or {}
    if type(verdicts) ~= 'table' or verdicts == vim.NIL then
      verdicts = {}
    end
    -- `assigned` (the memory assigned here) is absent only from a server older than it.
    local assigned = type(result) == 'table' and type(result.assigned) == 'table' and result.assigned or nil
    local summary = assigned and format.summary_both(verdicts, assigned) or format.summary(verdicts)
    M.last = { bufnr = bufnr, lnum = lnum, verdicts = verdicts, assigned = assigned, summary = summary }
    local text = 'reductio: ' .. summary.text
    if M.options.float and (#verdicts > 0 or #(assigned or {}) > 0) and api.nvim_get_current_win() == win then
      local bases = bases_for(bufnr, client)
      local function relf(f)
        return rel(resolve_file(f, bases))
      end
      local lines = { summary.text, '' }
      if assigned then
        lines[#lines + 1] = 'The value overwritten here:'
      end
      for _, v in ipairs(format.by_concern(verdicts)) do
        vim.list_extend(lines, format.details(v, relf))
      end
      if assigned then
        vim.list_extend(lines, { '', 'The memory assigned here:' })
        if #assigned == 0 then
          lines[#lines + 1] = 'no assignment here'
        end
        for _, a in ipairs(assigned) do
          vim.list_extend(lines, format.assigned_details(a, relf))
        end
      end
      if summary.outcome == 'leak' then
        vim.list_extend(lines, { '', ':ReductioTrace puts the trace in the quickfix list.' })
      end
      show_float(lines)
      -- The float has it all: keep the message to one line (no hit-enter prompt).
      text = format.fit(text, vim.v.echospace)
    end
    notify(text, summary.outcome == 'leak' and vim.log.levels.WARN or vim.log.levels.INFO)
    if opts.on_result then
      opts.on_result(verdicts, summary)
    end
  end, bufnr)
end

--- Quickfix items from a diagnostic's LSP related information (the server's trace).
local function related_items(related, encoding)
  local items = {}
  for _, info in ipairs(related) do
    local item = vim.lsp.util.locations_to_items({ info.location }, encoding)[1]
    if item then
      item.text = info.message
      item.type = 'I'
      item.user_data = nil
      items[#items + 1] = item
    end
  end
  if #items > 0 then
    items[#items].type = 'W'
  end
  return items
end

--- The reductio diagnostic with a trace at the cursor: one containing the column, else one on
--- the line.
local function diagnostic_at(bufnr, lnum, col)
  local found
  for _, d in ipairs(vim.diagnostic.get(bufnr, { lnum = lnum - 1 })) do
    local lsp = vim.tbl_get(d, 'user_data', 'lsp')
    local related = lsp and lsp.relatedInformation
    if d.source == NAME and type(related) == 'table' and #related > 0 then
      if col >= d.col and (d.end_lnum ~= d.lnum or col <= d.end_col) then
        return d
      end
      found = found or d
    end
  end
  return found
end

local function set_quickfix(title, items)
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  if M.options.open_quickfix then
    local win = api.nvim_get_current_win()
    vim.cmd('botright copen')
    if api.nvim_win_is_valid(win) then
      api.nvim_set_current_win(win)
    end
  end
end

--- :ReductioTrace — the leak trace at the cursor (or at `opts.params`) into the quickfix list,
--- step by step.
---@param opts? { bufnr?: integer, params?: table }
---@return boolean found
function M.trace(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or api.nvim_get_current_buf()
  local lnum, col
  if opts.params then
    lnum, col = opts.params.position.line + 1, opts.params.position.character
  else
    local cursor = api.nvim_win_get_cursor(0)
    lnum, col = cursor[1], cursor[2]
  end
  local client = M.client(bufnr)

  local d = diagnostic_at(bufnr, lnum, col)
  if d then
    local encoding = client and client.offset_encoding or 'utf-16'
    set_quickfix('reductio trace: ' .. d.message, related_items(d.user_data.lsp.relatedInformation, encoding))
    return true
  end

  -- No diagnostic (not saved yet, or a proof): the last prove on this line, else ask the server.
  local verdicts
  if M.last and M.last.bufnr == bufnr and M.last.lnum == lnum then
    verdicts = M.last.verdicts
  else
    if not client then
      not_attached(bufnr)
      return false
    end
    local params = opts.params or vim.lsp.util.make_position_params(0, client.offset_encoding)
    local resp, err = client:request_sync(PROVE, params, 10000, bufnr)
    if not resp or resp.err then
      notify('reductio: prove failed: ' .. tostring(err or (resp and resp.err and resp.err.message)), vim.log.levels.ERROR)
      return false
    end
    verdicts = type(resp.result) == 'table' and resp.result.verdicts or {}
  end
  local chosen
  for _, v in ipairs(format.by_concern(verdicts)) do
    if v.verdict ~= 'unproved' and v.trace and #v.trace > 0 then
      chosen = v
      break
    end
  end
  if not chosen then
    notify('reductio: no leak at the cursor (and no proof with a trace). Try :ReductioProve.')
    return false
  end
  local bases = bases_for(bufnr, client)
  set_quickfix(format.trace_title(chosen), format.trace_items(chosen, function(f)
    return resolve_file(f, bases)
  end))
  return true
end

--- Quickfix items for `reductio check` findings: each finding, then its trace as notes.
local function finding_items(findings, base)
  local items = {}
  for _, f in ipairs(findings) do
    local file = resolve_file(f.file, { base })
    local text = f.message
    if f.verdict == 'unproved' then
      text = ('unproved (%s): %s'):format(format.reason_label(f.reason), f.message)
    end
    items[#items + 1] = {
      filename = file,
      lnum = f.line,
      col = f.column,
      end_lnum = f.end_line,
      end_col = f.end_column,
      text = text,
      type = f.verdict == 'leak' and 'W' or 'I',
    }
    if f.verdict == 'leak' then
      for i, s in ipairs(f.trace or {}) do
        items[#items + 1] = {
          filename = resolve_file(s.file, { base }),
          lnum = s.line,
          col = s.column,
          text = ('  trace %d/%d: %s'):format(i, #f.trace, s.note),
          type = 'N',
        }
      end
    end
  end
  return items
end

--- :ReductioCheck[!] [path...] — check the project (or the paths) for leaks; results in the
--- quickfix list. With !, also list the unproved probes.
---@param paths? string[]
---@param opts? { all?: boolean, on_done?: fun(report: table|nil, err: string|nil) }
function M.check(paths, opts)
  opts = opts or {}
  local bufnr = api.nvim_get_current_buf()
  local client = M.client(bufnr) or vim.lsp.get_clients({ name = NAME })[1]
  local done = opts.on_done or function() end

  local commands = client and vim.tbl_get(client.server_capabilities or {}, 'executeCommandProvider', 'commands') or {}
  if (not paths or #paths == 0) and vim.list_contains(commands, SERVER_CHECK_COMMAND) then
    client:request('workspace/executeCommand', { command = SERVER_CHECK_COMMAND, arguments = {} }, function(err)
      if err then
        notify('reductio: check failed: ' .. tostring(err.message), vim.log.levels.ERROR)
      end
      done(nil, err and err.message)
    end, bufnr)
    return
  end

  local exe, name = M.executable()
  if not exe then
    notify(('reductio: `%s` was not found on PATH. See :checkhealth reductio'):format(name), vim.log.levels.ERROR)
    return done(nil, 'not found')
  end
  local cwd = (client and client.root_dir) or vim.fn.getcwd()
  local cmd = { exe, 'check', '--format', 'json' }
  if opts.all then
    cmd[#cmd + 1] = '--all'
  end
  local targets = (paths and #paths > 0) and paths or { '.' }
  for _, p in ipairs(targets) do
    cmd[#cmd + 1] = vim.fn.fnamemodify(vim.fn.expand(p), ':p')
  end
  notify('reductio: checking ' .. table.concat(vim.tbl_map(rel, targets), ' ') .. ' …')
  vim.system(cmd, { cwd = cwd, text = true }, vim.schedule_wrap(function(res)
    if res.code ~= 0 and res.code ~= 1 then
      local msg = vim.trim(res.stderr or '')
      notify('reductio: check failed: ' .. (msg ~= '' and msg or ('exit code ' .. res.code)), vim.log.levels.ERROR)
      return done(nil, msg)
    end
    local ok, report = pcall(vim.json.decode, res.stdout or '')
    if not ok or type(report) ~= 'table' or type(report.summary) ~= 'table' then
      notify('reductio: check printed no JSON report', vim.log.levels.ERROR)
      return done(nil, 'bad json')
    end
    local items = finding_items(report.findings or {}, cwd)
    vim.fn.setqflist({}, ' ', { title = 'reductio check', items = items })
    local summary = format.check_summary(report.summary)
    notify(summary, (report.summary.leaks or 0) > 0 and vim.log.levels.WARN or vim.log.levels.INFO)
    if #items > 0 and M.options.open_quickfix then
      local win = api.nvim_get_current_win()
      vim.cmd('botright copen')
      if api.nvim_win_is_valid(win) then
        api.nvim_set_current_win(win)
      end
    end
    done(report, nil)
  end))
end

--- For a statusline: the buffer's proof counts from the server (`✓ 14 proved · ⚠ 1 leak ·
--- ? 2 unproved`, the counts of `reductio check FILE --all`), refreshed when its diagnostics
--- change; until the first answer (or from a server without `reductio/fileSummary`), the
--- number of leak diagnostics (`⚠ 1 leak`, or '').
---@param bufnr? integer
function M.statusline(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = api.nvim_get_current_buf()
  end
  local counts = require('reductio.summary').counts[bufnr]
  if counts then
    return format.counts(counts)
  end
  local n = 0
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == NAME then
      n = n + 1
    end
  end
  return format.status(n)
end

--- The statusline's counts follow the server: asked on attach and whenever the buffer's
--- diagnostics change (see plugin/reductio.lua).
---@param bufnr integer
function M.refresh_counts(bufnr)
  local client = M.client(bufnr)
  if client then
    require('reductio.summary').refresh(client, bufnr)
  end
end

--- Called on LspAttach for reductio clients: diagnostic floats show the trace on Neovim 0.11
--- (0.12 shows LSP related information by itself).
---@param client vim.lsp.Client
function M.on_attach(client, bufnr)
  require('reductio.summary').refresh(client, bufnr)
  local want = M.options.trace_in_float
  if want == nil then
    want = vim.fn.has('nvim-0.12') == 0
  end
  if not want then
    return
  end
  local ns = vim.lsp.diagnostic.get_namespace(client.id)
  vim.diagnostic.config({
    float = {
      format = function(d)
        local related = vim.tbl_get(d, 'user_data', 'lsp', 'relatedInformation') or {}
        local lines = { d.message }
        for i, info in ipairs(related) do
          local loc = info.location
          lines[#lines + 1] = ('  %d. %s:%d: %s'):format(
            i,
            vim.fs.basename(vim.uri_to_fname(loc.uri)),
            loc.range.start.line + 1,
            info.message
          )
        end
        return table.concat(lines, '\n')
      end,
    },
  }, ns)
end

--- Client-side handlers for the server's commands (|vim.lsp.commands|), so the code actions
--- "Prove no leak here" and "Show leak trace of `p`" answer like :ReductioProve and
--- :ReductioTrace instead of with a plain message.
M.commands = {
  ['reductio.proveNoLeak'] = function(command, ctx)
    local params = M.params_from_args(command.arguments)
    if params then
      M.prove({ bufnr = ctx.bufnr, params = params })
    end
  end,
  ['reductio.showLeakTrace'] = function(command, ctx)
    local params = M.params_from_args(command.arguments)
    if params then
      M.trace({ bufnr = ctx.bufnr, params = params })
    end
  end,
}

--- The right-click entries, present only in C buffers and C headers (see plugin/reductio.lua).
M.menu = {
  { name = 'PopUp.Prove\\ no\\ leak\\ here', cmd = '<Cmd>ReductioProve<CR>' },
  { name = 'PopUp.Show\\ leak\\ trace', cmd = '<Cmd>ReductioTrace<CR>' },
}

function M.update_menu()
  local want = M.is_c_buffer(0)
  for _, entry in ipairs(M.menu) do
    pcall(vim.cmd, 'aunmenu ' .. entry.name)
    if want then
      vim.cmd(('anoremenu %s %s'):format(entry.name, entry.cmd))
    end
  end
end

return M
