// Running the CLI: `reductio check --format json` for "Check workspace for leaks" and for the
// status bar's proved/unproved counts. No `vscode` import: unit-tested in node.

import { spawn } from 'child_process';
import { CheckSummary } from './status';
import { parseVerdict, Verdict } from './verdicts';

export interface CheckReport {
  summary: CheckSummary;
  findings: Verdict[];
}

/** Parses `reductio check --format json` output (DESIGN.md, version 1). */
export function parseCheckReport(stdout: string): CheckReport {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch (e) {
    throw new Error(`reductio check printed something that is not JSON: ${String(e)}`);
  }
  const o = json as { version?: unknown; summary?: Record<string, unknown>; findings?: unknown };
  if (typeof o !== 'object' || o === null || typeof o.summary !== 'object' || o.summary === null) {
    throw new Error('reductio check: the JSON has no summary');
  }
  if (o.version !== 1) {
    throw new Error(`reductio check: unknown JSON version ${String(o.version)} (expected 1)`);
  }
  const n = (k: string) => (typeof o.summary?.[k] === 'number' ? (o.summary[k] as number) : 0);
  const summary: CheckSummary = {
    files: n('files'),
    functions: n('functions'),
    probes: n('probes'),
    proved: n('proved'),
    leaks: n('leaks'),
    unproved: n('unproved'),
    elapsed_ms: n('elapsed_ms'),
  };
  const findings = Array.isArray(o.findings)
    ? o.findings.map(parseVerdict).filter((v): v is Verdict => v !== undefined)
    : [];
  return { summary, findings };
}

/** Findings grouped by file, in the order they came. */
export function groupByFile(findings: readonly Verdict[]): Map<string, Verdict[]> {
  const m = new Map<string, Verdict[]>();
  for (const f of findings) {
    const list = m.get(f.file);
    if (list) {
      list.push(f);
    } else {
      m.set(f.file, [f]);
    }
  }
  return m;
}

/** One line for the end of a workspace check. */
export function formatCheckSummary(s: CheckSummary): string {
  const leaks = s.leaks === 1 ? '1 leak' : `${s.leaks} leaks`;
  const files = s.files === 1 ? '1 file' : `${s.files ?? 0} files`;
  return `reductio: ${leaks} in ${files} (${s.proved} proved, ${s.unproved} unproved, ${s.probes ?? 0} probes).`;
}

/** The argument list for `reductio check`. */
export function checkArgs(paths: readonly string[], all: boolean): string[] {
  return ['check', '--format', 'json', ...(all ? ['--all'] : []), ...paths];
}

export interface Cancellation {
  onCancel(cb: () => void): void;
}

/**
 * Runs `reductio check` and parses its JSON. Exit 0 (no leaks) and 1 (leaks) are answers;
 * 2 is an error whose stderr is the message.
 */
export function runCheck(
  bin: string,
  paths: readonly string[],
  opts: { cwd: string; all?: boolean; cancel?: Cancellation; timeoutMs?: number },
): Promise<CheckReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, checkArgs(paths, opts.all ?? false), {
      cwd: opts.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let cancelled = false;
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          cancelled = true;
          child.kill();
        }, opts.timeoutMs)
      : undefined;
    opts.cancel?.onCancel(() => {
      cancelled = true;
      child.kill();
    });
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => {
      if (timer) clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      if (cancelled) {
        reject(new Error('reductio check was cancelled'));
        return;
      }
      if (code !== 0 && code !== 1) {
        const msg = Buffer.concat(err).toString('utf8').trim();
        reject(new Error(msg || `reductio check exited with code ${code}`));
        return;
      }
      try {
        resolve(parseCheckReport(Buffer.concat(out).toString('utf8')));
      } catch (e) {
        reject(e);
      }
    });
  });
}
