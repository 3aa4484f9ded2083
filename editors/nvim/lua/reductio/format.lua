--- Wording of verdicts for messages, floats and the quickfix list.
--- Pure functions over the server's JSON (DESIGN.md "External interfaces"), no editor state:
--- the same sentences as the VS Code extension (editors/vscode/src/verdicts.ts).
local M = {}

local RANK = { leak = 0, unproved = 1, proved = 2 }

local REASONS = {
  ['input-dependent'] = 'depends on the callers',
  budget = 'the probe ran out of budget',
  unsupported = 'unsupported construct',
}

local function plural(n, one, many)
  return ('%d %s'):format(n, n == 1 and one or (many or one .. 's'))
end

--- A short label for an `unproved` reason.
---@param reason string|nil
---@return string
function M.reason_label(reason)
  if reason == nil or reason == vim.NIL or reason == '' then
    return 'no reason given'
  end
  return REASONS[reason] or reason
end

--- Leaks first, then unproved, then proved; stable within a kind.
---@param verdicts table[]
---@return table[]
function M.by_concern(verdicts)
  local indexed = {}
  for i, v in ipairs(verdicts) do
    indexed[#indexed + 1] = { v = v, i = i }
  end
  table.sort(indexed, function(a, b)
    local ra, rb = RANK[a.v.verdict] or 3, RANK[b.v.verdict] or 3
    if ra ~= rb then
      return ra < rb
    end
    return a.i < b.i
  end)
  return vim.tbl_map(function(x)
    return x.v
  end, indexed)
end

--- One clause per verdict.
---@param v table
---@return string
function M.clause(v)
  local name = (v.variable and v.variable ~= '') and ('`' .. v.variable .. '`') or 'this value'
  local trace = v.trace or {}
  if v.verdict == 'leak' then
    return (v.message and v.message ~= '') and v.message or (name .. ' leaks')
  elseif v.verdict == 'proved' then
    local first = trace[1]
    if not first then
      return name .. ' proved leak-free'
    end
    local more = #trace > 1 and (', and ' .. plural(#trace - 1, 'other path')) or ''
    return ('%s proved leak-free (line %d: %s%s)'):format(name, first.line, first.note or '', more)
  else
    return ('%s unproved (%s)'):format(name, M.reason_label(v.reason))
  end
end

--- The answer to "Prove no leak here".
---@param verdicts table[]
---@return { outcome: 'leak'|'unproved'|'proved'|'none', text: string }
function M.summary(verdicts)
  if #verdicts == 0 then
    return {
      outcome = 'none',
      text = 'No leak probe here: reductio probes pointer assignments, allocations, frees, '
        .. 'returns and block ends. Put the cursor on one of those.',
    }
  end
  local sorted = M.by_concern(verdicts)
  local clauses = vim.tbl_map(M.clause, sorted)
  local worst = sorted[1].verdict
  if worst == 'leak' then
    local rest = vim.list_slice(clauses, 2)
    local also = #rest > 0 and (' Also: ' .. table.concat(rest, '; ') .. '.') or ''
    -- The server's message starts with the variable: "`copy` leaks: allocated at line 21, …".
    return { outcome = 'leak', text = clauses[1] .. '.' .. also }
  elseif worst == 'unproved' then
    return { outcome = 'unproved', text = 'Not proved: ' .. table.concat(clauses, '; ') .. '.' }
  end
  return { outcome = 'proved', text = 'No leak here: ' .. table.concat(clauses, '; ') .. '.' }
end

local function identity(f)
  return f
end

---@param loc { file: string, line: integer, column: integer }
---@param rel? fun(file: string): string
function M.location(loc, rel)
  return ('%s:%d:%d'):format((rel or identity)(loc.file), loc.line, loc.column or 1)
end

--- Numbered trace lines: `1. list.c:3:9  allocated by `malloc``.
---@param trace table[]
---@param rel? fun(file: string): string
---@return string[]
function M.trace_lines(trace, rel)
  local out = {}
  for i, s in ipairs(trace or {}) do
    out[#out + 1] = ('%d. %s  %s'):format(i, M.location(s, rel), s.note or '')
  end
  return out
end

--- A verdict in full (for the float and :messages).
---@param v table
---@param rel? fun(file: string): string
---@return string[]
function M.details(v, rel)
  local where = (v['function'] and v['function'] ~= '') and (' in ' .. v['function']) or ''
  local lines = {
    ('%s: `%s` (%s) at %s%s'):format(v.verdict, v.variable or '', v.probe or '', M.location(v, rel), where),
    '  ' .. (v.message or ''),
  }
  if v.verdict == 'unproved' then
    local reason = (v.reason and v.reason ~= vim.NIL) and v.reason or 'none given'
    lines[#lines + 1] = ('  reason: %s (%s)'):format(reason, M.reason_label(v.reason))
  end
  if v.allocation and #v.allocation > 0 then
    local path = vim.tbl_map(function(a)
      local fn = (a['function'] and a['function'] ~= '') and (' (' .. a['function'] .. ')') or ''
      return M.location(a, rel) .. fn
    end, v.allocation)
    lines[#lines + 1] = '  allocation: ' .. table.concat(path, ' -> ')
  end
  if v.trace and #v.trace > 0 then
    lines[#lines + 1] = v.verdict == 'proved' and '  contradicted at:' or '  trace:'
    for _, l in ipairs(M.trace_lines(v.trace, rel)) do
      lines[#lines + 1] = '    ' .. l
    end
  end
  return lines
end

--- Quickfix items for a verdict's trace, in order. `resolve` makes a verdict's file a path.
---@param v table
---@param resolve? fun(file: string): string
---@return vim.quickfix.entry[]
function M.trace_items(v, resolve)
  local items = {}
  for i, s in ipairs(v.trace or {}) do
    items[#items + 1] = {
      filename = (resolve or identity)(s.file),
      lnum = s.line,
      col = s.column or 1,
      text = s.note or '',
      type = (i == #v.trace and v.verdict == 'leak') and 'W' or 'I',
    }
  end
  return items
end

--- The quickfix title for a trace.
function M.trace_title(v)
  if v.verdict == 'proved' then
    return ('reductio: where `%s` is contradicted'):format(v.variable or '')
  end
  return ('reductio: leak trace of `%s` (%s)'):format(v.variable or '', plural(#(v.trace or {}), 'step'))
end

--- One line after `reductio check`.
---@param s table summary
function M.check_summary(s)
  return ('reductio: %s in %s (%d proved, %d unproved, %d probes)'):format(
    plural(s.leaks or 0, 'leak'),
    plural(s.files or 0, 'file'),
    s.proved or 0,
    s.unproved or 0,
    s.probes or 0
  )
end

--- `s` cut to `width` display cells, ending in `…` when cut.
---@param s string
---@param width integer
function M.fit(s, width)
  if width <= 0 or vim.fn.strdisplaywidth(s) <= width then
    return s
  end
  local out = s
  while vim.fn.strdisplaywidth(out) > width - 1 do
    out = vim.fn.strcharpart(out, 0, vim.fn.strchars(out) - 1)
  end
  return out .. '…'
end

--- A statusline fragment from a file's counts: `✓ 14 proved · ⚠ 1 leak · ? 2 unproved` (leaks
--- and unproved only when there are some), or '' for a file without probes.
---@param c { proved: integer, leaks: integer, unproved: integer }
function M.counts(c)
  if c.proved + c.leaks + c.unproved == 0 then
    return ''
  end
  local parts = { '✓ ' .. c.proved .. ' proved' }
  if c.leaks > 0 then
    parts[#parts + 1] = '⚠ ' .. plural(c.leaks, 'leak')
  end
  if c.unproved > 0 then
    parts[#parts + 1] = '? ' .. c.unproved .. ' unproved'
  end
  return table.concat(parts, ' · ')
end

--- A statusline fragment: `⚠ 1 leak`, or '' when there are none.
---@param leaks integer
function M.status(leaks)
  if leaks == 0 then
    return ''
  end
  return '⚠ ' .. plural(leaks, 'leak')
end

--- The memory assigned here: the `assigned` list of a `reductio/prove` answer (README, "The
--- memory assigned here"). At `p = malloc(n)` the verdicts answer for the value `p` loses; these
--- answer for the block `p` receives: where it can lose its last reference, with the verdict there.

--- Both answers of :ReductioProve, labelled, where there is an assignment; the outcome is the
--- worse of the two.
---@param verdicts table[]
---@param assigned table[]
---@return { outcome: 'leak'|'unproved'|'proved'|'none', text: string }
function M.summary_both(verdicts, assigned)
  local over = M.summary(verdicts)
  if #verdicts == 0 and #assigned == 0 then
    return { outcome = 'none', text = 'No leak probe or assignment here: reductio probes pointer assignments, '
      .. 'allocations, frees, returns and block ends. Put the cursor on one of those.' }
  end
  if #assigned == 0 then
    -- A return or a block end: only its probes answer ("no assignment here" is in the float).
    return over
  end
  local outcome = over.outcome
  local parts = {}
  for _, a in ipairs(assigned) do
    parts[#parts + 1] = ('`%s` (line %d) %s'):format(a.variable or '', a.line or 0, a.summary or '')
    if RANK[a.verdict] and (outcome == 'none' or RANK[a.verdict] < RANK[outcome]) then
      outcome = a.verdict
    end
  end
  local over_text = #verdicts == 0 and 'no leak probe here.' or over.text
  return {
    outcome = outcome,
    text = 'The value overwritten here: ' .. over_text .. ' The memory assigned here: '
      .. table.concat(parts, '; ') .. '.',
  }
end

--- The memory assigned by one assignment in full (for the float): the summary, then one line per
--- path, a leak's trace under it.
---@param a table
---@param rel? fun(file: string): string
---@return string[]
function M.assigned_details(a, rel)
  local lines = { ('memory assigned to `%s` at %s: %s'):format(a.variable or '', M.location(a, rel), a.summary or '') }
  for _, p in ipairs(a.paths or {}) do
    lines[#lines + 1] = ('  %s: %s  %s'):format(p.kind or '', M.location(p, rel), p.note or '')
    if p.kind == 'leak' and type(p.finding) == 'table' then
      for _, l in ipairs(M.trace_lines(p.finding.trace, rel)) do
        lines[#lines + 1] = '    ' .. l
      end
    end
  end
  return lines
end

return M
