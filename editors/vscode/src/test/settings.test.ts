import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  affectsServerSettings,
  configurationPayload,
  fromInspect,
  SETTING_KEYS,
  SettingValue,
  toServerSettings,
} from '../settings';

function reader(set: Record<string, unknown>): (key: string) => SettingValue {
  return (key) => (key in set ? { value: set[key], isSet: true } : { value: undefined, isSet: false });
}

test('unset settings are not sent, so reductio.toml keeps its say', () => {
  assert.deepEqual(toServerSettings(reader({})), { settings: {}, problems: [] });
});

test('every setting maps to its reductio.toml key', () => {
  const { settings, problems } = toServerSettings(
    reader({
      allocators: ['xmalloc', ' pool_alloc ', ''],
      deallocators: ['xfree'],
      noreturn: ['fatal'],
      unknownCallsEscape: false,
      exclude: ['third_party/**'],
      checkOn: 'change',
      'budget.transfers': 100,
      'budget.regions': 20.7,
      debounceMs: 50,
    }),
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(settings, {
    allocators: ['xmalloc', 'pool_alloc'],
    deallocators: ['xfree'],
    noreturn: ['fatal'],
    'unknown-calls-escape': false,
    exclude: ['third_party/**'],
    'check-on': 'change',
    budget: { transfers: 100, regions: 20 },
    'debounce-ms': 50,
  });
  // What the server receives is JSON with exactly the keys the server accepts (reductio.toml keys, plus debounce-ms).
  assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(settings))).sort(), [
    'allocators',
    'budget',
    'check-on',
    'deallocators',
    'debounce-ms',
    'exclude',
    'noreturn',
    'unknown-calls-escape',
  ]);
});

test('one budget key alone is sent alone', () => {
  assert.deepEqual(toServerSettings(reader({ 'budget.regions': 5 })).settings, { budget: { regions: 5 } });
});

test('bad values are reported and not sent', () => {
  const { settings, problems } = toServerSettings(
    reader({ allocators: 'xmalloc', checkOn: 'never', unknownCallsEscape: 'yes', 'budget.transfers': 0, debounceMs: -1 }),
  );
  assert.deepEqual(settings, {});
  assert.deepEqual(problems, [
    'reductio.allocators must be a list of strings',
    'reductio.unknownCallsEscape must be true or false',
    'reductio.checkOn must be "save" or "change"',
    'reductio.budget.transfers must be a whole number of at least 1',
    'reductio.debounceMs must be a number of milliseconds',
  ]);
});

test('fromInspect: folder beats workspace beats user; a default is not "set"', () => {
  assert.deepEqual(fromInspect({ defaultValue: 500 }), { value: 500, isSet: false });
  assert.deepEqual(fromInspect({ defaultValue: 500, globalValue: 100 }), { value: 100, isSet: true });
  assert.deepEqual(fromInspect({ globalValue: 100, workspaceValue: 200 }), { value: 200, isSet: true });
  assert.deepEqual(fromInspect({ workspaceValue: 200, workspaceFolderValue: 300 }), { value: 300, isSet: true });
  assert.deepEqual(fromInspect({ defaultValue: true, globalValue: false }), { value: false, isSet: true });
  assert.deepEqual(fromInspect(undefined), { value: undefined, isSet: false });
});

test('affectsServerSettings sees every mapped key but not reductio.path', () => {
  for (const [key] of SETTING_KEYS) {
    assert.equal(affectsServerSettings((s) => s === `reductio.${key}`), true, key);
  }
  assert.equal(affectsServerSettings((s) => s === 'reductio.path'), false);
});

test('didChangeConfiguration carries the same object as initializationOptions', () => {
  const { settings } = toServerSettings(reader({ allocators: ['xmalloc'] }));
  assert.deepEqual(configurationPayload(settings), { settings: { allocators: ['xmalloc'] } });
});
