-- reductio: leak proofs and leak traces for C, from `reductio serve`. See :help reductio.
if vim.g.loaded_reductio then
  return
end
vim.g.loaded_reductio = true

if vim.fn.has('nvim-0.11') == 0 then
  vim.notify_once('reductio needs Neovim 0.11 or newer (vim.lsp.config)', vim.log.levels.WARN)
  return
end

local function reductio()
  return require('reductio')
end

vim.api.nvim_create_user_command('ReductioProve', function()
  reductio().prove()
end, { desc = 'reductio: prove there is no leak at the cursor' })

vim.api.nvim_create_user_command('ReductioTrace', function()
  reductio().trace()
end, { desc = 'reductio: the leak trace at the cursor into the quickfix list' })

vim.api.nvim_create_user_command('ReductioCheck', function(args)
  reductio().check(args.fargs, { all = args.bang })
end, {
  nargs = '*',
  bang = true,
  complete = 'file',
  desc = 'reductio: check the project (or the given paths) for leaks; ! also lists unproved probes',
})

vim.keymap.set('n', '<Plug>(reductio-prove)', '<Cmd>ReductioProve<CR>', { desc = 'reductio: prove no leak here' })
vim.keymap.set('n', '<Plug>(reductio-trace)', '<Cmd>ReductioTrace<CR>', { desc = 'reductio: show leak trace' })

for name in pairs({ ['reductio.proveNoLeak'] = 1, ['reductio.showLeakTrace'] = 1 }) do
  vim.lsp.commands[name] = vim.lsp.commands[name] or function(command, ctx)
    return reductio().commands[name](command, ctx)
  end
end

local group = vim.api.nvim_create_augroup('reductio', { clear = true })

-- "Prove no leak here" in the right-click menu, only in C buffers.
vim.api.nvim_create_autocmd('MenuPopup', {
  group = group,
  callback = function()
    reductio().update_menu()
  end,
})

vim.api.nvim_create_autocmd('LspAttach', {
  group = group,
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if client and client.name == 'reductio' then
      reductio().on_attach(client, args.buf)
    end
  end,
})

-- The statusline's proof counts (require('reductio').statusline()) follow the server: asked
-- again whenever a buffer's diagnostics change, since the server has then checked it again.
vim.api.nvim_create_autocmd('DiagnosticChanged', {
  group = group,
  callback = function(args)
    reductio().refresh_counts(args.buf)
  end,
})

vim.api.nvim_create_autocmd({ 'BufWipeout', 'LspDetach' }, {
  group = group,
  callback = function(args)
    local id = args.data and args.data.client_id
    local client = id and vim.lsp.get_client_by_id(id)
    if args.event == 'BufWipeout' or (client and client.name == 'reductio') then
      require('reductio.summary').forget(args.buf)
    end
  end,
})

-- Start the server for C buffers; `vim.g.reductio_autostart = false` leaves it to you
-- (vim.lsp.enable('reductio')).
if vim.g.reductio_autostart ~= false then
  vim.lsp.enable('reductio')
end
