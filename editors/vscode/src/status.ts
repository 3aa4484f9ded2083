// The status-bar item: the active file's proof counts, e.g. `✓ 14 proved · ⚠ 1 leak`.
// Pure: the extension feeds it the counts and sets the item's text and tooltip.

export interface ProofCounts {
  /** Probes proved leak-free; undefined until a count is known. */
  proved?: number;
  leaks: number;
  unproved?: number;
}

/** `check --format json` summary fields that the status bar uses. */
export interface CheckSummary {
  files?: number;
  functions?: number;
  probes?: number;
  proved: number;
  leaks: number;
  unproved: number;
  elapsed_ms?: number;
}

export interface StatusText {
  /** Item text, with VS Code codicons (`$(check)` renders as ✓, `$(warning)` as ⚠). */
  text: string;
  tooltip: string;
  /** Whether the item should use the warning background. */
  warning: boolean;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The counts for a file: `proved` and `unproved` from the last `check --all` summary of that
 * file, `leaks` from the server's live diagnostics when it has published any for the file
 * (they follow edits; the summary is from the last save).
 */
export function countsFor(
  summary: CheckSummary | undefined,
  liveLeaks: number | undefined,
): ProofCounts {
  return {
    proved: summary?.proved,
    unproved: summary?.unproved,
    leaks: liveLeaks ?? summary?.leaks ?? 0,
  };
}

export function formatStatus(counts: ProofCounts, fileName?: string): StatusText {
  const parts: string[] = [];
  if (counts.proved !== undefined) {
    parts.push(`$(check) ${counts.proved} proved`);
  }
  parts.push(counts.leaks > 0 ? `$(warning) ${plural(counts.leaks, 'leak')}` : 'no leaks');
  if (counts.unproved) {
    parts.push(`$(question) ${counts.unproved} unproved`);
  }
  const inFile = fileName ? ` in ${fileName}` : '';
  const facts: string[] = [];
  if (counts.proved !== undefined) {
    facts.push(`${plural(counts.proved, 'probe')} proved leak-free`);
  }
  facts.push(counts.leaks > 0 ? plural(counts.leaks, 'leak') : 'no leaks');
  if (counts.unproved !== undefined) {
    facts.push(`${counts.unproved} unproved`);
  }
  return {
    text: parts.join(' · '),
    tooltip: `reductio${inFile}: ${facts.join(', ')}. Click to open the Problems view.`,
    warning: counts.leaks > 0,
  };
}

/** The text while the first count of a file is running. */
export function pendingStatus(fileName?: string): StatusText {
  return {
    text: '$(sync~spin) reductio',
    tooltip: `reductio: checking${fileName ? ` ${fileName}` : ''}…`,
    warning: false,
  };
}
