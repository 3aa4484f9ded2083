-- :checkhealth reductio
local M = {}

local health = vim.health

function M.check()
  local reductio = require('reductio')

  health.start('reductio: Neovim')
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok('Neovim ' .. tostring(vim.version()) .. ' (vim.lsp.config and vim.lsp.enable)')
  else
    health.error('Neovim 0.11 or newer is required', { 'Upgrade Neovim' })
    return
  end

  health.start('reductio: server binary')
  local exe, name = reductio.executable()
  if not exe then
    health.error(('`%s` was not found on PATH'):format(name), {
      'Install it from a reductio checkout: cargo install --path server',
      'Or point the plugin at it: vim.g.reductio_path = "/path/to/reductio"',
    })
  else
    local ok, res = pcall(function()
      return vim.system({ exe, '--version' }, { text = true }):wait(5000)
    end)
    if ok and res.code == 0 then
      health.ok(('found %s (%s)'):format(exe, vim.trim(res.stdout)))
    else
      health.warn(('found %s, but `%s --version` failed: %s'):format(exe, exe, ok and vim.trim(res.stderr or '') or tostring(res)))
    end
  end

  health.start('reductio: language server')
  local ok, config = pcall(function()
    return vim.lsp.config.reductio
  end)
  if not ok or not config then
    health.error('no vim.lsp.config for reductio: is editors/nvim on the runtimepath?')
    return
  end
  health.info('cmd: ' .. table.concat(type(config.cmd) == 'table' and config.cmd or { '<function>' }, ' '))
  if vim.lsp.is_enabled == nil or vim.lsp.is_enabled('reductio') then
    local fts = config.filetypes or {}
    local note = vim.list_contains(fts, 'cpp') and type(config.root_dir) == 'function'
        and '; cpp: only the .h files of C projects, see :help reductio-headers'
      or ''
    health.ok('enabled for filetypes: ' .. table.concat(fts, ', ') .. note)
  else
    health.warn('not enabled', { "vim.lsp.enable('reductio'), or unset vim.g.reductio_autostart" })
  end
  local env = config.cmd_env or {}
  health.info(('server log: REDUCTIO_LOG=%s on stderr (which Neovim files as errors in %s); the rest comes as window/logMessage, see :help reductio-log'):format(
    env.REDUCTIO_LOG or vim.env.REDUCTIO_LOG or 'info',
    require('vim.lsp.log').get_filename()
  ))
  local clients = vim.lsp.get_clients({ name = 'reductio' })
  if #clients == 0 then
    health.info('not running (it starts when a C file is opened)')
  end
  for _, client in ipairs(clients) do
    local info = client.server_info or {}
    local bufs = vim.tbl_keys(client.attached_buffers or {})
    health.ok(('running: client %d, %s %s, root %s, position encoding %s, %d buffer(s)'):format(
      client.id,
      info.name or 'reductio',
      info.version or '',
      client.root_dir or '(single file)',
      client.offset_encoding,
      #bufs
    ))
    local toml = client.root_dir and vim.fs.joinpath(client.root_dir, 'reductio.toml')
    if toml and vim.uv.fs_stat(toml) then
      health.info('project configuration: ' .. toml)
    end
  end
end

return M
