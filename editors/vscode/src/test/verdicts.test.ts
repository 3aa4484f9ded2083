import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assignedLeak,
  byConcern,
  formatAssignedDetails,
  parseAssigned,
  summarizeProveBoth,
  formatTrace,
  formatVerdictDetails,
  parseVerdicts,
  reasonLabel,
  summarizeProve,
  traceTitle,
  verdictClause,
} from '../verdicts';
import { ALLOCATION_ANSWER, LEAK_ANSWER, PROVED_ANSWER } from './fixtures';

test('parseVerdicts reads the prove answer with every field', () => {
  const vs = parseVerdicts(LEAK_ANSWER)!;
  assert.equal(vs.length, 2);
  assert.equal(vs[0].verdict, 'leak');
  assert.equal(vs[0].variable, 'copy');
  assert.equal(vs[0].end_column, 19);
  assert.deepEqual(vs[0].allocation, [
    { file: 'test-fixtures/idioms/error-path-leak.c', line: 21, column: 5, function: 'packet_checksum' },
  ]);
  assert.equal(vs[0].trace.length, 4);
  assert.equal(vs[1].reason, 'input-dependent');
  assert.equal(vs[0].reason, undefined);
});

test('parseVerdicts accepts a bare array, and tells "no list" from "empty list"', () => {
  assert.equal(parseVerdicts(LEAK_ANSWER.verdicts)!.length, 2);
  assert.deepEqual(parseVerdicts({ verdicts: [] }), []);
  assert.equal(parseVerdicts(null), undefined);
  assert.equal(parseVerdicts({ applied: true }), undefined);
  assert.equal(parseVerdicts('proved'), undefined);
});

test('parseVerdicts drops malformed entries instead of throwing', () => {
  const vs = parseVerdicts({
    verdicts: [
      { verdict: 'maybe', file: 'a.c', line: 1 },
      { verdict: 'leak' },
      { verdict: 'proved', file: 'a.c', line: 3, trace: [{ file: 'a.c' }, { file: 'a.c', line: 2, note: 'x' }] },
    ],
  })!;
  assert.equal(vs.length, 1);
  assert.equal(vs[0].column, 1);
  assert.equal(vs[0].end_line, 3);
  assert.deepEqual(vs[0].trace, [{ file: 'a.c', line: 2, column: 1, note: 'x' }]);
});

test('byConcern puts leaks first, then unproved, then proved, keeping order within a kind', () => {
  const [leak, unproved] = parseVerdicts(LEAK_ANSWER)!;
  const [proved] = parseVerdicts(PROVED_ANSWER)!;
  const proved2 = { ...proved, variable: 'q' };
  assert.deepEqual(
    byConcern([proved, unproved, proved2, leak]).map((v) => v.variable),
    ['copy', 'pkt', 'copy', 'q'],
  );
  assert.deepEqual(byConcern([proved, unproved, leak]).map((v) => v.verdict), ['leak', 'unproved', 'proved']);
});

test('summarizeProve: a leak leads with the leak message and mentions the rest', () => {
  const s = summarizeProve(parseVerdicts(LEAK_ANSWER)!);
  assert.equal(s.outcome, 'leak');
  assert.equal(
    s.text,
    '`copy` leaks: allocated at line 21, last reference lost here.' +
      ' Also: `pkt` unproved (depends on the callers).',
  );
});

test('summarizeProve: a proof says where the assumption was contradicted', () => {
  const s = summarizeProve(parseVerdicts(PROVED_ANSWER)!);
  assert.equal(s.outcome, 'proved');
  assert.equal(s.text, 'No leak here: `copy` proved leak-free (line 24: `free(copy)` frees it).');
});

test('summarizeProve: proved plus unproved is "not proved", unproved first', () => {
  const [, unproved] = parseVerdicts(LEAK_ANSWER)!;
  const [proved] = parseVerdicts(PROVED_ANSWER)!;
  const s = summarizeProve([proved, unproved]);
  assert.equal(s.outcome, 'unproved');
  assert.equal(
    s.text,
    'Not proved: `pkt` unproved (depends on the callers); `copy` proved leak-free (line 24: `free(copy)` frees it).',
  );
});

test('summarizeProve: no probe at the position says where probes are', () => {
  const s = summarizeProve([]);
  assert.equal(s.outcome, 'none');
  assert.match(s.text, /^No leak probe here: .*pointer assignments, allocations, frees, returns and block ends/);
});

test('verdictClause counts the other contradicted paths of a proof', () => {
  const [proved] = parseVerdicts(PROVED_ANSWER)!;
  const two = { ...proved, trace: [...proved.trace, { file: 'x.c', line: 30, column: 1, note: 'n' }] };
  assert.equal(verdictClause(two), '`copy` proved leak-free (line 24: `free(copy)` frees it, and 1 other path)');
  assert.equal(verdictClause({ ...proved, trace: [] }), '`copy` proved leak-free');
});

test('reasonLabel names the documented reasons and passes others through', () => {
  assert.equal(reasonLabel('input-dependent'), 'depends on the callers');
  assert.equal(reasonLabel('budget'), 'the probe ran out of budget');
  assert.equal(reasonLabel('unsupported'), 'unsupported construct');
  assert.equal(reasonLabel('something-new'), 'something-new');
  assert.equal(reasonLabel(undefined), 'no reason given');
});

test('formatTrace numbers the steps in order, with paths made relative', () => {
  const [leak] = parseVerdicts(LEAK_ANSWER)!;
  assert.deepEqual(formatTrace(leak.trace, (f) => f.replace('test-fixtures/idioms/', '')), [
    '1. error-path-leak.c:21:5  allocated by `malloc`',
    '2. error-path-leak.c:22:9  branch taken: `copy != NULL`',
    '3. error-path-leak.c:24:9  branch taken: `pkt->len < 0`',
    '4. error-path-leak.c:25:9  `copy` goes out of scope',
  ]);
});

test('formatVerdictDetails shows message, allocation path, reason and trace', () => {
  const [leak, unproved] = parseVerdicts(LEAK_ANSWER)!;
  const r = (f: string) => f.replace('test-fixtures/idioms/', '');
  assert.equal(
    formatVerdictDetails(leak, r),
    [
      'leak: `copy` (return-local) at error-path-leak.c:25:9 in packet_checksum',
      '  `copy` leaks: allocated at line 21, last reference lost here',
      '  allocation: error-path-leak.c:21:5 (packet_checksum)',
      '  trace:',
      '    1. error-path-leak.c:21:5  allocated by `malloc`',
      '    2. error-path-leak.c:22:9  branch taken: `copy != NULL`',
      '    3. error-path-leak.c:24:9  branch taken: `pkt->len < 0`',
      '    4. error-path-leak.c:25:9  `copy` goes out of scope',
    ].join('\n'),
  );
  assert.match(formatVerdictDetails(unproved, r), /\n {2}reason: input-dependent \(depends on the callers\)$/);
  const [proved] = parseVerdicts(PROVED_ANSWER)!;
  assert.match(formatVerdictDetails(proved, r), /contradicted at:\n {4}1\. error-path-ok\.c:24:9 {2}`free\(copy\)` frees it/);
});

test('traceTitle', () => {
  const [leak] = parseVerdicts(LEAK_ANSWER)!;
  const [proved] = parseVerdicts(PROVED_ANSWER)!;
  assert.equal(traceTitle(leak), 'reductio: leak trace of `copy` (4 steps)');
  assert.equal(traceTitle(proved), 'reductio: where `copy` is contradicted');
});

test('at an allocation the answer has two labelled parts, the memory assigned naming the leak at line 25', () => {
  const verdicts = parseVerdicts(ALLOCATION_ANSWER)!;
  const assigned = parseAssigned(ALLOCATION_ANSWER)!;
  assert.equal(assigned.length, 1);
  assert.equal(assigned[0].summary, 'leaks at line 25');
  assert.deepEqual(
    assigned[0].paths.map((p) => [p.line, p.kind]),
    [[22, 'null'], [25, 'leak'], [30, 'freed']],
  );
  const s = summarizeProveBoth(verdicts, assigned);
  assert.equal(s.outcome, 'leak');
  assert.match(s.text, /^The value overwritten here: No leak here: `copy` proved leak-free .*\. The memory assigned here: `copy` \(line 21\) leaks at line 25\.$/);
  // The trace offered is the assigned block's: from the allocation to the early return.
  assert.deepEqual(assignedLeak(assigned)!.trace.map((t) => t.line), [21, 22, 24, 25]);
  const details = formatAssignedDetails(assigned[0]);
  assert.match(details, /^memory assigned to `copy` at test-fixtures\/idioms\/error-path-leak.c:21:5: leaks at line 25\n/);
  assert.match(details, /\n  leak: test-fixtures\/idioms\/error-path-leak.c:25:9  `copy` goes out of scope: leaks\n    1\. /);
});

test('no assignment, or an older server without the list, reads clearly', () => {
  const verdicts = parseVerdicts(LEAK_ANSWER)!;
  assert.equal(parseAssigned(LEAK_ANSWER), undefined);
  // At a return: only its probes answer, worded as before.
  assert.deepEqual(summarizeProveBoth(verdicts, []), summarizeProve(verdicts));
  assert.equal(summarizeProveBoth([], []).outcome, 'none');
  assert.match(summarizeProveBoth([], []).text, /^No leak probe or assignment here: /);
  assert.deepEqual(parseAssigned({ verdicts: [], assigned: [{ verdict: 'maybe', line: 1 }, 7] }), []);
});
