// The VS Code client for reductio: starts `reductio serve`, and adds "Prove no leak here",
// "Check workspace for leaks", "Show leak trace" and the status-bar proof counts.
// Everything that can be decided without VS Code lives in the other modules (unit-tested).

import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';
import { openPathSettingCommand, PATH_SETTING_QUERY, resolveServer, serverExecutable } from './binary';
import { formatCheckSummary, groupByFile, runCheck } from './check';
import {
  displayPath,
  dropDiagnosedTraces,
  proveParams,
  proveParamsFromArgs,
  ProveParams,
  resolveVerdictFile,
  toLspPosition,
  verdictRange,
} from './convert';
import { affectsServerSettings, fromInspect, ServerSettings, toServerSettings, configurationPayload } from './settings';
import { CheckSummary, formatStatus, pendingStatus } from './status';
import { advertisesFileSummary, FILE_SUMMARY_REQUEST, FileSummary, FileSummarySource, statusCounts } from './summary';
import {
  byConcern,
  formatVerdictDetails,
  parseVerdicts,
  summarizeProve,
  Assigned,
  assignedLeak,
  formatAssignedDetails,
  parseAssigned,
  summarizeProveBoth,
  traceTitle,
  Verdict,
} from './verdicts';

const PROVE_REQUEST = 'reductio/prove';
const SERVER_PROVE_COMMAND = 'reductio.proveNoLeak';
const SERVER_TRACE_COMMAND = 'reductio.showLeakTrace';
const SERVER_CHECK_COMMAND = 'reductio.checkWorkspace';
const SOURCE = 'reductio';

let client: LanguageClient | undefined;
let serverPath: string | undefined;
let output: vscode.OutputChannel;
let statusItem: vscode.StatusBarItem;
let workspaceDiagnostics: vscode.DiagnosticCollection;
/** URIs the server has published diagnostics for: their leak count is live. */
const published = new Set<string>();
/** Last `check --all` summary per file (for proved/unproved counts). */
const summaries = new Map<string, CheckSummary>();
/** Files whose count has been started once (a failing count is not retried until a save). */
const counted = new Set<string>();
let countRun: { uri: string; cancel: () => void } | undefined;
let countTimer: NodeJS.Timeout | undefined;
/** The server's `reductio/fileSummary`, when it has it; per server session. */
let fileSummary: FileSummarySource | undefined;
/** In `counted` once the fallback to the CLI has been logged (not a URI). */
const FALLBACK_LOGGED = ' fallback logged';
/** The server's last counts per file (kept while a newer request runs: no flicker). */
const serverCounts = new Map<string, FileSummary>();

/** When `activate` was called (`performance.now()`), for the start-up times in the output. */
let activatedAt = 0;
/** Whether the first diagnostics since activation have been logged. */
let firstDiagnosticsLogged = false;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  activatedAt = performance.now();
  output = vscode.window.createOutputChannel('reductio');
  statusItem = vscode.window.createStatusBarItem('reductio.status', vscode.StatusBarAlignment.Left, 50);
  statusItem.name = 'reductio proof counts';
  statusItem.command = 'workbench.actions.view.problems';
  workspaceDiagnostics = vscode.languages.createDiagnosticCollection('reductio-workspace');

  context.subscriptions.push(
    output,
    statusItem,
    workspaceDiagnostics,
    vscode.commands.registerCommand('reductio.proveHere', proveHere),
    vscode.commands.registerCommand('reductio.checkWorkspace', checkWorkspace),
    vscode.commands.registerCommand('reductio.showTrace', showTrace),
    vscode.commands.registerCommand('reductio.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('reductio.restartServer', restartServer),
    vscode.workspace.onDidChangeConfiguration(onConfigurationChanged),
    vscode.window.onDidChangeActiveTextEditor(() => updateStatus()),
    vscode.languages.onDidChangeDiagnostics((e) => {
      const active = vscode.window.activeTextEditor?.document;
      if (active && e.uris.some((u) => u.toString() === active.uri.toString())) {
        // New diagnostics: the server has checked the file again; its counts follow.
        if (fileSummary && fileSummary.support !== 'no') {
          requestServerCounts(active);
        }
        updateStatus();
      }
    }),
    vscode.workspace.onDidSaveTextDocument((d) => {
      if (d.languageId === 'c' && fileSummary?.support === 'no') {
        scheduleCount(d, 300);
      }
    }),
    vscode.workspace.onDidCloseTextDocument((d) => {
      published.delete(d.uri.toString());
      summaries.delete(d.uri.toString());
      counted.delete(d.uri.toString());
      serverCounts.delete(d.uri.toString());
    }),
  );
  await startClient();
  updateStatus();
}

export async function deactivate(): Promise<void> {
  countRun?.cancel();
  if (client) {
    await client.stop();
    client = undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// The language client

function readServerSettings(): ServerSettings {
  const cfg = vscode.workspace.getConfiguration('reductio');
  const { settings, problems } = toServerSettings((key) => fromInspect(cfg.inspect(key)));
  for (const p of problems) {
    output.appendLine(`settings: ${p}; ignored`);
  }
  return settings;
}

function workspaceRoot(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

async function startClient(): Promise<void> {
  const configured = vscode.workspace.getConfiguration('reductio').get<string>('path', '');
  const remoteName = vscode.env.remoteName;
  const found = resolveServer(configured, process.env, { cwd: workspaceRoot(), remoteName });
  if (!found.ok) {
    serverPath = undefined;
    output.appendLine(found.message);
    output.appendLine(`PATH searched${remoteName ? ` (on the remote machine, ${remoteName})` : ''}: ${process.env.PATH ?? ''}`);
    statusItem.text = '$(error) reductio';
    statusItem.tooltip = found.message;
    statusItem.show();
    void vscode.window
      .showErrorMessage(found.message, 'Open Settings', 'Installation Guide')
      .then((choice) => {
        if (choice === 'Open Settings') {
          // `reductio.path` is per machine: a remote window's value is in the Remote tab.
          const open = openPathSettingCommand(remoteName);
          void Promise.resolve(vscode.commands.executeCommand(open.command, open.arg)).catch(() =>
            vscode.commands.executeCommand('workbench.action.openSettings', { query: PATH_SETTING_QUERY }),
          );
        } else if (choice === 'Installation Guide') {
          void vscode.commands.executeCommand('extension.open', 'reductio.reductio');
        }
      });
    return;
  }
  serverPath = found.path;
  output.appendLine(`starting ${serverPath} serve`);

  const serverOptions: ServerOptions = serverExecutable(serverPath, workspaceRoot());
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'c' }],
    initializationOptions: readServerSettings(),
    outputChannel: output,
    traceOutputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    middleware: {
      handleDiagnostics(uri, diagnostics, next) {
        if (!firstDiagnosticsLogged) {
          firstDiagnosticsLogged = true;
          output.appendLine(`first diagnostics ${Math.round(performance.now() - activatedAt)} ms after activation (${vscode.workspace.asRelativePath(uri)})`);
        }
        // The server owns this file now: drop what a workspace check said about it.
        published.add(uri.toString());
        workspaceDiagnostics.delete(uri);
        next(uri, diagnostics);
      },
      async provideHover(document, position, token, next) {
        const hover = await next(document, position, token);
        if (!hover) {
          return hover;
        }
        // VS Code shows the leak diagnostics under the cursor, with their related information
        // (the trace), in the same hover: the server's hover keeps only their message line.
        const shown = vscode.languages
          .getDiagnostics(document.uri)
          .filter((d) => d.source === 'reductio' && d.range.contains(position) && (d.relatedInformation?.length ?? 0) > 0)
          .map((d) => d.message);
        if (shown.length === 0) {
          return hover;
        }
        const contents = hover.contents.map((c) => {
          if (c instanceof vscode.MarkdownString) {
            const md = new vscode.MarkdownString(dropDiagnosedTraces(c.value, shown));
            md.isTrusted = c.isTrusted;
            return md;
          }
          return c;
        });
        return new vscode.Hover(contents, hover.range);
      },
      async executeCommand(command, args, next) {
        // The server's code actions "Prove no leak here" and "Show leak trace of `p`" carry
        // [uri, position]. The server would answer with a plain window/showMessage; here the
        // answer gets the extension's notification with a "Show Trace" button and the peek view.
        const params = proveParamsFromArgs(args);
        if (!params || (command !== SERVER_PROVE_COMMAND && command !== SERVER_TRACE_COMMAND)) {
          return next(command, args);
        }
        const result = await client?.sendRequest(PROVE_REQUEST, params);
        const verdicts = parseVerdicts(result) ?? [];
        // Not awaited: the notification stays until the user picks a button.
        if (command === SERVER_PROVE_COMMAND) {
          void showProveResult(verdicts, params, parseAssigned(result));
        } else {
          void traceFromVerdicts(verdicts, vscode.Uri.parse(params.textDocument.uri), params.position);
        }
        return result;
      },
      workspace: {
        async configuration(params, token, next) {
          const answers = await next(params, token);
          if (!Array.isArray(answers)) {
            return answers;
          }
          const settings = readServerSettings();
          return params.items.map((item, i) =>
            item.section === 'reductio' ? settings : answers[i],
          );
        },
      },
    },
  };
  client = new LanguageClient('reductio', 'reductio', serverOptions, clientOptions);
  client.onDidChangeState((e) => {
    if (e.newState === State.Stopped) {
      published.clear();
      serverCounts.clear();
      fileSummary = undefined;
    }
    updateStatus();
  });
  try {
    await client.start();
    output.appendLine(`server started ${Math.round(performance.now() - activatedAt)} ms after activation`);
    const c = client;
    fileSummary = new FileSummarySource(
      (uri) => c.sendRequest(FILE_SUMMARY_REQUEST, { textDocument: { uri } }),
      advertisesFileSummary(c.initializeResult?.capabilities),
    );
  } catch (e) {
    output.appendLine(`the server did not start: ${String(e)}`);
    void vscode.window
      .showErrorMessage(`reductio: the language server did not start (${String(e)}).`, 'Show Output')
      .then((c) => c && output.show(true));
  }
}

async function restartServer(): Promise<void> {
  if (client) {
    const c = client;
    client = undefined;
    try {
      await c.stop();
    } catch (e) {
      output.appendLine(`stopping the server: ${String(e)}`);
    }
  }
  published.clear();
  serverCounts.clear();
  fileSummary = undefined;
  await startClient();
  updateStatus();
}

async function onConfigurationChanged(e: vscode.ConfigurationChangeEvent): Promise<void> {
  if (e.affectsConfiguration('reductio.path')) {
    await restartServer();
    return;
  }
  if (affectsServerSettings((s) => e.affectsConfiguration(s)) && client?.isRunning()) {
    await client.sendNotification(DidChangeConfigurationNotification.type, configurationPayload(readServerSettings()));
  }
  if (e.affectsConfiguration('reductio.statusBar')) {
    updateStatus();
  }
}

function runningClient(): LanguageClient | undefined {
  if (client?.isRunning()) {
    return client;
  }
  void vscode.window
    .showErrorMessage('reductio: the language server is not running.', 'Show Output', 'Restart')
    .then((choice) => {
      if (choice === 'Show Output') {
        output.show(true);
      } else if (choice === 'Restart') {
        void restartServer();
      }
    });
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Prove no leak here

/** Where the verdict's files are: absolute paths pass through; relative ones are resolved. */
function verdictUri(file: string, anchor: vscode.Uri): vscode.Uri {
  const bases = [
    vscode.workspace.getWorkspaceFolder(anchor)?.uri.fsPath,
    path.dirname(anchor.fsPath),
    workspaceRoot(),
  ].filter((b): b is string => !!b);
  for (const base of bases) {
    const abs = resolveVerdictFile(file, base);
    if (fs.existsSync(abs)) {
      return vscode.Uri.file(abs);
    }
  }
  return vscode.Uri.file(resolveVerdictFile(file, bases[0] ?? '/'));
}

function rel(anchor: vscode.Uri): (file: string) => string {
  const root = vscode.workspace.getWorkspaceFolder(anchor)?.uri.fsPath ?? workspaceRoot();
  return (file) => displayPath(verdictUri(file, anchor).fsPath, root);
}

async function proveHere(arg?: unknown): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'c') {
    void vscode.window.showInformationMessage('reductio: open a C file and put the cursor on an assignment.');
    return;
  }
  // From the editor's context menu VS Code passes the document URI; the cursor is the position.
  void arg;
  const c = runningClient();
  if (!c) {
    return;
  }
  const params = proveParams(
    c.code2ProtocolConverter.asUri(editor.document.uri),
    c.code2ProtocolConverter.asPosition(editor.selection.active),
  );
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'reductio: proving…' },
    async () => c.sendRequest(PROVE_REQUEST, params),
  );
  const verdicts = parseVerdicts(result);
  if (verdicts === undefined) {
    void vscode.window.showErrorMessage('reductio: the server gave no verdicts for this position.');
    return;
  }
  await showProveResult(verdicts, params, parseAssigned(result));
}

/** The last prove answer, for "Show leak trace" on the same line. */
let lastProve: { uri: string; line: number; verdicts: Verdict[] } | undefined;

async function showProveResult(verdicts: Verdict[], params: ProveParams, assigned?: Assigned[]): Promise<void> {
  const anchor = vscode.Uri.parse(params.textDocument.uri);
  lastProve = { uri: params.textDocument.uri, line: params.position.line, verdicts };
  // `assigned` is absent only from a server older than the two-part answer.
  const summary = assigned ? summarizeProveBoth(verdicts, assigned) : summarizeProve(verdicts);
  const r = rel(anchor);
  output.appendLine(`prove ${r(anchor.fsPath)}:${params.position.line + 1}:${params.position.character + 1}`);
  for (const v of byConcern(verdicts)) {
    output.appendLine(formatVerdictDetails(v, r));
  }
  if (assigned?.length === 0) {
    output.appendLine('memory assigned here: no assignment here');
  }
  for (const a of assigned ?? []) {
    output.appendLine(formatAssignedDetails(a, r));
  }
  // A leak of the memory assigned here is what the user asked about first.
  const withTrace =
    assignedLeak(assigned ?? []) ?? byConcern(verdicts).find((v) => v.trace.length > 0 && v.verdict !== 'unproved');
  const buttons = withTrace ? ['Show Trace', 'Details'] : ['Details'];
  const show =
    summary.outcome === 'leak'
      ? vscode.window.showWarningMessage
      : vscode.window.showInformationMessage;
  const choice = await show(`reductio: ${summary.text}`, ...buttons);
  if (choice === 'Show Trace' && withTrace) {
    await peekTrace(withTrace, anchor, params.position);
  } else if (choice === 'Details') {
    output.show(true);
  }
}

/** Shows trace steps as peekable locations under `at`. */
async function peekLocations(
  anchor: vscode.Uri,
  at: vscode.Position,
  locations: vscode.Location[],
): Promise<void> {
  const editor = await vscode.window.showTextDocument(anchor, { preserveFocus: false });
  editor.selection = new vscode.Selection(at, at);
  await vscode.commands.executeCommand('editor.action.peekLocations', anchor, at, locations, 'peek');
}

async function peekTrace(v: Verdict, anchor: vscode.Uri, at: { line: number; character: number }): Promise<void> {
  const locations = v.trace.map((s) => {
    const p = toLspPosition(s.line, s.column);
    return new vscode.Location(verdictUri(s.file, anchor), new vscode.Position(p.line, p.character));
  });
  output.appendLine(traceTitle(v));
  await peekLocations(anchor, new vscode.Position(at.line, at.character), locations);
}

// ---------------------------------------------------------------------------------------------
// Show leak trace

function reductioDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === SOURCE);
}

/** The leak diagnostic at `pos`: one containing it, else one on its line. */
function diagnosticAt(uri: vscode.Uri, pos: vscode.Position): vscode.Diagnostic | undefined {
  const all = reductioDiagnostics(uri).filter((d) => d.relatedInformation?.length);
  return (
    all.find((d) => d.range.contains(pos)) ??
    all.find((d) => d.range.start.line <= pos.line && pos.line <= d.range.end.line)
  );
}

async function showTrace(uriArg?: unknown, rangeArg?: unknown): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const uri = uriArg instanceof vscode.Uri ? uriArg : editor?.document.uri;
  if (!uri) {
    void vscode.window.showInformationMessage('reductio: open a C file first.');
    return;
  }
  const pos =
    rangeArg instanceof vscode.Range
      ? rangeArg.start
      : editor && editor.document.uri.toString() === uri.toString()
        ? editor.selection.active
        : new vscode.Position(0, 0);

  const d = diagnosticAt(uri, pos);
  if (d?.relatedInformation) {
    output.appendLine(`trace of: ${d.message}`);
    d.relatedInformation.forEach((r, i) =>
      output.appendLine(`  ${i + 1}. ${vscode.workspace.asRelativePath(r.location.uri)}:${r.location.range.start.line + 1}  ${r.message}`),
    );
    await peekLocations(uri, d.range.start, d.relatedInformation.map((r) => r.location));
    return;
  }
  // No diagnostic here (e.g. not saved yet): ask the server.
  let verdicts =
    lastProve && lastProve.uri === uri.toString() && lastProve.line === pos.line ? lastProve.verdicts : undefined;
  if (!verdicts) {
    const c = runningClient();
    if (!c) {
      return;
    }
    verdicts = parseVerdicts(
      await c.sendRequest(PROVE_REQUEST, proveParams(c.code2ProtocolConverter.asUri(uri), c.code2ProtocolConverter.asPosition(pos))),
    );
  }
  await traceFromVerdicts(verdicts ?? [], uri, pos);
}

/** Peeks the trace of the leak among `verdicts`, or says there is none. */
async function traceFromVerdicts(
  verdicts: Verdict[],
  uri: vscode.Uri,
  pos: { line: number; character: number },
): Promise<void> {
  const leak = verdicts.find((v) => v.verdict === 'leak' && v.trace.length > 0);
  if (!leak) {
    void vscode.window.showInformationMessage(
      'reductio: no leak at the cursor. Put it on a line with a leak diagnostic, or use "Prove no leak here".',
    );
    return;
  }
  await peekTrace(leak, uri, { line: pos.line, character: pos.character });
}

// ---------------------------------------------------------------------------------------------
// Check workspace for leaks

function findingDiagnostic(v: Verdict, anchor: vscode.Uri): vscode.Diagnostic {
  const r = verdictRange(v);
  const d = new vscode.Diagnostic(
    new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character),
    v.message,
    vscode.DiagnosticSeverity.Warning,
  );
  d.source = SOURCE;
  d.code = v.probe;
  d.relatedInformation = v.trace.map((s) => {
    const p = toLspPosition(s.line, s.column);
    return new vscode.DiagnosticRelatedInformation(
      new vscode.Location(verdictUri(s.file, anchor), new vscode.Position(p.line, p.character)),
      s.note,
    );
  });
  return d;
}

async function checkWorkspace(): Promise<void> {
  const c = client;
  const serverCommands = c?.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
  if (c?.isRunning() && serverCommands.includes(SERVER_CHECK_COMMAND)) {
    await c.sendRequest(ExecuteCommandRequest.type, { command: SERVER_CHECK_COMMAND, arguments: [] });
    await vscode.commands.executeCommand('workbench.actions.view.problems');
    return;
  }
  // The server checks open files; the CLI checks the rest of the workspace.
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (!serverPath || folders.length === 0) {
    void vscode.window.showErrorMessage(
      !serverPath ? 'reductio: the reductio binary was not found (see `reductio.path`).' : 'reductio: open a folder first.',
    );
    return;
  }
  const bin = serverPath;
  const total: CheckSummary = { files: 0, probes: 0, proved: 0, leaks: 0, unproved: 0 };
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'reductio: checking the workspace', cancellable: true },
    async (progress, token) => {
      workspaceDiagnostics.clear();
      for (const folder of folders) {
        progress.report({ message: folder.name });
        try {
          const report = await runCheck(bin, ['.'], {
            cwd: folder.uri.fsPath,
            all: true,
            cancel: { onCancel: (cb) => token.onCancellationRequested(cb) },
          });
          for (const k of ['files', 'probes', 'proved', 'leaks', 'unproved'] as const) {
            total[k] = (total[k] ?? 0) + (report.summary[k] ?? 0);
          }
          for (const [file, findings] of groupByFile(report.findings)) {
            const uri = vscode.Uri.file(resolveVerdictFile(file, folder.uri.fsPath));
            if (published.has(uri.toString())) {
              continue; // open in the editor: the server's diagnostics are the live ones
            }
            workspaceDiagnostics.set(
              uri,
              findings.filter((f) => f.verdict === 'leak').map((f) => findingDiagnostic(f, uri)),
            );
          }
        } catch (e) {
          if (token.isCancellationRequested) {
            return;
          }
          output.appendLine(`check ${folder.uri.fsPath}: ${String(e)}`);
          void vscode.window.showErrorMessage(`reductio: ${String(e)}`);
          return;
        }
      }
    },
  );
  const msg = formatCheckSummary(total);
  output.appendLine(msg);
  const choice = await (total.leaks > 0
    ? vscode.window.showWarningMessage(msg, 'Open Problems')
    : vscode.window.showInformationMessage(msg));
  if (choice === 'Open Problems') {
    await vscode.commands.executeCommand('workbench.actions.view.problems');
  }
}

// ---------------------------------------------------------------------------------------------
// Status bar: the active file's proof counts

function updateStatus(): void {
  const enabled = vscode.workspace.getConfiguration('reductio').get<boolean>('statusBar', true);
  const doc = vscode.window.activeTextEditor?.document;
  if (!serverPath) {
    return; // the "not found" item stays up
  }
  if (!enabled || !doc || doc.languageId !== 'c' || doc.uri.scheme !== 'file') {
    statusItem.hide();
    return;
  }
  const key = doc.uri.toString();
  const name = path.basename(doc.uri.fsPath);
  const support = fileSummary?.support ?? 'no';
  const summary = summaries.get(key);
  const live = published.has(key) ? reductioDiagnostics(doc.uri).length : undefined;
  const counts = statusCounts({ support, server: serverCounts.get(key), cli: summary, liveLeaks: live });
  if (!counts) {
    const p = pendingStatus(name);
    statusItem.text = p.text;
    statusItem.tooltip = p.tooltip;
    statusItem.backgroundColor = undefined;
  } else {
    const s = formatStatus(counts, name);
    statusItem.text = s.text;
    statusItem.tooltip = s.tooltip;
    statusItem.backgroundColor = s.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }
  statusItem.show();
  if (support !== 'no') {
    if (!serverCounts.has(key) && !counted.has(key)) {
      counted.add(key);
      requestServerCounts(doc);
    }
  } else if (!summary && !counted.has(key)) {
    scheduleCount(doc, 0);
  }
}

/** Asks the server for the file's counts (`reductio/fileSummary`); a server without the
 * request answers MethodNotFound, and the status bar goes back to `reductio check --all`. */
function requestServerCounts(doc: vscode.TextDocument): void {
  const source = fileSummary;
  const c = client;
  if (!source || !c || !vscode.workspace.getConfiguration('reductio').get<boolean>('statusBar', true)) {
    return;
  }
  const key = doc.uri.toString();
  void source.get(c.code2ProtocolConverter.asUri(doc.uri)).then((answer) => {
    if (answer.kind === 'counts') {
      serverCounts.set(key, answer.counts);
    } else if (answer.kind === 'unsupported') {
      if (!counted.has(FALLBACK_LOGGED)) {
        output.appendLine(`the server has no ${FILE_SUMMARY_REQUEST}: proof counts come from \`reductio check FILE --all\``);
      }
      counted.clear();
      counted.add(FALLBACK_LOGGED);
    } else if (answer.error) {
      output.appendLine(`${FILE_SUMMARY_REQUEST} ${doc.uri.fsPath}: ${answer.error}`);
    }
    if (fileSummary === source) {
      updateStatus();
    }
  });
}

/** Runs `reductio check FILE --all` for the file's proved/unproved counts. */
function scheduleCount(doc: vscode.TextDocument, delayMs: number): void {
  if (!serverPath || doc.uri.scheme !== 'file' || !vscode.workspace.getConfiguration('reductio').get('statusBar', true)) {
    return;
  }
  if (countTimer) {
    clearTimeout(countTimer);
  }
  const bin = serverPath;
  const key = doc.uri.toString();
  counted.add(key);
  countTimer = setTimeout(() => {
    countRun?.cancel();
    let cancel = () => {};
    const run = { uri: key, cancel: () => cancel() };
    countRun = run;
    runCheck(bin, [path.basename(doc.uri.fsPath)], {
      cwd: path.dirname(doc.uri.fsPath),
      all: true,
      cancel: { onCancel: (cb) => (cancel = cb) },
      timeoutMs: 60_000,
    })
      .then((report) => {
        summaries.set(key, report.summary);
      })
      .catch((e) => output.appendLine(`counting probes in ${doc.uri.fsPath}: ${String(e)}`))
      .finally(() => {
        if (countRun === run) {
          countRun = undefined;
        }
        updateStatus();
      });
  }, delayMs);
}
