import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostLabel, openPathSettingCommand, pathOrigin, PATH_SETTING_QUERY, resolveServer, serverExecutable } from '../binary';

const files = new Set(['/usr/local/bin/reductio', '/home/u/.cargo/bin/reductio', '/opt/r/reductio', '/w/target/release/reductio']);
const exists = (f: string) => files.has(f);

test('default: the first reductio on PATH', () => {
  const r = resolveServer('', { PATH: '/usr/bin:/home/u/.cargo/bin:/usr/local/bin' }, { platform: 'linux', exists });
  assert.deepEqual(r, { ok: true, path: '/home/u/.cargo/bin/reductio' });
});

test('missing binary: a message that says how to install it', () => {
  const r = resolveServer('', { PATH: '/usr/bin' }, { platform: 'linux', exists });
  assert.equal(r.ok, false);
  assert.match((r as { message: string }).message, /`reductio` was not found on PATH\. .* Install it with `cargo install --path server`.*`reductio.path`/);
});

test('missing binary: the message says where PATH comes from, locally and in remote windows', () => {
  const local = (resolveServer('', { PATH: '/usr/bin' }, { platform: 'linux', exists }) as { message: string }).message;
  assert.match(local, /not found on PATH\. PATH is VS Code's own: from your login shell when VS Code was launched from the desktop, from the terminal when it was started with `code`\./);
  assert.ok(!/remote/.test(local), local);
  const ssh = (resolveServer('', { PATH: '/usr/bin' }, { platform: 'linux', exists, remoteName: 'ssh-remote' }) as { message: string }).message;
  assert.match(ssh, /not found on PATH\. This window is remote: the server runs on the SSH host, with the PATH the VS Code server there got from the login shell \(~\/\.profile, ~\/\.bash_profile or ~\/\.zprofile, not only ~\/\.bashrc\)\. Install it/);
  assert.match(pathOrigin('wsl'), /runs on the WSL distribution/);
  assert.match(pathOrigin('codespaces'), /runs on the codespace/);
  assert.match(pathOrigin('some-new-remote'), /runs on the remote machine \(some-new-remote\)/);
  assert.match(pathOrigin(undefined, 'win32'), /user and system environment variables/);
  assert.equal(hostLabel(undefined), undefined);
  assert.equal(hostLabel(''), undefined);
});

test('reductio.path pointing nowhere in a remote window: the path is on the remote machine', () => {
  const r = resolveServer('/opt/nope/reductio', {}, { platform: 'linux', exists, remoteName: 'dev-container' });
  assert.match((r as { message: string }).message, /is set to \/opt\/nope\/reductio, but no executable file is there on the dev container \(this window is remote: the path is on that machine\)\./);
});

test('"Open Settings" opens reductio.path in the Remote tab of a remote window, else the User settings', () => {
  assert.deepEqual(openPathSettingCommand(undefined), { command: 'workbench.action.openSettings', arg: { query: '@id:reductio.path' } });
  assert.deepEqual(openPathSettingCommand('ssh-remote'), {
    command: 'workbench.action.openRemoteSettings',
    arg: { query: '@id:reductio.path' },
  });
  // openRemoteSettings takes {query} only (a plain string is dropped), openSettings either.
  assert.equal(typeof openPathSettingCommand('wsl').arg, 'object');
  assert.equal(PATH_SETTING_QUERY, '@id:reductio.path');
});

test('reductio.path: absolute, ~, relative to the workspace, or a bare name on PATH', () => {
  assert.deepEqual(resolveServer('/opt/r/reductio', {}, { platform: 'linux', exists }), { ok: true, path: '/opt/r/reductio' });
  assert.deepEqual(resolveServer('~/.cargo/bin/reductio', { HOME: '/home/u' }, { platform: 'linux', exists }), {
    ok: true,
    path: '/home/u/.cargo/bin/reductio',
  });
  assert.deepEqual(resolveServer('target/release/reductio', {}, { platform: 'linux', cwd: '/w', exists }), {
    ok: true,
    path: '/w/target/release/reductio',
  });
  assert.deepEqual(resolveServer('reductio', { PATH: '/usr/local/bin' }, { platform: 'linux', exists }), {
    ok: true,
    path: '/usr/local/bin/reductio',
  });
});

test('reductio.path pointing nowhere names the setting', () => {
  const r = resolveServer('/nope/reductio', { PATH: '/usr/local/bin' }, { platform: 'linux', exists });
  assert.equal(r.ok, false);
  assert.match((r as { message: string }).message, /`reductio.path` is set to \/nope\/reductio, but no executable file is there/);
});

test('Windows: PATHEXT and ; separators', () => {
  const win = new Set(['C:\\tools\\reductio.exe']);
  const r = resolveServer('', { PATH: 'C:\\bin;C:\\tools', PATHEXT: '.COM;.EXE' }, { platform: 'win32', exists: (f) => win.has(f) });
  assert.deepEqual(r, { ok: true, path: 'C:\\tools\\reductio.exe' });
});

test('the server is started as `reductio serve`, with no --stdio (no transport field)', () => {
  const exe = serverExecutable('/usr/local/bin/reductio', '/w');
  assert.deepEqual(exe, { command: '/usr/local/bin/reductio', args: ['serve'], options: { cwd: '/w' } });
  assert.ok(!('transport' in exe), 'vscode-languageclient appends --stdio when transport is stdio');
  assert.deepEqual(serverExecutable('reductio', undefined).options, {});
});
