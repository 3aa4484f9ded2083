-- The Neovim configuration of docs/screenshots/nvim-leak-trace.png: the plugin from the repo,
-- virtual text on (Neovim 0.11+ defaults it off), a dark colour scheme.
local repo = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h')
vim.opt.rtp:prepend(repo .. '/editors/nvim')
vim.g.reductio_path = os.getenv('REDUCTIO_BIN')
vim.o.termguicolors = true
vim.o.number = true
vim.o.signcolumn = 'yes'
vim.o.laststatus = 2
vim.o.shortmess = vim.o.shortmess .. 'I'
vim.cmd.colorscheme('habamax')
vim.diagnostic.config({ virtual_text = true, float = { border = 'rounded' } })
vim.o.statusline = '%f %m%= %{v:lua.require("reductio").statusline()}  %l:%c '
