import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { checkArgs, formatCheckSummary, groupByFile, parseCheckReport, runCheck } from '../check';
import { LEAK_ANSWER } from './fixtures';

const REPO = path.resolve(__dirname, '../../../..');
const BIN = process.env.REDUCTIO_BIN;

test('parseCheckReport reads version 1 with summary and findings', () => {
  const json = JSON.stringify({
    version: 1,
    summary: { files: 1, functions: 1, probes: 7, proved: 3, leaks: 1, unproved: 3, elapsed_ms: 2 },
    findings: LEAK_ANSWER.verdicts,
  });
  const r = parseCheckReport(json);
  assert.deepEqual(r.summary, { files: 1, functions: 1, probes: 7, proved: 3, leaks: 1, unproved: 3, elapsed_ms: 2 });
  assert.equal(r.findings.length, 2);
  assert.equal(r.findings[0].trace[3].note, '`copy` goes out of scope');
});

test('parseCheckReport refuses what is not the documented JSON', () => {
  assert.throws(() => parseCheckReport('warning[leak]: ...'), /not JSON/);
  assert.throws(() => parseCheckReport('{"version":1}'), /no summary/);
  assert.throws(() => parseCheckReport('{"version":2,"summary":{}}'), /unknown JSON version 2/);
});

test('groupByFile keeps order', () => {
  const a = { ...LEAK_ANSWER.verdicts[0], file: 'a.c' };
  const b = { ...LEAK_ANSWER.verdicts[0], file: 'b.c' };
  const g = groupByFile(parseCheckReport(JSON.stringify({ version: 1, summary: {}, findings: [a, b, a] })).findings);
  assert.deepEqual([...g.keys()], ['a.c', 'b.c']);
  assert.equal(g.get('a.c')!.length, 2);
});

test('formatCheckSummary and checkArgs', () => {
  assert.equal(
    formatCheckSummary({ files: 3, probes: 40, proved: 35, leaks: 2, unproved: 3 }),
    'reductio: 2 leaks in 3 files (35 proved, 3 unproved, 40 probes).',
  );
  assert.equal(formatCheckSummary({ files: 1, probes: 1, proved: 1, leaks: 1, unproved: 0 }), 'reductio: 1 leak in 1 file (1 proved, 0 unproved, 1 probes).');
  assert.deepEqual(checkArgs(['.'], true), ['check', '--format', 'json', '--all', '.']);
  assert.deepEqual(checkArgs(['a.c', 'b.c'], false), ['check', '--format', 'json', 'a.c', 'b.c']);
});

// The real CLI: the JSON contract the status bar and "Check workspace for leaks" rely on.
test('runCheck against the real reductio binary', { skip: BIN ? false : 'REDUCTIO_BIN is not set' }, async () => {
  const r = await runCheck(BIN!, ['test-fixtures/idioms/error-path-leak.c'], { cwd: REPO, all: true, timeoutMs: 60_000 });
  assert.equal(r.summary.files, 1);
  assert.equal(r.summary.leaks, 1);
  assert.ok(r.summary.proved >= 1, 'some probes are proved');
  const leak = r.findings.find((f) => f.verdict === 'leak')!;
  assert.equal(leak.line, 25);
  assert.equal(leak.variable, 'copy');
  assert.deepEqual(leak.trace.map((s) => s.line), [21, 22, 24, 25]);
  assert.equal(leak.trace[0].note, 'allocated by `malloc`');

  const ok = await runCheck(BIN!, ['test-fixtures/idioms/error-path-ok.c'], { cwd: REPO, timeoutMs: 60_000 });
  assert.equal(ok.summary.leaks, 0);
  assert.deepEqual(ok.findings, []);

  await assert.rejects(runCheck(BIN!, ['no/such/file.c'], { cwd: REPO, timeoutMs: 60_000 }), /file\.c/);
});
