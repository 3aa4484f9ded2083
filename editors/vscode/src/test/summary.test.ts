import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  advertisesFileSummary,
  FILE_SUMMARY_REQUEST,
  FileSummarySource,
  METHOD_NOT_FOUND,
  parseFileSummary,
  statusCounts,
} from '../summary';

/** A JSON-RPC error as vscode-languageclient rejects with (ResponseError has `code`). */
function rpcError(code: number, message = 'error'): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}

/** A request whose answers the test releases one by one. */
function deferredRequests() {
  const pending: Array<{ uri: string; resolve: (v: unknown) => void; reject: (e: unknown) => void }> = [];
  const request = (uri: string) => new Promise<unknown>((resolve, reject) => pending.push({ uri, resolve, reject }));
  return { pending, request };
}

test('parseFileSummary: {proved, leaks, unproved} as non-negative integers, extra fields ignored', () => {
  assert.deepEqual(parseFileSummary({ proved: 3, leaks: 1, unproved: 2, version: 7 }), { proved: 3, leaks: 1, unproved: 2 });
  assert.equal(parseFileSummary({ proved: 3, leaks: 1 }), undefined);
  assert.equal(parseFileSummary({ proved: -1, leaks: 1, unproved: 0 }), undefined);
  assert.equal(parseFileSummary({ proved: 1.5, leaks: 1, unproved: 0 }), undefined);
  assert.equal(parseFileSummary(null), undefined);
  assert.equal(parseFileSummary('3 proved'), undefined);
});

test('advertisesFileSummary: capabilities.experimental.fileSummaryRequest', () => {
  assert.equal(advertisesFileSummary({ experimental: { fileSummaryRequest: FILE_SUMMARY_REQUEST } }), true);
  assert.equal(advertisesFileSummary({ experimental: { proveRequest: 'reductio/prove' } }), undefined);
  assert.equal(advertisesFileSummary({}), undefined);
  assert.equal(advertisesFileSummary(undefined), undefined);
});

test('a server with the request: its counts, and support becomes yes', async () => {
  const asked: string[] = [];
  const source = new FileSummarySource(async (uri) => {
    asked.push(uri);
    return { proved: 14, leaks: 1, unproved: 0 };
  });
  assert.equal(source.support, 'unknown');
  assert.deepEqual(await source.get('file:///a.c'), { kind: 'counts', counts: { proved: 14, leaks: 1, unproved: 0 } });
  assert.equal(source.support, 'yes');
  assert.deepEqual(asked, ['file:///a.c']);
});

test('MethodNotFound: unsupported, and the server is not asked again', async () => {
  let asked = 0;
  const source = new FileSummarySource(async () => {
    asked++;
    throw rpcError(METHOD_NOT_FOUND, 'Method not found');
  });
  assert.deepEqual(await source.get('file:///a.c'), { kind: 'unsupported' });
  assert.equal(source.support, 'no');
  assert.deepEqual(await source.get('file:///b.c'), { kind: 'unsupported' });
  assert.equal(asked, 1);
});

test('cancelled or content modified: no answer this time, support unchanged; other errors are reported', async () => {
  for (const code of [-32800, -32801, -32802]) {
    const source = new FileSummarySource(async () => {
      throw rpcError(code);
    });
    assert.deepEqual(await source.get('file:///a.c'), { kind: 'none' });
    assert.equal(source.support, 'unknown');
  }
  const broken = new FileSummarySource(async () => {
    throw rpcError(-32603, 'internal error');
  });
  assert.deepEqual(await broken.get('file:///a.c'), { kind: 'none', error: 'internal error' });
  assert.equal(broken.support, 'unknown');
  const odd = new FileSummarySource(async () => ({ proved: 'many' }));
  const answer = await odd.get('file:///a.c');
  assert.equal(answer.kind, 'none');
  assert.match((answer as { error: string }).error, /without \{proved, leaks, unproved\}/);
});

test('advertised: support is yes before the first answer', () => {
  const source = new FileSummarySource(async () => ({ proved: 0, leaks: 0, unproved: 0 }), true);
  assert.equal(source.support, 'yes');
});

test('only the newest request per file is answered; other files are independent', async () => {
  const { pending, request } = deferredRequests();
  const source = new FileSummarySource(request);
  const first = source.get('file:///a.c');
  const second = source.get('file:///a.c');
  const other = source.get('file:///b.c');
  assert.equal(pending.length, 3);
  // The newer answer arrives first, the older one late: the late one must not win.
  pending[1].resolve({ proved: 5, leaks: 0, unproved: 0 });
  pending[0].resolve({ proved: 4, leaks: 1, unproved: 0 });
  pending[2].resolve({ proved: 1, leaks: 0, unproved: 1 });
  assert.deepEqual(await second, { kind: 'counts', counts: { proved: 5, leaks: 0, unproved: 0 } });
  assert.deepEqual(await first, { kind: 'none' });
  assert.deepEqual(await other, { kind: 'counts', counts: { proved: 1, leaks: 0, unproved: 1 } });

  // The older answer first while the newer is still out: the older is dropped too.
  const third = source.get('file:///a.c');
  const fourth = source.get('file:///a.c');
  pending[3].resolve({ proved: 9, leaks: 9, unproved: 9 });
  assert.deepEqual(await third, { kind: 'none' });
  pending[4].resolve({ proved: 6, leaks: 0, unproved: 0 });
  assert.deepEqual(await fourth, { kind: 'counts', counts: { proved: 6, leaks: 0, unproved: 0 } });
});

test('statusCounts: the server counts alone when it has the request', () => {
  const server = { proved: 4, leaks: 0, unproved: 1 };
  // Live diagnostics and an old CLI summary are not mixed in (that was the flicker).
  assert.deepEqual(statusCounts({ support: 'yes', server, cli: { proved: 3, leaks: 1, unproved: 1 }, liveLeaks: 1 }), server);
  assert.deepEqual(statusCounts({ support: 'unknown', server }), server);
  // Before the first answer: the spinner, not a leak count that changes a moment later.
  assert.equal(statusCounts({ support: 'yes', liveLeaks: 1 }), undefined);
  assert.equal(statusCounts({ support: 'unknown', liveLeaks: 1 }), undefined);
});

test('statusCounts: without the request, the CLI summary and the live leak count as before', () => {
  const cli = { proved: 14, leaks: 2, unproved: 3 };
  assert.deepEqual(statusCounts({ support: 'no', cli, liveLeaks: 1 }), { proved: 14, unproved: 3, leaks: 1 });
  assert.deepEqual(statusCounts({ support: 'no', cli }), { proved: 14, unproved: 3, leaks: 2 });
  assert.deepEqual(statusCounts({ support: 'no', liveLeaks: 0 }), { proved: undefined, unproved: undefined, leaks: 0 });
  assert.equal(statusCounts({ support: 'no' }), undefined);
});
