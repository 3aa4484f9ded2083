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

/** What `vscode.env.remoteName` says about where the extension (and so the server) runs. */
const REMOTE_HOSTS: Record<string, string> = {
  'ssh-remote': 'the SSH host',
  wsl: 'the WSL distribution',
  'dev-container': 'the dev container',
  'attached-container': 'the container',
  codespaces: 'the codespace',
  tunnel: "the tunnel's machine",
};

/** The machine `reductio` must be installed on, for the messages. */
export function hostLabel(remoteName: string | undefined): string | undefined {
  if (!remoteName) {
    return undefined;
  }
  return REMOTE_HOSTS[remoteName] ?? `the remote machine (${remoteName})`;
}

/**
 * Where the PATH searched for `reductio` comes from. In a remote window (Remote-SSH, WSL,
 * containers, Codespaces, tunnels) the extension runs on the remote machine, in the VS Code
 * server's environment, which comes from the remote user's login shell when the server starts.
 */
export function pathOrigin(remoteName: string | undefined, platform: NodeJS.Platform = process.platform): string {
  const host = hostLabel(remoteName);
  if (host) {
    return (
      `This window is remote: the server runs on ${host}, with the PATH the VS Code server there ` +
      'got from the login shell (~/.profile, ~/.bash_profile or ~/.zprofile, not only ~/.bashrc).'
    );
  }
  if (platform === 'win32') {
    return "PATH is VS Code's own, from the user and system environment variables when it started.";
  }
  return (
    "PATH is VS Code's own: from your login shell when VS Code was launched from the desktop, " +
    'from the terminal when it was started with `code`.'
  );
}

/** The setting, as the Settings editor's search finds it. */
export const PATH_SETTING_QUERY = '@id:reductio.path';

/**
 * The command that opens the Settings editor on `reductio.path`. The setting is per machine:
 * in a remote window its value belongs to the Remote tab (the User tab holds the local
 * machine's), so the remote settings open there. Both commands take `{query}`
 * (`workbench.action.openRemoteSettings` ignores a plain string).
 */
export function openPathSettingCommand(remoteName: string | undefined): { command: string; arg: { query: string } } {
  return {
    command: remoteName ? 'workbench.action.openRemoteSettings' : 'workbench.action.openSettings',
    arg: { query: PATH_SETTING_QUERY },
  };
}

/**
 * Resolves the server binary. `configured` is the `reductio.path` setting (empty: search PATH);
 * `~` at its start is the home directory, and a relative path is taken from `cwd` (the first
 * workspace folder).
 */
export function resolveServer(
  configured: string,
  env: { PATH?: string; PATHEXT?: string; HOME?: string },
  opts: { platform?: NodeJS.Platform; cwd?: string; exists?: Exists; remoteName?: string } = {},
): Resolved {
  const platform = opts.platform ?? process.platform;
  const exists = opts.exists ?? isExecutableFile;
  const p = platform === 'win32' ? path.win32 : path.posix;
  const setting = configured.trim();
  const host = hostLabel(opts.remoteName);

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
            message:
              `reductio: \`reductio.path\` is set to ${setting}, but no executable file is there` +
              `${host ? ` on ${host} (this window is remote: the path is on that machine)` : ''}. ${INSTALL_HINT}`,
          };
    }
    // A bare name: look it up on PATH like the default.
    return searchPath(file, env, platform, exists, opts.remoteName);
  }
  return searchPath('reductio', env, platform, exists, opts.remoteName);
}

function searchPath(
  name: string,
  env: { PATH?: string; PATHEXT?: string },
  platform: NodeJS.Platform,
  exists: Exists,
  remoteName: string | undefined,
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
    message: `reductio: the language server \`${name}\` was not found on PATH. ${pathOrigin(remoteName, platform)} ${INSTALL_HINT}`,
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
