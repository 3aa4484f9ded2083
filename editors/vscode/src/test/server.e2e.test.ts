// End to end against the real `reductio serve`, over the same JSON-RPC library
// (vscode-languageserver-protocol, which vscode-languageclient runs on) and with the
// extension's own settings mapping, argument conversion and verdict formatting.
// VS Code itself is not needed: this is what the extension sends and what it reads back.
// Runs when REDUCTIO_BIN names the binary (editors/test.sh sets it).

import assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
  CodeActionRequest,
  createProtocolConnection,
  Diagnostic,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DidSaveTextDocumentNotification,
  ExecuteCommandRequest,
  ExitNotification,
  HoverRequest,
  InitializeRequest,
  InitializeResult,
  InitializedNotification,
  ProtocolConnection,
  PublishDiagnosticsNotification,
  PublishDiagnosticsParams,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import { dropDiagnosedTraces, proveCommandArgs, proveParams, proveParamsFromArgs, toLspPosition } from '../convert';
import { runCheck } from '../check';
import { configurationPayload, SettingValue, toServerSettings } from '../settings';
import { advertisesFileSummary, FILE_SUMMARY_REQUEST, FileSummarySource, statusCounts } from '../summary';
import { assignedLeak, parseAssigned, parseVerdicts, summarizeProve, summarizeProveBoth } from '../verdicts';

const BIN = process.env.REDUCTIO_BIN;
const REPO = path.resolve(__dirname, '../../../..');
const FIXTURES = path.join(REPO, 'test-fixtures/idioms');
const LEAK_FILE = path.join(FIXTURES, 'error-path-leak.c');
const OK_FILE = path.join(FIXTURES, 'error-path-ok.c');
const LEAK_URI = pathToFileURL(LEAK_FILE).href;
const OK_URI = pathToFileURL(OK_FILE).href;
const TIMEOUT = 20_000;

/** The settings a user would have set in VS Code, mapped the way the extension maps them. */
const USER_SETTINGS: Record<string, unknown> = { allocators: ['xmalloc'], 'budget.transfers': 500 };
const reader = (key: string): SettingValue =>
  key in USER_SETTINGS ? { value: USER_SETTINGS[key], isSet: true } : { value: undefined, isSet: false };

/** 1-based line of the first line of `file` containing `needle`. */
function lineOf(file: string, needle: string): number {
  const i = fs.readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `${needle} in ${file}`);
  return i + 1;
}

class Server {
  readonly child: ChildProcess;
  readonly conn: ProtocolConnection;
  readonly stderr: string[] = [];
  private waiters: Array<{ uri: string; pred: (p: PublishDiagnosticsParams) => boolean; resolve: (p: PublishDiagnosticsParams) => void }> = [];
  readonly published = new Map<string, PublishDiagnosticsParams>();
  /** Rejects when the process exits: races every wait so a crash fails fast with its stderr. */
  readonly died: Promise<never>;
  exitCode: number | null | undefined;

  constructor(bin: string) {
    this.child = spawn(bin, ['serve'], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr!.on('data', (b: Buffer) => this.stderr.push(b.toString()));
    this.died = new Promise<never>((_, reject) => {
      this.child.once('exit', (code, signal) => {
        this.exitCode = code;
        reject(new Error(`reductio serve exited (code ${code}, signal ${signal}); stderr:\n${this.stderr.join('')}`));
      });
    });
    this.died.catch(() => {});
    this.conn = createProtocolConnection(
      new StreamMessageReader(this.child.stdout!),
      new StreamMessageWriter(this.child.stdin!),
    );
    this.conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
      this.published.set(p.uri, p);
      this.waiters = this.waiters.filter((w) => {
        if (w.uri === p.uri && w.pred(p)) {
          w.resolve(p);
          return false;
        }
        return true;
      });
    });
    // What vscode-languageclient answers to the server's own requests.
    this.conn.onRequest('workspace/configuration', (p: { items: Array<{ section?: string }> }) =>
      p.items.map((i) => (i.section === 'reductio' ? toServerSettings(reader).settings : null)),
    );
    this.conn.onRequest('window/workDoneProgress/create', () => null);
    this.conn.onRequest('client/registerCapability', () => null);
    this.conn.onNotification('window/logMessage', () => {});
    this.conn.onNotification('$/progress', () => {});
    this.conn.listen();
  }

  diagnostics(uri: string, pred: (p: PublishDiagnosticsParams) => boolean = () => true): Promise<PublishDiagnosticsParams> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching publishDiagnostics for ${uri} within ${TIMEOUT} ms; stderr:\n${this.stderr.join('')}`)),
        TIMEOUT,
      );
      this.died.catch(reject);
      this.waiters.push({
        uri,
        pred,
        resolve: (p) => {
          clearTimeout(timer);
          resolve(p);
        },
      });
    });
  }

  open(file: string, uri: string): void {
    void this.conn.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'c', version: 1, text: fs.readFileSync(file, 'utf8') },
    });
  }
}

describe('the VS Code client protocol against reductio serve', { skip: BIN ? false : 'REDUCTIO_BIN is not set' }, () => {
  let server: Server;
  let init: InitializeResult;
  const leakLine = lineOf(LEAK_FILE, 'return -1;                              // expect: leak copy');
  const okLine = lineOf(OK_FILE, 'return sum;');

  before(async () => {
    server = new Server(BIN!);
    // Roughly the client capabilities vscode-languageclient 9 announces (UTF-16 positions).
    const initialize = server.conn.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: pathToFileURL(REPO).href,
      workspaceFolders: [{ uri: pathToFileURL(REPO).href, name: 'reductio' }],
      initializationOptions: toServerSettings(reader).settings,
      capabilities: {
        general: { positionEncodings: ['utf-16'] },
        textDocument: {
          synchronization: { didSave: true, dynamicRegistration: true },
          publishDiagnostics: { relatedInformation: true, codeDescriptionSupport: true, dataSupport: true },
          hover: { contentFormat: ['markdown', 'plaintext'] },
          codeAction: {
            codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'quickfix', 'refactor', 'source'] } },
          },
        },
        workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true }, workspaceFolders: true },
        window: { workDoneProgress: true, showMessage: {} },
      },
    });
    init = await Promise.race([initialize, server.died]);
    await server.conn.sendNotification(InitializedNotification.type, {});
  });

  after(async () => {
    if (!server || server.exitCode !== undefined) {
      server?.conn.dispose();
      return;
    }
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)));
    try {
      await server.conn.sendRequest(ShutdownRequest.type);
      await server.conn.sendNotification(ExitNotification.type);
    } finally {
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([exited, new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), 5000)))]);
      clearTimeout(timer);
      server.conn.dispose();
      if (code === 'hung') {
        server.child.kill();
        assert.fail('the server did not exit within 5 s of `exit`');
      }
    }
  });

  test('initialize: the capabilities the extension relies on, in UTF-16', () => {
    const caps = init.capabilities;
    assert.ok(caps.hoverProvider, 'hover');
    assert.ok(caps.codeActionProvider, 'code actions');
    assert.ok(caps.executeCommandProvider?.commands.includes('reductio.proveNoLeak'), 'reductio.proveNoLeak');
    assert.ok(caps.textDocumentSync, 'text sync');
    assert.ok(caps.positionEncoding === undefined || caps.positionEncoding === 'utf-16', `encoding ${caps.positionEncoding}`);
  });

  test('a leaking file gets a diagnostic with source, probe code and the trace as related information', { timeout: TIMEOUT }, async () => {
    const got = server.diagnostics(LEAK_URI, (p) => p.diagnostics.length > 0);
    server.open(LEAK_FILE, LEAK_URI);
    const { diagnostics } = await got;
    const d = diagnostics.find((x: Diagnostic) => x.range.start.line === leakLine - 1);
    assert.ok(d, `a diagnostic on line ${leakLine}: ${JSON.stringify(diagnostics)}`);
    assert.equal(d.source, 'reductio');
    assert.equal(d.code, 'return-local');
    assert.match(d.message, /^`copy` leaks: allocated at line 21, last reference lost here$/);
    const related = d.relatedInformation ?? [];
    assert.deepEqual(
      related.map((r) => [r.location.uri, r.location.range.start.line + 1]),
      [21, 22, 24, 25].map((l) => [LEAK_URI, l]),
    );
    assert.match(related[0].message, /allocated/);
    assert.match(related[related.length - 1].message, /`copy` goes out of scope/);
    // Only leaks are diagnostics.
    assert.equal(diagnostics.length, 1);
  });

  // VS Code's hover shows the diagnostic with its related information (the trace) above the
  // server's hover: the extension's hover middleware keeps only the message line of that leak.
  test('hover on the leak: the trace once, under VS Code\'s diagnostic hover', { timeout: TIMEOUT }, async () => {
    const hover = (await server.conn.sendRequest('textDocument/hover', proveParams(LEAK_URI, toLspPosition(leakLine, 9)))) as {
      contents: { value: string };
    };
    const text = hover.contents.value;
    const message = '`copy` leaks: allocated at line 21, last reference lost here';
    assert.equal(text.split(message).length, 2, text);
    assert.match(text, /allocated by `malloc`/);
    const shown = dropDiagnosedTraces(text, [message]);
    assert.doesNotMatch(shown, /allocated by `malloc`/);
    assert.match(shown, /^`copy` leaks: allocated at line 21, last reference lost here \(return-local\)$/m);
  });

  // The status bar: the server's reductio/fileSummary when it has it (the counts of
  // `check FILE --all`), else MethodNotFound, and the counts come from the CLI as before.
  test('status-bar counts: reductio/fileSummary agrees with `check --all`, or MethodNotFound and the CLI', { timeout: TIMEOUT }, async () => {
    const source = new FileSummarySource(
      (uri) => server.conn.sendRequest(FILE_SUMMARY_REQUEST, { textDocument: { uri } }),
      advertisesFileSummary(init.capabilities),
    );
    const answer = await source.get(LEAK_URI);
    const cli = await runCheck(BIN!, [path.relative(REPO, LEAK_FILE)], { cwd: REPO, all: true, timeoutMs: 60_000 });
    const live = server.published.get(LEAK_URI)?.diagnostics.length;
    assert.equal(live, 1);
    if (answer.kind === 'unsupported') {
      assert.equal(source.support, 'no');
      assert.equal(advertisesFileSummary(init.capabilities), undefined, 'a server that advertises the request answers it');
      assert.deepEqual(await source.get(LEAK_URI), { kind: 'unsupported' }, 'not asked again');
      assert.deepEqual(statusCounts({ support: source.support, cli: cli.summary, liveLeaks: live }), {
        proved: cli.summary.proved,
        unproved: cli.summary.unproved,
        leaks: 1,
      });
    } else {
      assert.equal(answer.kind, 'counts', JSON.stringify(answer));
      const { counts } = answer as { counts: { proved: number; leaks: number; unproved: number } };
      assert.deepEqual(counts, { proved: cli.summary.proved, leaks: cli.summary.leaks, unproved: cli.summary.unproved });
      assert.equal(counts.leaks, live, 'the leak count is the number of leak diagnostics');
      assert.deepEqual(statusCounts({ support: source.support, server: counts, liveLeaks: 0 }), counts, 'the server counts alone');
    }
  });

  test('reductio/prove on the leaking return: the notification text and the trace', { timeout: TIMEOUT }, async () => {
    const params = proveParams(LEAK_URI, toLspPosition(leakLine, 9));
    const verdicts = parseVerdicts(await server.conn.sendRequest('reductio/prove', params));
    assert.ok(verdicts, 'a {verdicts} answer');
    const leak = verdicts.find((v) => v.verdict === 'leak');
    assert.ok(leak, JSON.stringify(verdicts));
    assert.equal(leak.variable, 'copy');
    assert.equal(leak.probe, 'return-local');
    assert.equal(leak.function, 'packet_checksum');
    assert.deepEqual(leak.trace.map((s) => s.line), [21, 22, 24, 25]);
    assert.equal(path.resolve(REPO, leak.trace[0].file), LEAK_FILE);
    const summary = summarizeProve(verdicts);
    assert.equal(summary.outcome, 'leak');
    assert.match(summary.text, /^`copy` leaks: allocated at line 21, last reference lost here\./);
  });

  test('reductio/prove on a safe return: proved, with where it was contradicted', { timeout: TIMEOUT }, async () => {
    server.open(OK_FILE, OK_URI);
    const verdicts = parseVerdicts(await server.conn.sendRequest('reductio/prove', proveParams(OK_URI, toLspPosition(okLine, 5))));
    assert.ok(verdicts);
    const copy = verdicts.find((v) => v.variable === 'copy');
    assert.ok(copy, JSON.stringify(verdicts));
    assert.equal(copy.verdict, 'proved');
    assert.equal(copy.trace[0]?.line, okLine - 1, 'contradicted by `free(copy)` on the line before');
    assert.ok(!verdicts.some((v) => v.verdict === 'leak'));
    assert.deepEqual(server.published.get(OK_URI)?.diagnostics ?? [], [], 'no leak diagnostics for the fixed twin');
    assert.match(summarizeProve(verdicts.filter((v) => v.variable === 'copy')).text, /^No leak here: `copy` proved leak-free \(line \d+: `free\(copy\)` frees it\)\.$/);
  });

  test('reductio/prove at the allocation: the memory assigned there leaks at line 25', { timeout: TIMEOUT }, async () => {
    const result = await server.conn.sendRequest('reductio/prove', proveParams(LEAK_URI, toLspPosition(21, 5)));
    const verdicts = parseVerdicts(result);
    const assigned = parseAssigned(result);
    assert.ok(verdicts && assigned, JSON.stringify(result));
    assert.equal(assigned.length, 1, JSON.stringify(result));
    assert.equal(assigned[0].variable, 'copy');
    assert.equal(assigned[0].summary, 'leaks at line 25');
    const summary = summarizeProveBoth(verdicts, assigned);
    assert.equal(summary.outcome, 'leak');
    assert.match(summary.text, /The memory assigned here: `copy` \(line 21\) leaks at line 25\.$/);
    assert.deepEqual(assignedLeak(assigned)?.trace.map((s) => s.line), [21, 22, 24, 25]);
  });

  test('a position with no probe answers an empty list, worded as such', { timeout: TIMEOUT }, async () => {
    const verdicts = parseVerdicts(await server.conn.sendRequest('reductio/prove', proveParams(OK_URI, { line: 0, character: 0 })));
    assert.deepEqual(verdicts, []);
    assert.equal(summarizeProve(verdicts).outcome, 'none');
  });

  test('code actions on the leak offer "Prove no leak here"; executing it takes [uri, position]', { timeout: TIMEOUT }, async () => {
    const pos = toLspPosition(leakLine, 9);
    const actions = (await server.conn.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: LEAK_URI },
      range: { start: pos, end: pos },
      context: { diagnostics: server.published.get(LEAK_URI)?.diagnostics ?? [] },
    })) ?? [];
    const prove = actions.find((a) => a.title === 'Prove no leak here');
    assert.ok(prove, `titles: ${actions.map((a) => a.title).join(' | ')}`);
    const command = 'command' in prove && typeof prove.command === 'object' ? prove.command : (prove as { command: string; arguments?: unknown[] });
    assert.equal(command?.command, 'reductio.proveNoLeak');

    // The extension's middleware runs the command with the arguments the server gave, and reads
    // the same [uri, position] shape that proveCommandArgs builds.
    const result = await server.conn.sendRequest(ExecuteCommandRequest.type, {
      command: 'reductio.proveNoLeak',
      arguments: proveCommandArgs(LEAK_URI, pos),
    });
    const verdicts = parseVerdicts(result);
    if (verdicts !== undefined) {
      assert.ok(verdicts.some((v) => v.verdict === 'leak' && v.variable === 'copy'), JSON.stringify(result));
    }
  });

  test('the leak offers "Show leak trace of `copy`"; reductio.showLeakTrace answers the leak verdict', { timeout: TIMEOUT }, async () => {
    const pos = toLspPosition(leakLine, 9);
    const actions = (await server.conn.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: LEAK_URI },
      range: { start: pos, end: pos },
      context: { diagnostics: server.published.get(LEAK_URI)?.diagnostics ?? [] },
    })) ?? [];
    const trace = actions.find((a) => a.title === 'Show leak trace of `copy`');
    assert.ok(trace && 'command' in trace && typeof trace.command === 'object', `titles: ${actions.map((a) => a.title).join(' | ')}`);
    const cmd = trace.command!;
    assert.equal(cmd.command, 'reductio.showLeakTrace');
    // The extension's middleware reads these arguments with proveParamsFromArgs.
    const params = proveParamsFromArgs(cmd.arguments ?? []);
    assert.ok(params, JSON.stringify(cmd.arguments));
    assert.equal(params.textDocument.uri, LEAK_URI);
    assert.equal(params.position.line, leakLine - 1);
    const verdicts = parseVerdicts(await server.conn.sendRequest('reductio/prove', params));
    const leak = verdicts?.find((v) => v.verdict === 'leak');
    assert.deepEqual(leak?.trace.map((s) => s.line), [21, 22, 24, 25]);
  });

  test('hover on the leaking return mentions the leak', { timeout: TIMEOUT }, async () => {
    const hover = await server.conn.sendRequest(HoverRequest.type, { textDocument: { uri: LEAK_URI }, position: toLspPosition(leakLine, 9) });
    assert.ok(hover, 'a hover');
    const text = JSON.stringify(hover.contents);
    assert.match(text, /leak/);
    assert.match(text, /copy/);
  });

  test('settings changed in VS Code reach the server, which keeps answering', { timeout: TIMEOUT }, async () => {
    USER_SETTINGS['budget.transfers'] = 400;
    await server.conn.sendNotification(DidChangeConfigurationNotification.type, configurationPayload(toServerSettings(reader).settings));
    const verdicts = parseVerdicts(await server.conn.sendRequest('reductio/prove', proveParams(LEAK_URI, toLspPosition(leakLine, 9))));
    assert.ok(verdicts?.some((v) => v.verdict === 'leak'));
  });

  test('fixing the leak and saving clears the diagnostic', { timeout: TIMEOUT }, async () => {
    const cleared = server.diagnostics(LEAK_URI, (p) => p.diagnostics.length === 0);
    // `return -1;` -> `{ free(copy); return -1; }` on the leaking line (UTF-16 columns, ASCII text).
    const col = fs.readFileSync(LEAK_FILE, 'utf8').split('\n')[leakLine - 1].indexOf('return -1;');
    const range = { start: { line: leakLine - 1, character: col }, end: { line: leakLine - 1, character: col + 'return -1;'.length } };
    await server.conn.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri: LEAK_URI, version: 2 },
      contentChanges: [{ range, text: '{ free(copy); return -1; }' }],
    });
    await server.conn.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri: LEAK_URI } });
    await cleared;
  });
});
