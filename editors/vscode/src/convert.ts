// Conversions between the editor's positions and the server's: 0-based LSP positions for
// requests and commands, 1-based lines and columns in verdicts and findings.

import * as path from 'path';

/** An LSP position: 0-based line and character. */
export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

/** The params of the custom request `reductio/prove`. */
export interface ProveParams {
  textDocument: { uri: string };
  position: LspPosition;
}

export function proveParams(uri: string, position: LspPosition): ProveParams {
  return { textDocument: { uri }, position: { line: position.line, character: position.character } };
}

/** The arguments of `workspace/executeCommand` `reductio.proveNoLeak`: `[uri, position]`. */
export function proveCommandArgs(uri: string, position: LspPosition): [string, LspPosition] {
  return [uri, { line: position.line, character: position.character }];
}

function isPosition(x: unknown): x is LspPosition {
  const p = x as LspPosition;
  return (
    typeof x === 'object' &&
    x !== null &&
    Number.isInteger(p.line) &&
    Number.isInteger(p.character) &&
    p.line >= 0 &&
    p.character >= 0
  );
}

/** A URI argument as it may arrive: a string, `{uri}` (a TextDocumentIdentifier) or a vscode.Uri. */
function uriOf(x: unknown): string | undefined {
  if (typeof x === 'string') {
    return x;
  }
  if (typeof x === 'object' && x !== null) {
    const o = x as { uri?: unknown; scheme?: unknown; toString?: () => string };
    if (typeof o.uri === 'string') {
      return o.uri;
    }
    if (typeof o.scheme === 'string' && typeof o.toString === 'function') {
      return o.toString();
    }
  }
  return undefined;
}

/**
 * Reads the arguments of `reductio.proveNoLeak` back into prove params. Accepts the documented
 * `[uri, position]` and, leniently, a single `{textDocument, position}` object.
 */
export function proveParamsFromArgs(args: readonly unknown[]): ProveParams | undefined {
  if (args.length >= 2) {
    const uri = uriOf(args[0]);
    if (uri !== undefined && isPosition(args[1])) {
      return proveParams(uri, args[1]);
    }
  }
  if (args.length === 1 && typeof args[0] === 'object' && args[0] !== null) {
    const o = args[0] as { textDocument?: unknown; position?: unknown };
    const uri = uriOf(o.textDocument);
    if (uri !== undefined && isPosition(o.position)) {
      return proveParams(uri, o.position);
    }
  }
  return undefined;
}

/** A 1-based line/column pair (JSON verdicts) as a 0-based LSP position. */
export function toLspPosition(line: number, column: number): LspPosition {
  return { line: Math.max(0, line - 1), character: Math.max(0, column - 1) };
}

/**
 * The range of a verdict. `end_column` is 1-based and exclusive (`return -1;` at column 9 ends at
 * column 19), so both ends convert the same way.
 */
export function verdictRange(v: {
  line: number;
  column: number;
  end_line: number;
  end_column: number;
}): LspRange {
  const start = toLspPosition(v.line, v.column);
  let end = toLspPosition(v.end_line, v.end_column);
  if (end.line < start.line || (end.line === start.line && end.character < start.character)) {
    end = start;
  }
  return { start, end };
}

/**
 * The absolute path of a file named in a verdict. The server sends absolute paths; the CLI
 * sends paths relative to the directory it ran in (`cwd`).
 */
export function resolveVerdictFile(file: string, cwd: string): string {
  return path.isAbsolute(file) ? path.normalize(file) : path.resolve(cwd, file);
}

/** A path for display: relative to `root` when inside it. */
export function displayPath(file: string, root: string | undefined): string {
  if (!root) {
    return file;
  }
  const rel = path.relative(root, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

/**
 * The server's hover without the traces VS Code already shows. In the hover a verdict is its
 * message line, then its trace steps (`1. line 21: …`), one line each; verdicts follow one
 * another, under the headings of the two parts ("The value overwritten here", "The memory
 * assigned here"). When a leak's diagnostic is under the cursor, VS Code's own hover shows
 * the diagnostic's related information (the same trace) right above ours: keep that leak's
 * message line only, so the trace is shown once.
 */
export function dropDiagnosedTraces(markdown: string, diagnosticMessages: readonly string[]): string {
  if (diagnosticMessages.length === 0) {
    return markdown;
  }
  const isStep = (line: string | undefined) => line !== undefined && /^\d+\. /.test(line);
  return markdown
    .split('\n\n')
    .map((block) => {
      const lines = block.split('\n');
      const out: string[] = [];
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i];
        const shown = diagnosticMessages.some((m) => m !== '' && line.startsWith(m));
        if (!shown || !isStep(lines[i + 1])) {
          out.push(line);
          continue;
        }
        let j = i + 1;
        while (isStep(lines[j])) {
          j++;
        }
        // A Markdown line break after the message only when a line follows it.
        out.push(j < lines.length ? line.replace(/ *$/, '  ') : line.replace(/ {2}$/, ''));
        i = j - 1;
      }
      return out.join('\n');
    })
    .join('\n\n');
}
