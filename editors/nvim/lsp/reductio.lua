-- The reductio language server for C (Neovim >= 0.11, see :help lsp-config).
-- Override anything with vim.lsp.config('reductio', {...}), e.g. server settings:
--   vim.lsp.config('reductio', { init_options = { allocators = { 'xmalloc' } } })
-- The binary is g:reductio_path when set, else `reductio` on PATH.
local reductio = require('reductio')

---@type vim.lsp.Config
return {
  cmd = { reductio.binary(), 'serve' },
  -- The server logs to stderr, which Neovim files as [ERROR]: keep it to errors; its other
  -- messages arrive as window/logMessage at their own level ($REDUCTIO_LOG overrides).
  cmd_env = reductio.server_env(),
  -- `cpp` for `.h` files (Neovim's default filetype for them): root_dir attaches only to the
  -- `.h` buffers of C projects (:help reductio-headers).
  filetypes = { 'c', 'cpp' },
  root_dir = function(bufnr, on_dir)
    reductio.root_dir(bufnr, on_dir)
  end,
  -- reductio.toml is the project's reductio configuration; it is read from the root.
  root_markers = vim.deepcopy(reductio.root_markers),
  -- The keys of reductio.toml (kebab-case, budget nested); empty: the server's defaults and
  -- the project's reductio.toml.
  init_options = vim.empty_dict(),
}
