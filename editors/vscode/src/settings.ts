// VS Code settings (`reductio.*`, camelCase) -> the server's configuration object (the keys of
// `reductio.toml`, kebab-case, `budget` nested), sent as `initializationOptions` and in
// `workspace/didChangeConfiguration`.
//
// Only settings the user set (user, workspace or folder level) are sent: a VS Code default must
// not override the project's `reductio.toml`.

export interface SettingValue {
  /** The effective value. */
  value: unknown;
  /** Set explicitly at some level (not just the default from package.json). */
  isSet: boolean;
}

export type SettingReader = (key: string) => SettingValue;

/** The shape `vscode.WorkspaceConfiguration.inspect()` returns. */
export interface Inspected {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** The effective value and whether it was set, from an `inspect()` result. */
export function fromInspect(i: Inspected | undefined): SettingValue {
  if (!i) {
    return { value: undefined, isSet: false };
  }
  for (const v of [i.workspaceFolderValue, i.workspaceValue, i.globalValue]) {
    if (v !== undefined) {
      return { value: v, isSet: true };
    }
  }
  return { value: i.defaultValue, isSet: false };
}

export interface ServerSettings {
  allocators?: string[];
  deallocators?: string[];
  noreturn?: string[];
  'unknown-calls-escape'?: boolean;
  exclude?: string[];
  'check-on'?: 'save' | 'change';
  budget?: { transfers?: number; regions?: number };
  /** Editor only (not in reductio.toml): the pause after typing before a `check-on = change` check. */
  'debounce-ms'?: number;
}

/** The `reductio.*` keys this extension maps, with the server key each becomes. */
export const SETTING_KEYS: ReadonlyArray<[vscodeKey: string, serverKey: string]> = [
  ['allocators', 'allocators'],
  ['deallocators', 'deallocators'],
  ['noreturn', 'noreturn'],
  ['unknownCallsEscape', 'unknown-calls-escape'],
  ['exclude', 'exclude'],
  ['checkOn', 'check-on'],
  ['budget.transfers', 'budget.transfers'],
  ['budget.regions', 'budget.regions'],
  ['debounceMs', 'debounce-ms'],
];

function stringList(x: unknown): string[] | undefined {
  if (!Array.isArray(x)) {
    return undefined;
  }
  return x
    .filter((s): s is string => typeof s === 'string')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function positiveInt(x: unknown): number | undefined {
  return typeof x === 'number' && Number.isFinite(x) && x >= 1 ? Math.floor(x) : undefined;
}

export interface MappedSettings {
  settings: ServerSettings;
  /** Values that were set but could not be used, for a warning. */
  problems: string[];
}

export function toServerSettings(read: SettingReader): MappedSettings {
  const settings: ServerSettings = {};
  const problems: string[] = [];
  const bad = (key: string, want: string) => problems.push(`reductio.${key} must be ${want}`);

  for (const key of ['allocators', 'deallocators', 'noreturn', 'exclude'] as const) {
    const s = read(key);
    if (!s.isSet) {
      continue;
    }
    const list = stringList(s.value);
    if (list === undefined) {
      bad(key, 'a list of strings');
    } else {
      settings[key] = list;
    }
  }

  const escape = read('unknownCallsEscape');
  if (escape.isSet) {
    if (typeof escape.value === 'boolean') {
      settings['unknown-calls-escape'] = escape.value;
    } else {
      bad('unknownCallsEscape', 'true or false');
    }
  }

  const checkOn = read('checkOn');
  if (checkOn.isSet) {
    if (checkOn.value === 'save' || checkOn.value === 'change') {
      settings['check-on'] = checkOn.value;
    } else {
      bad('checkOn', '"save" or "change"');
    }
  }

  for (const key of ['transfers', 'regions'] as const) {
    const s = read(`budget.${key}`);
    if (!s.isSet) {
      continue;
    }
    const n = positiveInt(s.value);
    if (n === undefined) {
      bad(`budget.${key}`, 'a whole number of at least 1');
    } else {
      settings.budget = { ...settings.budget, [key]: n };
    }
  }

  const debounce = read('debounceMs');
  if (debounce.isSet) {
    const v = debounce.value;
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) {
      settings['debounce-ms'] = Math.floor(v);
    } else {
      bad('debounceMs', 'a number of milliseconds');
    }
  }
  return { settings, problems };
}

/**
 * The settings keys whose change needs the server told (`reductio.path` needs a restart instead).
 */
export function affectsServerSettings(affects: (section: string) => boolean): boolean {
  return SETTING_KEYS.some(([k]) => affects(`reductio.${k}`));
}

/**
 * The `workspace/didChangeConfiguration` params: the same object as `initializationOptions`
 * (the server's lsp/settings.rs reads both, bare or under `reductio`).
 */
export function configurationPayload(settings: ServerSettings): { settings: ServerSettings } {
  return { settings };
}
