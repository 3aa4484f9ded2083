// Finding the `reductio` binary: the `reductio.path` setting, else `reductio` on PATH.

import * as fs from 'fs';
import * as path from 'path';

export type Exists = (file: string) => boolean;

export const isExecutableFile: Exists = (file) => {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    if (process.platform !== 'win32') {
      fs.accessSync(file, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
};

export type Resolved = { ok: true; path: string } | { ok: false; message: string };

export const INSTALL_HINT =
  'Install it with `cargo install --path server` from a reductio checkout (puts `reductio` in ' +
  '~/.cargo/bin), or set `reductio.path` to the binary.';

/**
 * Resolves the server binary. `configured` is the `reductio.path` setting (empty: search PATH);
 * `~` at its start is the home directory, and a relative path is taken from `cwd` (the first
 * workspace folder).
 */
export function resolveServer(
  configured: string,
  env: { PATH?: string; PATHEXT?: string; HOME?: string },
  opts: { platform?: NodeJS.Platform; cwd?: string; exists?: Exists } = {},
): Resolved {
  const platform = opts.platform ?? process.platform;
  const exists = opts.exists ?? isExecutableFile;
  const p = platform === 'win32' ? path.win32 : path.posix;
  const setting = configured.trim();

  if (setting) {
    let file = setting;
    if (file === '~' || file.startsWith('~/')) {
      file = p.join(env.HOME ?? '', file.slice(1));
    }
    if (!p.isAbsolute(file) && file.includes(p.sep)) {
      file = p.resolve(opts.cwd ?? '.', file);
    }
    if (p.isAbsolute(file)) {
      return exists(file)
        ? { ok: true, path: file }
        : {
            ok: false,
            message: `reductio: \`reductio.path\` is set to ${setting}, but no executable file is there. ${INSTALL_HINT}`,
          };
    }
    // A bare name: look it up on PATH like the default.
    return searchPath(file, env, platform, exists);
  }
  return searchPath('reductio', env, platform, exists);
}

function searchPath(
  name: string,
  env: { PATH?: string; PATHEXT?: string },
  platform: NodeJS.Platform,
  exists: Exists,
): Resolved {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const dirs = (env.PATH ?? '').split(platform === 'win32' ? ';' : ':').filter((d) => d);
  const exts =
    platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').toLowerCase().split(';')] : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      const file = p.join(dir, name + ext);
      if (exists(file)) {
        return { ok: true, path: file };
      }
    }
  }
  return {
    ok: false,
    message: `reductio: the language server \`${name}\` was not found on PATH. ${INSTALL_HINT}`,
  };
}

/**
 * How vscode-languageclient starts the server: `reductio serve` over stdio. No `transport`
 * field: with `TransportKind.stdio` the client appends `--stdio`, which `reductio serve` rejects.
 */
export function serverExecutable(
  bin: string,
  cwd: string | undefined,
): { command: string; args: string[]; options: { cwd?: string } } {
  return { command: bin, args: ['serve'], options: cwd ? { cwd } : {} };
}
