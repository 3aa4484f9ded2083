// The extension manifest against the source: every command the code registers is contributed,
// the context menu has "Prove no leak here" for C, and every server setting is documented.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { SETTING_KEYS } from '../settings';

const ROOT = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const source = fs.readFileSync(path.join(ROOT, 'src/extension.ts'), 'utf8');

test('every registered command is contributed with a title, and vice versa', () => {
  const registered = [...source.matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1]).sort();
  const contributed = pkg.contributes.commands.map((c: { command: string }) => c.command).sort();
  assert.deepEqual(registered, contributed);
  for (const c of pkg.contributes.commands) {
    assert.ok(c.title && c.category === 'reductio', c.command);
  }
});

test('the three commands of the issue have the right titles', () => {
  const title = (id: string) => pkg.contributes.commands.find((c: { command: string }) => c.command === id)?.title;
  assert.equal(title('reductio.proveHere'), 'Prove no leak here');
  assert.equal(title('reductio.checkWorkspace'), 'Check workspace for leaks');
  assert.equal(title('reductio.showTrace'), 'Show leak trace');
});

test('"Prove no leak here" is in the editor context menu for C only', () => {
  const entry = pkg.contributes.menus['editor/context'].find((m: { command: string }) => m.command === 'reductio.proveHere');
  assert.ok(entry);
  assert.equal(entry.when, 'editorLangId == c');
});

test('the client command does not collide with the server command the client registers itself', () => {
  // vscode-languageclient registers the server's executeCommand ids (reductio.proveNoLeak).
  const ids = pkg.contributes.commands.map((c: { command: string }) => c.command);
  assert.ok(!ids.includes('reductio.proveNoLeak'));
  assert.ok(!/registerCommand\('reductio\.proveNoLeak'/.test(source));
});

test('every server setting is contributed with a description', () => {
  const props = pkg.contributes.configuration.properties;
  for (const [key] of SETTING_KEYS) {
    const p = props[`reductio.${key}`];
    assert.ok(p, `reductio.${key} is contributed`);
    assert.ok((p.markdownDescription ?? p.description ?? '').length > 20, `reductio.${key} has a description`);
  }
  assert.equal(props['reductio.path'].default, '');
  assert.deepEqual(props['reductio.checkOn'].enum, ['save', 'change']);
  assert.equal(props['reductio.budget.transfers'].default, 500);
  assert.equal(props['reductio.budget.regions'].default, 50);
  assert.equal(props['reductio.unknownCallsEscape'].default, true);
});

test('activation, entry point and engine', () => {
  assert.ok(pkg.activationEvents.includes('onLanguage:c'));
  // A folder with C files starts the server when it opens, not when the first C file does:
  // by then its diagnostics are there.
  assert.ok(pkg.activationEvents.includes('workspaceContains:**/*.c'));
  assert.equal(pkg.main, './dist/extension.js');
  assert.equal(pkg.engines.vscode, '^1.90.0');
  assert.equal(pkg.dependencies['vscode-languageclient'], '9.0.1');
});
