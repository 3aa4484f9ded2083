-- The reductio language server for C (Neovim >= 0.11, see :help lsp-config).
-- Override anything with vim.lsp.config('reductio', {...}), e.g. server settings:
--   vim.lsp.config('reductio', { init_options = { allocators = { 'xmalloc' } } })
-- The binary is g:reductio_path when set, else `reductio` on PATH.

---@type vim.lsp.Config
return {
  cmd = { require('reductio').binary(), 'serve' },
  filetypes = { 'c' },
  -- reductio.toml is the project's reductio configuration; it is read from the root.
  root_markers = { 'reductio.toml', 'compile_commands.json', '.git' },
  -- The keys of reductio.toml (kebab-case, budget nested); empty: the server's defaults and
  -- the project's reductio.toml.
  init_options = vim.empty_dict(),
}
