import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countsFor, formatStatus, pendingStatus } from '../status';

test('the status text reads like the issue: ✓ 14 proved · ⚠ 1 leak', () => {
  const s = formatStatus({ proved: 14, leaks: 1, unproved: 0 }, 'list.c');
  assert.equal(s.text, '$(check) 14 proved · $(warning) 1 leak');
  assert.equal(s.tooltip, 'reductio in list.c: 14 probes proved leak-free, 1 leak, 0 unproved. Click to open the Problems view.');
  assert.equal(s.warning, true);
});

test('plural leaks, unproved shown when there are some', () => {
  assert.equal(formatStatus({ proved: 3, leaks: 2, unproved: 5 }).text, '$(check) 3 proved · $(warning) 2 leaks · $(question) 5 unproved');
});

test('no leaks: no warning colour', () => {
  const s = formatStatus({ proved: 1, leaks: 0, unproved: 0 });
  assert.equal(s.text, '$(check) 1 proved · no leaks');
  assert.equal(s.warning, false);
  assert.match(s.tooltip, /1 probe proved leak-free, no leaks/);
});

test('before the first count only the live leak count is shown', () => {
  assert.equal(formatStatus({ leaks: 1 }).text, '$(warning) 1 leak');
});

test('countsFor: live diagnostics win for leaks, the summary gives proved/unproved', () => {
  const summary = { proved: 14, leaks: 2, unproved: 3 };
  assert.deepEqual(countsFor(summary, 1), { proved: 14, unproved: 3, leaks: 1 });
  assert.deepEqual(countsFor(summary, undefined), { proved: 14, unproved: 3, leaks: 2 });
  assert.deepEqual(countsFor(undefined, 0), { proved: undefined, unproved: undefined, leaks: 0 });
  assert.deepEqual(countsFor(undefined, undefined), { proved: undefined, unproved: undefined, leaks: 0 });
});

test('pendingStatus spins', () => {
  assert.equal(pendingStatus('a.c').text, '$(sync~spin) reductio');
  assert.equal(pendingStatus('a.c').tooltip, 'reductio: checking a.c…');
});
