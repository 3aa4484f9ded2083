-- lua/reductio/format.lua: the wording of verdicts (no server needed).
local T = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/harness.lua')
local format = require('reductio.format')

local F = 'test-fixtures/idioms/error-path-leak.c'
local leak = {
  file = F, line = 25, column = 9, end_line = 25, end_column = 19, ['function'] = 'packet_checksum',
  verdict = 'leak', probe = 'return-local', variable = 'copy',
  message = '`copy` leaks: allocated at line 21, last reference lost here',
  allocation = { { file = F, line = 21, column = 5, ['function'] = 'packet_checksum' } },
  trace = {
    { file = F, line = 21, column = 5, note = 'allocated by `malloc`' },
    { file = F, line = 22, column = 9, note = 'branch taken: `copy != NULL`' },
    { file = F, line = 24, column = 9, note = 'branch taken: `pkt->len < 0`' },
    { file = F, line = 25, column = 9, note = '`copy` goes out of scope' },
  },
}
local unproved = {
  file = F, line = 25, column = 9, end_line = 25, end_column = 19, ['function'] = 'packet_checksum',
  verdict = 'unproved', probe = 'return-local', variable = 'pkt', reason = 'input-dependent',
  message = 'unproved: depends on the callers of `packet_checksum`', allocation = {}, trace = {},
}
local proved = {
  file = F, line = 25, column = 9, end_line = 25, end_column = 19, ['function'] = 'packet_checksum',
  verdict = 'proved', probe = 'return-local', variable = 'copy',
  message = 'proved leak-free: assuming `copy` held the last reference, line 24 `free(copy)` frees it',
  allocation = {}, trace = { { file = F, line = 24, column = 9, note = '`free(copy)` frees it' } },
}

T.test('a leak leads the answer, the rest follows', function()
  local s = format.summary({ unproved, leak })
  T.eq(s.outcome, 'leak')
  T.eq(s.text, leak.message .. '. Also: `pkt` unproved (depends on the callers).')
end)

T.test('a proof says where it was contradicted', function()
  T.eq(format.summary({ proved }), {
    outcome = 'proved',
    text = 'No leak here: `copy` proved leak-free (line 24: `free(copy)` frees it).',
  })
end)

T.test('proved and unproved together: not proved', function()
  local s = format.summary({ proved, unproved })
  T.eq(s.outcome, 'unproved')
  T.eq(s.text, 'Not proved: `pkt` unproved (depends on the callers); `copy` proved leak-free (line 24: `free(copy)` frees it).')
end)

T.test('no probe at the cursor', function()
  local s = format.summary({})
  T.eq(s.outcome, 'none')
  T.match(s.text, '^No leak probe here')
end)

T.test('reason labels, including JSON null', function()
  T.eq(format.reason_label('budget'), 'the probe ran out of budget')
  T.eq(format.reason_label(vim.NIL), 'no reason given')
  T.eq(format.reason_label('new-reason'), 'new-reason')
end)

T.test('details: message, allocation path and numbered trace', function()
  T.eq(format.details(leak, function(f)
    return vim.fs.basename(f)
  end), {
    'leak: `copy` (return-local) at error-path-leak.c:25:9 in packet_checksum',
    '  ' .. leak.message,
    '  allocation: error-path-leak.c:21:5 (packet_checksum)',
    '  trace:',
    '    1. error-path-leak.c:21:5  allocated by `malloc`',
    '    2. error-path-leak.c:22:9  branch taken: `copy != NULL`',
    '    3. error-path-leak.c:24:9  branch taken: `pkt->len < 0`',
    '    4. error-path-leak.c:25:9  `copy` goes out of scope',
  })
  T.eq(format.details(unproved)[3], '  reason: input-dependent (depends on the callers)')
end)

T.test('trace items keep the order of the steps; the last step of a leak is the warning', function()
  local items = format.trace_items(leak, function(f)
    return '/abs/' .. f
  end)
  T.eq(vim.tbl_map(function(i)
    return { i.lnum, i.col, i.text, i.type }
  end, items), {
    { 21, 5, 'allocated by `malloc`', 'I' },
    { 22, 9, 'branch taken: `copy != NULL`', 'I' },
    { 24, 9, 'branch taken: `pkt->len < 0`', 'I' },
    { 25, 9, '`copy` goes out of scope', 'W' },
  })
  T.eq(items[1].filename, '/abs/' .. F)
  T.eq(format.trace_title(leak), 'reductio: leak trace of `copy` (4 steps)')
end)

T.test('check summary and statusline', function()
  T.eq(format.check_summary({ files = 3, probes = 40, proved = 35, leaks = 2, unproved = 3 }),
    'reductio: 2 leaks in 3 files (35 proved, 3 unproved, 40 probes)')
  T.eq(format.check_summary({ files = 1, probes = 2, proved = 2, leaks = 0, unproved = 0 }),
    'reductio: 0 leaks in 1 file (2 proved, 0 unproved, 2 probes)')
  T.eq(format.status(0), '')
  T.eq(format.status(2), '⚠ 2 leaks')
  T.eq(format.counts({ proved = 14, leaks = 1, unproved = 2 }), '✓ 14 proved · ⚠ 1 leak · ? 2 unproved')
  T.eq(format.counts({ proved = 3, leaks = 0, unproved = 0 }), '✓ 3 proved')
  T.eq(format.counts({ proved = 0, leaks = 2, unproved = 0 }), '✓ 0 proved · ⚠ 2 leaks')
  T.eq(format.counts({ proved = 0, leaks = 0, unproved = 0 }), '')
  local summary = require('reductio.summary')
  T.eq(summary.parse({ proved = 1, leaks = 0, unproved = 2, extra = 'x' }), { proved = 1, leaks = 0, unproved = 2 })
  T.eq(summary.parse({ proved = 1, leaks = -1, unproved = 2 }), nil)
  T.eq(summary.parse({ proved = 1.5, leaks = 0, unproved = 2 }), nil)
  T.eq(summary.parse(vim.NIL), nil)
end)

T.test('fit cuts to the command line with an ellipsis', function()
  T.eq(format.fit('short', 10), 'short')
  T.eq(format.fit('0123456789abc', 10), '012345678…')
  T.eq(vim.fn.strdisplaywidth(format.fit(('é'):rep(30), 12)), 12)
  T.eq(format.fit('anything', 0), 'anything')
end)

T.test('the memory assigned here: two labelled parts where there is an assignment', function()
  local assigned = {
    file = F, line = 21, column = 5, ['function'] = 'packet_checksum', variable = 'copy',
    verdict = 'leak', summary = 'leaks at line 25',
    paths = {
      { kind = 'null', file = F, line = 22, column = 9, note = '`copy` is NULL on this path: no block to lose' },
      { kind = 'leak', file = F, line = 25, column = 9, note = '`copy` goes out of scope: leaks',
        allocated_here = true, finding = leak },
      { kind = 'freed', file = F, line = 30, column = 5, note = 'freed (`free(copy)`)' },
    },
  }
  local s = format.summary_both({ proved }, { assigned })
  T.eq(s.outcome, 'leak')
  T.eq(s.text, 'The value overwritten here: No leak here: `copy` proved leak-free (line 24: `free(copy)` '
    .. 'frees it). The memory assigned here: `copy` (line 21) leaks at line 25.')
  local lines = format.assigned_details(assigned)
  T.eq(lines[1], 'memory assigned to `copy` at ' .. F .. ':21:5: leaks at line 25')
  T.eq(lines[2], '  null: ' .. F .. ':22:9  `copy` is NULL on this path: no block to lose')
  T.eq(lines[3], '  leak: ' .. F .. ':25:9  `copy` goes out of scope: leaks')
  T.eq(lines[4], '    1. ' .. F .. ':21:5  allocated by `malloc`')
  T.eq(lines[8], '  freed: ' .. F .. ':30:5  freed (`free(copy)`)')
  -- A return (no assignment): its probes answer alone; nothing at all: said so.
  T.eq(format.summary_both({ leak }, {}), format.summary({ leak }))
  T.eq(format.summary_both({}, {}).outcome, 'none')
  T.match(format.summary_both({}, {}).text, '^No leak probe or assignment here: ')
end)

T.run()
