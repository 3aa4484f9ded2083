// The status bar's counts from the server: `reductio/fileSummary` `{textDocument} ->
// {proved, leaks, unproved}`, answered from the same analysis as the file's diagnostics, so the
// counts never disagree with them. A server without the request (it answers MethodNotFound)
// gets today's behaviour: `reductio check FILE --all` plus the live leak diagnostics.
// No `vscode` import: unit-tested in node.

import { CheckSummary, countsFor, ProofCounts } from './status';

export const FILE_SUMMARY_REQUEST = 'reductio/fileSummary';

/** JSON-RPC error codes that matter here. */
export const METHOD_NOT_FOUND = -32601;
const REQUEST_CANCELLED = -32800;
const CONTENT_MODIFIED = -32801;
const SERVER_CANCELLED = -32802;

export interface FileSummary {
  proved: number;
  leaks: number;
  unproved: number;
}

/** `{proved, leaks, unproved}` (non-negative integers; other fields ignored), else undefined. */
export function parseFileSummary(result: unknown): FileSummary | undefined {
  if (typeof result !== 'object' || result === null) {
    return undefined;
  }
  const o = result as Record<string, unknown>;
  const n = (k: string) => (Number.isInteger(o[k]) && (o[k] as number) >= 0 ? (o[k] as number) : undefined);
  const proved = n('proved');
  const leaks = n('leaks');
  const unproved = n('unproved');
  if (proved === undefined || leaks === undefined || unproved === undefined) {
    return undefined;
  }
  return { proved, leaks, unproved };
}

/**
 * Whether the server says it has the request: `capabilities.experimental.fileSummaryRequest`
 * naming it. Undefined when it does not say (then the request is tried once).
 */
export function advertisesFileSummary(capabilities: unknown): boolean | undefined {
  const experimental = (capabilities as { experimental?: unknown } | undefined)?.experimental;
  const named = (experimental as { fileSummaryRequest?: unknown } | undefined)?.fileSummaryRequest;
  if (named === FILE_SUMMARY_REQUEST || named === true) {
    return true;
  }
  return undefined;
}

/** 'yes': the server answers; 'no': it answered MethodNotFound; 'unknown': not asked yet. */
export type Support = 'unknown' | 'yes' | 'no';

export type SummaryAnswer =
  | { kind: 'counts'; counts: FileSummary }
  /** The server has no such request: use the CLI (and do not ask again). */
  | { kind: 'unsupported' }
  /** No answer this time (cancelled, content modified, a newer request, an error): keep what is shown. */
  | { kind: 'none'; error?: string };

function errorCode(e: unknown): number | undefined {
  const code = (e as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Asks the server for a file's counts through `request` (the language client's sendRequest),
 * remembering whether the server has the request at all. Only the newest request per file is
 * answered with counts; an older one that comes back later answers `none`.
 */
export class FileSummarySource {
  private state: Support;
  private latest = new Map<string, number>();
  private seq = 0;

  constructor(
    private readonly request: (uri: string) => Promise<unknown>,
    advertised?: boolean,
  ) {
    this.state = advertised ? 'yes' : 'unknown';
  }

  get support(): Support {
    return this.state;
  }

  async get(uri: string): Promise<SummaryAnswer> {
    if (this.state === 'no') {
      return { kind: 'unsupported' };
    }
    const id = ++this.seq;
    this.latest.set(uri, id);
    let result: unknown;
    let failed: SummaryAnswer | undefined;
    try {
      result = await this.request(uri);
    } catch (e) {
      const code = errorCode(e);
      if (code === METHOD_NOT_FOUND) {
        this.state = 'no';
        failed = { kind: 'unsupported' };
      } else if (code === REQUEST_CANCELLED || code === CONTENT_MODIFIED || code === SERVER_CANCELLED) {
        failed = { kind: 'none' };
      } else {
        failed = { kind: 'none', error: String((e as { message?: unknown })?.message ?? e) };
      }
    }
    // Only the newest request for a file is answered: an older one coming back late would
    // overwrite newer counts.
    const newest = this.latest.get(uri) === id;
    if (newest) {
      this.latest.delete(uri);
    }
    if (failed) {
      return failed.kind === 'unsupported' || newest ? failed : { kind: 'none' };
    }
    const counts = parseFileSummary(result);
    if (!counts) {
      return { kind: 'none', error: `${FILE_SUMMARY_REQUEST}: an answer without {proved, leaks, unproved}: ${JSON.stringify(result)}` };
    }
    this.state = 'yes';
    if (!newest) {
      return { kind: 'none' };
    }
    return { kind: 'counts', counts };
  }
}

/**
 * What the status bar shows for a file: the server's counts when it has the request (the whole
 * answer, nothing mixed in), else (MethodNotFound) the CLI summary with the live leak count as
 * before. `undefined`: nothing known yet (the spinner).
 */
export function statusCounts(opts: {
  support: Support;
  server?: FileSummary;
  cli?: CheckSummary;
  liveLeaks?: number;
}): ProofCounts | undefined {
  if (opts.support !== 'no') {
    // Until the first answer (and while the server has not said it lacks the request), the
    // spinner: a leak count alone would be replaced a moment later.
    return opts.server ? { ...opts.server } : undefined;
  }
  if (!opts.cli && opts.liveLeaks === undefined) {
    return undefined;
  }
  return countsFor(opts.cli, opts.liveLeaks);
}
