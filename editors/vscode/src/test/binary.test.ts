import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveServer, serverExecutable } from '../binary';

const files = new Set(['/usr/local/bin/reductio', '/home/u/.cargo/bin/reductio', '/opt/r/reductio', '/w/target/release/reductio']);
const exists = (f: string) => files.has(f);

test('default: the first reductio on PATH', () => {
  const r = resolveServer('', { PATH: '/usr/bin:/home/u/.cargo/bin:/usr/local/bin' }, { platform: 'linux', exists });
  assert.deepEqual(r, { ok: true, path: '/home/u/.cargo/bin/reductio' });
});

test('missing binary: a message that says how to install it', () => {
  const r = resolveServer('', { PATH: '/usr/bin' }, { platform: 'linux', exists });
  assert.equal(r.ok, false);
  assert.match((r as { message: string }).message, /`reductio` was not found on PATH\. Install it with `cargo install --path server`.*`reductio.path`/);
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
