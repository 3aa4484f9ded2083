-- A small test runner for `nvim --headless -l`: `T.test(name, fn)`, then `T.run()` prints TAP-ish
-- lines and the closing "N passed, N failed" and exits non-zero on a failure.
local T = {}
local tests = {}

T.repo = vim.fs.normalize(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h:h'))
T.fixtures = T.repo .. '/test-fixtures/idioms'

function T.out(...)
  io.stdout:write(table.concat({ ... }, ''), '\n')
end

function T.test(name, fn)
  tests[#tests + 1] = { name = name, fn = fn }
end

function T.eq(got, want, what)
  if not vim.deep_equal(got, want) then
    error(('%s:\n  want %s\n  got  %s'):format(what or 'values differ', vim.inspect(want), vim.inspect(got)), 2)
  end
end

function T.ok(cond, what)
  if not cond then
    error(what or 'assertion failed', 2)
  end
  return cond
end

function T.match(s, pattern, what)
  if type(s) ~= 'string' or not s:find(pattern) then
    error(('%s: %s does not match %s'):format(what or 'no match', vim.inspect(s), vim.inspect(pattern)), 2)
  end
end

--- Waits for `cond`, failing with `what` after `ms`.
function T.wait(ms, cond, what)
  if not vim.wait(ms, cond, 20) then
    error(('timed out after %d ms waiting for %s'):format(ms, what or 'a condition'), 2)
  end
end

--- Captures vim.notify while `fn` runs; returns the list of {msg, level}.
T.notes = {}
local real_notify = vim.notify
vim.notify = function(msg, level, opts)
  T.notes[#T.notes + 1] = { msg = msg, level = level }
  return real_notify(msg, level, opts)
end

--- The line number (1-based) of the first line of `file` containing `needle` (plain text).
function T.line_of(file, needle)
  for i, l in ipairs(vim.fn.readfile(file)) do
    if l:find(needle, 1, true) then
      return i
    end
  end
  error(('%s not found in %s'):format(needle, file))
end

function T.run()
  local passed, failed = 0, 0
  for i, t in ipairs(tests) do
    local ok, err = xpcall(t.fn, debug.traceback)
    if ok then
      passed = passed + 1
      T.out(('ok %d - %s'):format(i, t.name))
    else
      failed = failed + 1
      T.out(('not ok %d - %s'):format(i, t.name))
      for line in tostring(err):gmatch('[^\n]+') do
        T.out('    # ' .. line)
      end
    end
  end
  T.out(('%d passed, %d failed'):format(passed, failed))
  io.stdout:flush()
  os.exit(failed == 0 and 0 or 1)
end

return T
