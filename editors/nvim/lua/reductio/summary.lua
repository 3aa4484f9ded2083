-- The proof counts of a buffer for the statusline, from the server: `reductio/fileSummary`
-- `{textDocument} -> {proved, leaks, unproved}`, answered from the same analysis as the file's
-- diagnostics (and as `reductio check FILE --all`). Asked again each time diagnostics change in
-- the buffer (the server has checked it again), and on attach.
local M = {}

M.REQUEST = 'reductio/fileSummary'

--- bufnr -> { proved, leaks, unproved }: the newest answer.
M.counts = {}
--- bufnr -> number of the newest request (an older answer arriving late is dropped).
local seq = {}

--- Whether the server says it answers the request (`capabilities.experimental`).
---@param client vim.lsp.Client
function M.supported(client)
  return vim.tbl_get(client.server_capabilities or {}, 'experimental', 'fileSummaryRequest') == M.REQUEST
end

--- `{proved, leaks, unproved}` of non-negative integers, else nil.
function M.parse(result)
  if type(result) ~= 'table' then
    return nil
  end
  local out = {}
  for _, k in ipairs({ 'proved', 'leaks', 'unproved' }) do
    local n = result[k]
    if type(n) ~= 'number' or n < 0 or n % 1 ~= 0 then
      return nil
    end
    out[k] = n
  end
  return out
end

--- Ask `client` for the counts of `bufnr`; on an answer, store them and redraw the statusline.
--- Errors (cancelled, content modified, a server without the request) keep what is shown.
---@param client vim.lsp.Client
---@param bufnr integer
function M.refresh(client, bufnr)
  if not M.supported(client) or not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  local id = (seq[bufnr] or 0) + 1
  seq[bufnr] = id
  client:request(M.REQUEST, { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, function(err, result)
    if err or seq[bufnr] ~= id then
      return
    end
    local counts = M.parse(result)
    if counts then
      M.counts[bufnr] = counts
      vim.cmd.redrawstatus()
    end
  end, bufnr)
end

--- Forget a buffer (BufWipeout, or its server detached).
function M.forget(bufnr)
  M.counts[bufnr] = nil
  seq[bufnr] = nil
end

return M
