// Verdicts as the server sends them (`reductio/prove`, `reductio prove --format json`,
// `reductio check --format json` findings) and how the extension words them.
// Plain data in, plain strings out: nothing here imports `vscode`, so it is unit-tested in node.

export type VerdictKind = 'proved' | 'leak' | 'unproved';

/** One step of a trace; lines and columns are 1-based, as in the JSON interface. */
export interface TraceStep {
  file: string;
  line: number;
  column: number;
  note: string;
}

export interface AllocationSite {
  file: string;
  line: number;
  column: number;
  function?: string;
}

/** A verdict (or a `check` finding): the fields of DESIGN.md's JSON findings. */
export interface Verdict {
  file: string;
  line: number;
  column: number;
  end_line: number;
  end_column: number;
  function: string;
  verdict: VerdictKind;
  probe: string;
  variable: string;
  message: string;
  reason?: string;
  allocation: AllocationSite[];
  trace: TraceStep[];
}

const KINDS: readonly string[] = ['proved', 'leak', 'unproved'];

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function num(x: unknown, fallback: number): number {
  return typeof x === 'number' && Number.isFinite(x) ? x : fallback;
}

function str(x: unknown): string {
  return typeof x === 'string' ? x : '';
}

function parseStep(x: unknown): TraceStep | undefined {
  if (!isObject(x) || typeof x.file !== 'string' || typeof x.line !== 'number') {
    return undefined;
  }
  return { file: x.file, line: x.line, column: num(x.column, 1), note: str(x.note) };
}

function parseSite(x: unknown): AllocationSite | undefined {
  if (!isObject(x) || typeof x.file !== 'string' || typeof x.line !== 'number') {
    return undefined;
  }
  const site: AllocationSite = { file: x.file, line: x.line, column: num(x.column, 1) };
  if (typeof x.function === 'string') {
    site.function = x.function;
  }
  return site;
}

/** Validates one verdict object; `undefined` when it is not one. */
export function parseVerdict(x: unknown): Verdict | undefined {
  if (!isObject(x) || typeof x.verdict !== 'string' || !KINDS.includes(x.verdict)) {
    return undefined;
  }
  if (typeof x.file !== 'string' || typeof x.line !== 'number') {
    return undefined;
  }
  const line = x.line;
  const column = num(x.column, 1);
  const v: Verdict = {
    file: x.file,
    line,
    column,
    end_line: num(x.end_line, line),
    end_column: num(x.end_column, column),
    function: str(x.function),
    verdict: x.verdict as VerdictKind,
    probe: str(x.probe),
    variable: str(x.variable),
    message: str(x.message),
    allocation: Array.isArray(x.allocation)
      ? x.allocation.map(parseSite).filter((s): s is AllocationSite => s !== undefined)
      : [],
    trace: Array.isArray(x.trace)
      ? x.trace.map(parseStep).filter((s): s is TraceStep => s !== undefined)
      : [],
  };
  if (typeof x.reason === 'string') {
    v.reason = x.reason;
  }
  return v;
}

/**
 * The verdicts in a `reductio/prove` or `reductio.proveNoLeak` answer: `{verdicts: [...]}` or a
 * bare array. `undefined` when the answer has no verdict list at all (e.g. `null`), so the caller
 * can tell "no probe here" (an empty list) from "this server answered something else".
 */
export function parseVerdicts(result: unknown): Verdict[] | undefined {
  const list = Array.isArray(result) ? result : isObject(result) ? result.verdicts : undefined;
  if (!Array.isArray(list)) {
    return undefined;
  }
  return list.map(parseVerdict).filter((v): v is Verdict => v !== undefined);
}

const RANK: Record<VerdictKind, number> = { leak: 0, unproved: 1, proved: 2 };

/** Leaks first, then unproved, then proved; stable within a kind. */
export function byConcern(verdicts: readonly Verdict[]): Verdict[] {
  return verdicts
    .map((v, i) => ({ v, i }))
    .sort((a, b) => RANK[a.v.verdict] - RANK[b.v.verdict] || a.i - b.i)
    .map(({ v }) => v);
}

const REASONS: Record<string, string> = {
  'input-dependent': 'depends on the callers',
  budget: 'the probe ran out of budget',
  unsupported: 'unsupported construct',
};

/** A short human label for an `unproved` reason. */
export function reasonLabel(reason: string | undefined): string {
  if (!reason) {
    return 'no reason given';
  }
  return REASONS[reason] ?? reason;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** One clause per verdict, for the notification. */
export function verdictClause(v: Verdict): string {
  const name = v.variable ? `\`${v.variable}\`` : 'this value';
  switch (v.verdict) {
    case 'leak':
      // The server's message starts with the variable: "`copy` leaks: allocated at line 21, …".
      return v.message || `${name} leaks`;
    case 'proved': {
      const [first] = v.trace;
      if (!first) {
        return `${name} proved leak-free`;
      }
      const more = v.trace.length > 1 ? `, and ${plural(v.trace.length - 1, 'other path')}` : '';
      return `${name} proved leak-free (line ${first.line}: ${first.note}${more})`;
    }
    case 'unproved':
      return `${name} unproved (${reasonLabel(v.reason)})`;
  }
}

export type ProveOutcome = 'leak' | 'unproved' | 'proved' | 'none';

export interface ProveSummary {
  outcome: ProveOutcome;
  /** One line for a notification. */
  text: string;
}

/** The readable answer to "Prove no leak here". */
export function summarizeProve(verdicts: readonly Verdict[]): ProveSummary {
  if (verdicts.length === 0) {
    return {
      outcome: 'none',
      text:
        'No leak probe here: reductio probes pointer assignments, allocations, frees, ' +
        'returns and block ends. Put the cursor on one of those.',
    };
  }
  const sorted = byConcern(verdicts);
  const clauses = sorted.map(verdictClause);
  const worst = sorted[0].verdict;
  if (worst === 'leak') {
    const rest = clauses.slice(1);
    return {
      outcome: 'leak',
      text: `${clauses[0]}.${rest.length ? ` Also: ${rest.join('; ')}.` : ''}`,
    };
  }
  if (worst === 'unproved') {
    return { outcome: 'unproved', text: `Not proved: ${clauses.join('; ')}.` };
  }
  return { outcome: 'proved', text: `No leak here: ${clauses.join('; ')}.` };
}

/** `file:line:col`, with the file shown relative when `rel` is given. */
export function formatLocation(
  loc: { file: string; line: number; column: number },
  rel: (file: string) => string = (f) => f,
): string {
  return `${rel(loc.file)}:${loc.line}:${loc.column}`;
}

/** The trace as numbered lines: `  1. list.c:3:9  allocated by `malloc``. */
export function formatTrace(
  trace: readonly TraceStep[],
  rel: (file: string) => string = (f) => f,
): string[] {
  return trace.map((s, i) => `${i + 1}. ${formatLocation(s, rel)}  ${s.note}`);
}

/** A verdict in full, for the output channel (several lines). */
export function formatVerdictDetails(
  v: Verdict,
  rel: (file: string) => string = (f) => f,
): string {
  const where = v.function ? ` in ${v.function}` : '';
  const lines = [
    `${v.verdict}: \`${v.variable}\` (${v.probe}) at ${formatLocation(v, rel)}${where}`,
    `  ${v.message}`,
  ];
  if (v.verdict === 'unproved') {
    lines.push(`  reason: ${v.reason ?? 'none given'} (${reasonLabel(v.reason)})`);
  }
  if (v.allocation.length) {
    const path = v.allocation
      .map((a) => formatLocation(a, rel) + (a.function ? ` (${a.function})` : ''))
      .join(' -> ');
    lines.push(`  allocation: ${path}`);
  }
  if (v.trace.length) {
    lines.push(v.verdict === 'proved' ? '  contradicted at:' : '  trace:');
    for (const l of formatTrace(v.trace, rel)) {
      lines.push(`    ${l}`);
    }
  }
  return lines.join('\n');
}

/** The title of the peek view that shows a verdict's trace. */
export function traceTitle(v: Verdict): string {
  if (v.verdict === 'proved') {
    return `reductio: where \`${v.variable}\` is contradicted`;
  }
  return `reductio: leak trace of \`${v.variable}\` (${plural(v.trace.length, 'step')})`;
}

// ---------------------------------------------------------------------------------------------
// The memory assigned here: the `assigned` list of a `reductio/prove` answer (README, "The memory
// assigned here"). At `p = malloc(n)` the verdicts above answer for the value `p` loses; these
// answer for the block `p` receives: every place it can lose its last reference, with the verdict
// of the probe there.

/** One place the assigned value reaches (`kind` is a probe verdict or what happens there). */
export interface AssignedPath {
  kind: string;
  file: string;
  line: number;
  column: number;
  note: string;
  allocated_here?: boolean;
  /** The verdict of the probe there, for `leak`, `proved` and most `unproved` paths. */
  finding?: Verdict;
}

export interface Assigned {
  file: string;
  line: number;
  column: number;
  function: string;
  variable: string;
  verdict: VerdictKind;
  /** "leaks at line 25", "never leaks: freed at line 30; NULL at line 22". */
  summary: string;
  paths: AssignedPath[];
}

function parseAssignedPath(x: unknown): AssignedPath | undefined {
  if (!isObject(x) || typeof x.kind !== 'string' || typeof x.line !== 'number') {
    return undefined;
  }
  const p: AssignedPath = { kind: x.kind, file: str(x.file), line: x.line, column: num(x.column, 1), note: str(x.note) };
  if (typeof x.allocated_here === 'boolean') {
    p.allocated_here = x.allocated_here;
  }
  const f = parseVerdict(x.finding);
  if (f) {
    p.finding = f;
  }
  return p;
}

/**
 * The `assigned` list of a prove answer; `undefined` when the answer has none (a server from
 * before it was added), so the caller keeps the one-part wording.
 */
export function parseAssigned(result: unknown): Assigned[] | undefined {
  if (!isObject(result) || !Array.isArray(result.assigned)) {
    return undefined;
  }
  const out: Assigned[] = [];
  for (const x of result.assigned) {
    if (!isObject(x) || typeof x.verdict !== 'string' || !KINDS.includes(x.verdict) || typeof x.line !== 'number') {
      continue;
    }
    out.push({
      file: str(x.file),
      line: x.line,
      column: num(x.column, 1),
      function: str(x.function),
      variable: str(x.variable),
      verdict: x.verdict as VerdictKind,
      summary: str(x.summary),
      paths: Array.isArray(x.paths)
        ? x.paths.map(parseAssignedPath).filter((p): p is AssignedPath => p !== undefined)
        : [],
    });
  }
  return out;
}

/**
 * Both answers of "Prove no leak here", labelled, where there is an assignment: the value
 * overwritten here (the verdicts) and the memory assigned here. The outcome is the worse of the two.
 */
export function summarizeProveBoth(verdicts: readonly Verdict[], assigned: readonly Assigned[]): ProveSummary {
  const over = summarizeProve(verdicts);
  if (verdicts.length === 0 && assigned.length === 0) {
    return {
      outcome: 'none',
      text:
        'No leak probe or assignment here: reductio probes pointer assignments, allocations, frees, ' +
        'returns and block ends. Put the cursor on one of those.',
    };
  }
  if (assigned.length === 0) {
    // A return or a block end: only its probes answer ("no assignment here" is in the details).
    return over;
  }
  const overText = verdicts.length === 0 ? 'no leak probe here.' : over.text;
  const assignedText = `${assigned.map((a) => `\`${a.variable}\` (line ${a.line}) ${a.summary}`).join('; ')}.`;
  const outcomes: ProveOutcome[] = [over.outcome, ...assigned.map((a) => a.verdict)];
  const outcome = (['leak', 'unproved', 'proved', 'none'] as const).find((o) => outcomes.includes(o)) ?? 'none';
  return {
    outcome,
    text: `The value overwritten here: ${overText} The memory assigned here: ${assignedText}`,
  };
}

/** The memory assigned here in full, for the output channel (several lines). */
export function formatAssignedDetails(a: Assigned, rel: (file: string) => string = (f) => f): string {
  const lines = [`memory assigned to \`${a.variable}\` at ${formatLocation(a, rel)}: ${a.summary}`];
  for (const p of a.paths) {
    lines.push(`  ${p.kind}: ${formatLocation(p, rel)}  ${p.note}`);
    if (p.kind === 'leak' && p.finding) {
      for (const l of formatTrace(p.finding.trace, rel)) {
        lines.push(`    ${l}`);
      }
    }
  }
  return lines.join('\n');
}

/** The leak of the memory assigned here with a trace to show, if any. */
export function assignedLeak(assigned: readonly Assigned[]): Verdict | undefined {
  for (const a of assigned) {
    const p = a.paths.find((p) => p.kind === 'leak' && p.finding && p.finding.trace.length > 0);
    if (p?.finding) {
      return p.finding;
    }
  }
  return undefined;
}
