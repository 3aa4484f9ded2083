-- The plugin as loaded from the repo: commands, LSP config, popup menu, :help, :checkhealth and
-- :ReductioCheck (which runs the real `reductio check`). REDUCTIO_BIN names the binary.
local T = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/harness.lua')
local BIN = assert(os.getenv('REDUCTIO_BIN'), 'REDUCTIO_BIN is not set')
vim.g.reductio_path = BIN
local PLUGIN = T.repo .. '/editors/nvim'

T.test('the plugin is loaded from the runtimepath with its three commands', function()
  T.ok(vim.g.loaded_reductio, 'plugin/reductio.lua ran')
  for _, cmd in ipairs({ 'ReductioProve', 'ReductioCheck', 'ReductioTrace' }) do
    T.eq(vim.fn.exists(':' .. cmd), 2, cmd)
  end
  T.eq(vim.api.nvim_get_commands({})['ReductioCheck'].bang, true, ':ReductioCheck! exists')
end)

T.test('lsp/reductio.lua: `reductio serve` for C, enabled', function()
  local config = vim.lsp.config.reductio
  T.eq(config.cmd, { BIN, 'serve' })
  T.eq(config.filetypes, { 'c', 'cpp' })
  T.eq(type(config.root_dir), 'function', 'root_dir keeps cpp buffers other than C headers out')
  T.eq(config.root_markers[1], 'reductio.toml')
  T.eq(config.cmd_env, { REDUCTIO_LOG = vim.env.REDUCTIO_LOG or 'error' }, 'stderr kept to errors')
  T.ok(vim.lsp.is_enabled('reductio'), 'vim.lsp.enable ran')
end)

T.test('the right-click menu has "Prove no leak here" in C buffers only', function()
  vim.cmd.edit(T.fixtures .. '/error-path-leak.c')
  T.eq(vim.bo.filetype, 'c')
  vim.cmd('doautocmd MenuPopup')
  local info = vim.fn.menu_info('PopUp.Prove\\ no\\ leak\\ here')
  T.eq(info.rhs, '<Cmd>ReductioProve<CR>')
  T.eq(info.enabled, true)
  T.eq(vim.fn.menu_info('PopUp.Show\\ leak\\ trace').rhs, '<Cmd>ReductioTrace<CR>')

  vim.cmd.enew()
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'plain text' })
  vim.bo.filetype = 'text'
  vim.cmd('doautocmd MenuPopup')
  T.eq(vim.fn.menu_info('PopUp.Prove\\ no\\ leak\\ here'), vim.empty_dict(), 'absent outside C')
  vim.cmd('bwipeout!')
end)

T.test(':help reductio', function()
  vim.cmd('helptags ' .. vim.fn.fnameescape(PLUGIN .. '/doc'))
  vim.cmd('help reductio')
  T.eq(vim.bo.filetype, 'help')
  T.match(vim.fn.expand('%:t'), '^reductio%.txt$')
  for _, tag in ipairs({ ':ReductioProve', ':ReductioTrace', ':ReductioCheck', 'reductio-config', 'reductio-health' }) do
    vim.cmd('help ' .. tag)
  end
  vim.cmd('helpclose')
end)

T.test(':checkhealth reductio reports the binary found', function()
  vim.cmd('checkhealth reductio')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  T.match(text, 'OK found ' .. vim.pesc(BIN) .. ' %(reductio %d', 'binary found with its version')
  T.match(text, 'OK enabled for filetypes: c')
  T.ok(not text:find('ERROR'), 'no errors:\n' .. text)
  vim.cmd('bwipeout!')
end)

T.test(':ReductioCheck puts leaks and their traces in the quickfix list', function()
  local leak = T.fixtures .. '/error-path-leak.c'
  local ok = T.fixtures .. '/error-path-ok.c'
  T.notes = {}
  vim.fn.setqflist({}, 'r', { title = 'before', items = {} })
  vim.cmd('ReductioCheck ' .. leak .. ' ' .. ok)
  T.wait(30000, function()
    return vim.fn.getqflist({ title = 1 }).title == 'reductio check'
  end, 'the check to finish')
  local items = vim.fn.getqflist()
  T.eq(vim.tbl_map(function(i)
    return { vim.api.nvim_buf_get_name(i.bufnr), i.lnum, i.type }
  end, items), {
    { leak, 25, 'W' },
    { leak, 21, 'N' },
    { leak, 22, 'N' },
    { leak, 24, 'N' },
    { leak, 25, 'N' },
  })
  T.match(items[1].text, 'leaks: allocated at line 21, last reference lost here')
  T.eq(items[2].text, '  trace 1/4: allocated by `malloc`')
  T.match(T.notes[#T.notes].msg, '^reductio: 1 leak in 2 files %(%d+ proved')
  vim.cmd('cclose')
end)

T.test(':ReductioCheck! also lists the unproved probes', function()
  vim.fn.setqflist({}, 'r', { title = 'before', items = {} })
  vim.cmd('ReductioCheck! ' .. T.fixtures .. '/escape-outparam-ok.c')
  T.wait(30000, function()
    return vim.fn.getqflist({ title = 1 }).title == 'reductio check'
  end, 'the check to finish')
  local items = vim.fn.getqflist()
  T.ok(#items > 0, 'some unproved probes')
  for _, i in ipairs(items) do
    T.eq(i.type, 'I')
    T.match(i.text, '^unproved %(')
  end
  vim.cmd('cclose')
end)

T.test(':checkhealth reductio says how to install a missing binary', function()
  vim.lsp.config('reductio', { cmd = { '/nonexistent/reductio', 'serve' } })
  vim.cmd('checkhealth reductio')
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  T.match(text, 'ERROR `/nonexistent/reductio` was not found on PATH')
  T.match(text, 'cargo install %-%-path server')
  vim.cmd('bwipeout!')
end)

T.run()
