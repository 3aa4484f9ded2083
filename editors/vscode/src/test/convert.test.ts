import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  displayPath,
  dropDiagnosedTraces,
  proveCommandArgs,
  proveParams,
  proveParamsFromArgs,
  resolveVerdictFile,
  toLspPosition,
  verdictRange,
} from '../convert';

const URI = 'file:///src/list.c';

test('proveParams is {textDocument, position} and copies only line/character', () => {
  const pos = { line: 4, character: 8, extra: 1 } as { line: number; character: number };
  assert.deepEqual(proveParams(URI, pos), { textDocument: { uri: URI }, position: { line: 4, character: 8 } });
});

test('reductio.proveNoLeak arguments are [uri, position] and read back', () => {
  const args = proveCommandArgs(URI, { line: 2, character: 0 });
  assert.deepEqual(args, [URI, { line: 2, character: 0 }]);
  // What travels over JSON-RPC is JSON: the round trip must survive serialisation.
  assert.deepEqual(proveParamsFromArgs(JSON.parse(JSON.stringify(args))), proveParams(URI, { line: 2, character: 0 }));
});

test('proveParamsFromArgs accepts {uri} documents, vscode-like Uris and a params object', () => {
  assert.deepEqual(proveParamsFromArgs([{ uri: URI }, { line: 1, character: 2 }]), proveParams(URI, { line: 1, character: 2 }));
  const vscodeUri = { scheme: 'file', toString: () => URI };
  assert.deepEqual(proveParamsFromArgs([vscodeUri, { line: 1, character: 2 }]), proveParams(URI, { line: 1, character: 2 }));
  assert.deepEqual(
    proveParamsFromArgs([{ textDocument: { uri: URI }, position: { line: 3, character: 4 } }]),
    proveParams(URI, { line: 3, character: 4 }),
  );
});

test('proveParamsFromArgs rejects what is not a position', () => {
  assert.equal(proveParamsFromArgs([]), undefined);
  assert.equal(proveParamsFromArgs([URI]), undefined);
  assert.equal(proveParamsFromArgs([URI, { line: -1, character: 0 }]), undefined);
  assert.equal(proveParamsFromArgs([URI, { line: 1.5, character: 0 }]), undefined);
  assert.equal(proveParamsFromArgs([42, { line: 1, character: 0 }]), undefined);
  assert.equal(proveParamsFromArgs([URI, [1, 2]]), undefined);
});

test('1-based verdict lines and columns become 0-based positions', () => {
  assert.deepEqual(toLspPosition(25, 9), { line: 24, character: 8 });
  assert.deepEqual(toLspPosition(0, 0), { line: 0, character: 0 });
});

test('verdictRange: end_column is exclusive, so `return -1;` at 25:9-19 covers 10 characters', () => {
  assert.deepEqual(verdictRange({ line: 25, column: 9, end_line: 25, end_column: 19 }), {
    start: { line: 24, character: 8 },
    end: { line: 24, character: 18 },
  });
  // A backwards range collapses to its start rather than confusing the editor.
  assert.deepEqual(verdictRange({ line: 5, column: 9, end_line: 4, end_column: 1 }), {
    start: { line: 4, character: 8 },
    end: { line: 4, character: 8 },
  });
});

test('verdict files: absolute ones pass, relative ones are taken from the check directory', () => {
  assert.equal(resolveVerdictFile('/a/b/../c.c', '/w'), '/a/c.c');
  assert.equal(resolveVerdictFile('src/list.c', '/w'), '/w/src/list.c');
  assert.equal(displayPath('/w/src/list.c', '/w'), 'src/list.c');
  assert.equal(displayPath('/elsewhere/x.c', '/w'), '/elsewhere/x.c');
  assert.equal(displayPath('/w/x.c', undefined), '/w/x.c');
});

test('dropDiagnosedTraces keeps only the message line of the leaks VS Code already shows', () => {
  const hover =
    '**reductio**\n\n' +
    '`copy` leaks: allocated at line 21, last reference lost here (return-local)  \n1. line 21: allocated  \n2. line 25: lost\n\n' +
    '`p` leaks: allocated at line 3, last reference lost here (assignment)  \n1. line 3: allocated';
  assert.equal(
    dropDiagnosedTraces(hover, ['`copy` leaks: allocated at line 21, last reference lost here']),
    '**reductio**\n\n' +
      '`copy` leaks: allocated at line 21, last reference lost here (return-local)\n\n' +
      '`p` leaks: allocated at line 3, last reference lost here (assignment)  \n1. line 3: allocated',
  );
  assert.equal(dropDiagnosedTraces(hover, []), hover);
});

test('dropDiagnosedTraces in the two-part hover: the leak under the cursor loses its trace, the rest stays', () => {
  const hover =
    '**reductio**\n\n' +
    '**The value overwritten here:**\n' +
    '`copy` leaks: allocated at line 21, last reference lost here (return-local)  \n1. line 21: allocated by `malloc`  \n2. line 25: `copy` goes out of scope\n' +
    'proved leak-free: assuming `q` held the last reference, line 9 freed here (return-local)  \n1. line 9: freed here\n\n' +
    '**The memory assigned here:**\n' +
    'no assignment here';
  assert.equal(
    dropDiagnosedTraces(hover, ['`copy` leaks: allocated at line 21, last reference lost here']),
    '**reductio**\n\n' +
      '**The value overwritten here:**\n' +
      '`copy` leaks: allocated at line 21, last reference lost here (return-local)  \n' +
      'proved leak-free: assuming `q` held the last reference, line 9 freed here (return-local)  \n1. line 9: freed here\n\n' +
      '**The memory assigned here:**\n' +
      'no assignment here',
  );
});
