// An in-memory stand-in for the parts of the `vscode` API the providers use, so lenses, links,
// hovers, decorations and the Requests tree run in plain Node (as markdown-language-features
// tests its features on InMemoryDocument). Value classes behave like VS Code's; the window and
// workspace are scriptable: tests set the visible editors and fire the events.

import { existsSync, readFileSync } from 'node:fs';

export class Position { constructor(readonly line: number, readonly character: number) {} }
export class Range {
  readonly start: Position; readonly end: Position;
  constructor(a: number | Position, b: number | Position, c?: number, d?: number) {
    this.start = typeof a === 'number' ? new Position(a, b as number) : a;
    this.end = typeof a === 'number' ? new Position(c!, d!) : (b as Position);
  }
}
export class Selection extends Range {
  get anchor(): Position { return this.start; }
  get active(): Position { return this.end; }
}
export class Uri {
  private constructor(readonly scheme: string, readonly path: string, readonly query = '', readonly fragment = '', readonly authority = '') {}
  static file(p: string): Uri { return new Uri('file', p); }
  static parse(s: string): Uri {
    const m = /^([a-z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/i.exec(s);
    return m ? new Uri(m[1], m[3], m[4] ?? '', m[5] ?? '', m[2] ?? '') : new Uri('file', s);
  }
  static joinPath(u: Uri, ...parts: string[]): Uri { return new Uri(u.scheme, [u.path, ...parts].join('/'), '', '', u.authority); }
  get fsPath(): string { return this.path; }
  with(c: { scheme?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme ?? this.scheme, c.path ?? this.path, c.query ?? this.query, c.fragment ?? this.fragment, this.authority);
  }
  toString(): string { return `${this.scheme}://${this.authority}${this.path}${this.query ? `?${this.query}` : ''}${this.fragment ? `#${this.fragment}` : ''}`; }
}
export type Event<T> = (listener: (e: T) => void) => { dispose(): void };
export class EventEmitter<T> {
  private listeners: ((e: T) => void)[] = [];
  readonly event: Event<T> = (l) => { this.listeners.push(l); return { dispose: () => { this.listeners = this.listeners.filter((x) => x !== l); } }; };
  fire(e: T): void { for (const l of [...this.listeners]) l(e); }
  dispose(): void { this.listeners = []; }
}
export class Disposable {
  constructor(private readonly fn: () => void) {}
  static from(...ds: { dispose(): unknown }[]): Disposable { return new Disposable(() => ds.forEach((d) => d.dispose())); }
  dispose(): void { this.fn(); }
}
export class CodeLens {
  command: { title: string; command: string; arguments?: unknown[]; tooltip?: string } | undefined;
  constructor(readonly range: Range) {}
}
export class DocumentLink { target: Uri | undefined; tooltip: string | undefined; constructor(readonly range: Range, target?: Uri) { this.target = target; } }
export class MarkdownString {
  value = ''; isTrusted: unknown; supportHtml = false;
  constructor(value = '', readonly supportThemeIcons = false) { this.value = value; }
  appendMarkdown(s: string): this { this.value += s; return this; }
  appendText(s: string): this { this.value += s.replace(/[\\`*_{}[\]()#+\-.!<>]/g, '\\$&'); return this; }
}
export class Hover { constructor(readonly contents: MarkdownString, readonly range?: Range) {} }
export enum TreeItemCollapsibleState { None = 0, Collapsed = 1, Expanded = 2 }
export class TreeItem {
  id?: string; description?: string; tooltip?: string; iconPath?: unknown; contextValue?: string; command?: { command: string; arguments?: unknown[] };
  constructor(readonly label: string, readonly collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None) {}
}
export class ThemeIcon { constructor(readonly id: string) {} }
export class ThemeColor { constructor(readonly id: string) {} }
export enum DecorationRangeBehavior { OpenOpen = 0, ClosedClosed = 1 }
export enum StatusBarAlignment { Left = 1, Right = 2 }
export class TabInputText { constructor(readonly uri: Uri) {} }
export class RelativePattern { constructor(readonly base: Uri, readonly pattern: string) {} }
export enum ConfigurationTarget { Global = 1, Workspace = 2, WorkspaceFolder = 3 }

export enum EndOfLine { LF = 1, CRLF = 2 }

/**
 * A text document held in memory; `setText` is an edit (its version moves on). It counts what is
 * read from it: the whole text, and the characters of ranges (a reader of big logs reads little).
 */
export class InMemoryDocument {
  version = 1;
  languageId = 'log';
  private lineEnd = EndOfLine.LF;
  /** Calls of getText() without a range. */
  wholeTextReads = 0;
  /** Characters read by getText(range). */
  rangeCharsRead = 0;
  private lines: string[];
  private starts: number[] = [];
  constructor(readonly uri: Uri, private text: string) { this.lines = []; this.split(); }
  /** As VS Code's model: with CRLF a line end is two characters, and positionAt puts an offset between them before the \r. */
  get eol(): EndOfLine { return this.lineEnd; }
  set eol(e: EndOfLine) { this.lineEnd = e; this.split(); }
  get fileName(): string { return this.uri.path; }
  get lineCount(): number { return this.lines.length; }
  /** The text, for a test's own look (not counted as a read). */
  get content(): string { return this.text; }
  getText(range?: Range): string {
    if (!range) { this.wholeTextReads++; return this.text; }
    const part = this.text.slice(this.offsetAt(range.start), this.offsetAt(range.end));
    this.rangeCharsRead += part.length;
    return part;
  }
  lineAt(i: number): { text: string; range: Range } {
    const text = this.lines[i];
    return { text, range: new Range(i, 0, i, text.length) };
  }
  offsetAt(p: Position): number {
    const line = Math.max(0, Math.min(this.lines.length - 1, p.line));
    return this.starts[line] + Math.max(0, Math.min(this.lines[line].length, p.character));
  }
  positionAt(offset: number): Position {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid; else hi = mid - 1;
    }
    return new Position(lo, Math.max(0, Math.min(this.lines[lo].length, offset - this.starts[lo])));
  }
  setText(text: string): void { this.text = text; this.split(); this.version++; }
  private split(): void {
    const end = this.lineEnd === EndOfLine.CRLF ? '\r\n' : '\n';
    this.lines = this.text.split(end);
    this.starts = [];
    let at = 0;
    for (const l of this.lines) { this.starts.push(at); at += l.length + end.length; }
  }
}

/** An editor showing a document: its visible lines and the decorations set on it. */
export class InMemoryEditor {
  readonly decorations = new Map<unknown, { range: Range; renderOptions?: { before?: { contentText: string }; after?: { contentText: string } } }[]>();
  selection = new Selection(0, 0, 0, 0);
  constructor(readonly document: InMemoryDocument, public visibleRanges: Range[]) {}
  setDecorations(type: unknown, opts: { range: Range }[]): void { this.decorations.set(type, opts as never); }
}

const emitter = <T>() => new EventEmitter<T>();
export const events = {
  openDocument: emitter<InMemoryDocument>(), closeDocument: emitter<InMemoryDocument>(),
  changeDocument: emitter<{ document: InMemoryDocument; contentChanges: unknown[] }>(),
  visibleRanges: emitter<{ textEditor: InMemoryEditor }>(), visibleEditors: emitter<unknown>(), activeEditor: emitter<unknown>(),
  configuration: emitter<unknown>(), folders: emitter<unknown>(), tabs: emitter<unknown>(),
};
let decorationTypes = 0;
/** Status bar items created, with what they show. */
export const statusItems: { text: string; tooltip: unknown; visible: boolean; backgroundColor: unknown }[] = [];
/** What the user was told, in order (information, warning, error), with the buttons offered. */
export const messages: { kind: 'info' | 'warning' | 'error'; text: string; buttons?: string[] }[] = [];
/** A message with buttons (or a modal one) takes the next reply as the button pressed. */
const say = (kind: 'info' | 'warning' | 'error') => async (text: string, ...rest: unknown[]) => {
  const buttons = rest.filter((r): r is string => typeof r === 'string');
  messages.push(buttons.length ? { kind, text, buttons } : { kind, text });
  return buttons.length ? reply('message', { text, items: buttons }) : undefined;
};
export const shown: InMemoryDocument[] = [];
/** Each showTextDocument call: what was shown and the options (selection, viewColumn). */
export const shownWith: { doc: InMemoryDocument; options: { selection?: Range; viewColumn?: number; preview?: boolean } | undefined }[] = [];
export enum ViewColumn { Active = -1, Beside = -2 }
export enum ProgressLocation { Notification = 15 }

/**
 * The user's answers to prompts (quick picks, input boxes, dialogs, modal buttons), taken in order;
 * none left: the prompt is dismissed. A function answer gets the prompt's items (a quick pick).
 */
export const replies: unknown[] = [];
/** Every prompt put to the user, in order, with what it offered. */
export const asked: { kind: 'quickPick' | 'inputBox' | 'openDialog' | 'saveDialog' | 'message'; items?: unknown[]; options?: unknown; text?: string }[] = [];
const reply = (kind: (typeof asked)[number]['kind'], rest: Omit<(typeof asked)[number], 'kind'>) => {
  asked.push({ kind, ...rest });
  const r = replies.shift();
  return typeof r === 'function' ? (r as (items: unknown[] | undefined) => unknown)(rest.items) : r;
};

/** A token never cancelled (the user does not press Cancel in these tests). */
interface CancellationToken { isCancellationRequested: boolean; onCancellationRequested(l: () => void): { dispose(): void } }

/** A webview panel in memory: its page, and the messages its page posts (`receive`). */
export class InMemoryWebviewPanel {
  iconPath: unknown;
  disposed = false;
  private readonly received = new EventEmitter<unknown>();
  private readonly disposedEvent = new EventEmitter<void>();
  readonly webview = {
    html: '', cspSource: 'vscode-webview://fake', options: {} as unknown,
    asWebviewUri: (u: Uri) => u.with({ scheme: 'vscode-webview-resource' }),
    onDidReceiveMessage: this.received.event,
    postMessage: async () => true,
  };
  readonly onDidDispose = this.disposedEvent.event;
  constructor(readonly viewType: string, public title: string, readonly column: unknown) {}
  /** What the page's script posts (a button click). */
  async receive(msg: unknown): Promise<void> { this.received.fire(msg); await new Promise((r) => setImmediate(r)); }
  dispose(): void { this.disposed = true; this.disposedEvent.fire(); }
}
export const panels: InMemoryWebviewPanel[] = [];
export const window = {
  showInformationMessage: say('info'),
  showWarningMessage: say('warning'),
  showErrorMessage: say('error'),
  showTextDocument: async (arg: InMemoryDocument | Uri, options?: (typeof shownWith)[number]['options']) => {
    const doc = arg instanceof Uri ? await workspace.openTextDocument(arg) : arg;
    shown.push(doc); shownWith.push({ doc, options });
    return new InMemoryEditor(doc, []);
  },
  showQuickPick: async (items: unknown[], options?: unknown) => reply('quickPick', { items: await items, options }),
  showInputBox: async (options?: unknown) => reply('inputBox', { options }),
  showOpenDialog: async (options?: unknown) => reply('openDialog', { options }),
  showSaveDialog: async (options?: unknown) => reply('saveDialog', { options }),
  withProgress: async <T>(_options: unknown, task: (p: { report(v: unknown): void }, t: CancellationToken) => Promise<T>) =>
    task({ report() {} }, { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) }),
  createWebviewPanel: (viewType: string, title: string, column: unknown) => { const p = new InMemoryWebviewPanel(viewType, title,
    column); panels.push(p); return p; },
  createTreeView: () => ({ visible: true, message: undefined as string | undefined, description: undefined as string | undefined,
    reveal: async () => undefined, dispose() {} }),
  visibleTextEditors: [] as InMemoryEditor[],
  activeTextEditor: undefined as InMemoryEditor | undefined,
  onDidChangeTextEditorVisibleRanges: events.visibleRanges.event,
  onDidChangeVisibleTextEditors: events.visibleEditors.event,
  onDidChangeActiveTextEditor: events.activeEditor.event,
  createTextEditorDecorationType: (options: unknown) => ({ key: `decoration-${++decorationTypes}`, options, dispose: () => undefined }),
  createStatusBarItem: () => {
    const item = {
      text: '', tooltip: undefined as unknown, name: '', command: undefined as unknown, backgroundColor: undefined as unknown, visible: false,
      show() { item.visible = true; }, hide() { item.visible = false; }, dispose() {},
    };
    statusItems.push(item);
    return item;
  },
  tabGroups: { all: [], activeTabGroup: { activeTab: undefined as { input: unknown } | undefined }, onDidChangeTabs: events.tabs.event },
};
/** Text document content providers registered, by scheme (openTextDocument asks them). */
const contentProviders = new Map<string, { provideTextDocumentContent(uri: Uri): string | undefined }>();
export const workspace = {
  textDocuments: [] as InMemoryDocument[],
  workspaceFolders: undefined,
  onDidOpenTextDocument: events.openDocument.event,
  onDidCloseTextDocument: events.closeDocument.event,
  onDidChangeTextDocument: events.changeDocument.event,
  onDidChangeConfiguration: events.configuration.event,
  onDidChangeWorkspaceFolders: events.folders.event,
  getConfiguration: (section?: string, scope?: unknown) => ({
    get: <T>(key: string, dflt: T) => (configValues.has(`${section}.${key}`) ? configValues.get(`${section}.${key}`) as T : dflt),
    update: async (key: string, value: unknown, target?: ConfigurationTarget, overrideInLanguage?: boolean) => {
      configUpdates.push({ section, scope, key, value, target, overrideInLanguage });
    },
  }),
  getWorkspaceFolder: () => undefined,
  createFileSystemWatcher: () => ({ onDidChange: () => ({ dispose() {} }), onDidCreate: () => ({ dispose() {} }),
    onDidDelete: () => ({ dispose() {} }), dispose() {} }),
  registerTextDocumentContentProvider: (scheme: string, provider: { provideTextDocumentContent(uri: Uri): string | undefined }) => {
    contentProviders.set(scheme, provider);
    return { dispose: () => { if (contentProviders.get(scheme) === provider) contentProviders.delete(scheme); } };
  },
  openTextDocument: async (arg: Uri | { language?: string; content?: string }) => {
    if (arg instanceof Uri) {
      const open = workspace.textDocuments.find((d) => d.uri.toString() === arg.toString());
      if (open) return open;
      // A file on disk opens with its text, as VS Code reads it.
      // A virtual document's text is its provider's, as VS Code asks for it.
      const provided = contentProviders.get(arg.scheme)?.provideTextDocumentContent(arg);
      const text = provided ?? (arg.scheme === 'file' && existsSync(arg.fsPath) ? readFileSync(arg.fsPath, 'utf8') : '');
      return new InMemoryDocument(arg, text);
    }
    const doc = new InMemoryDocument(Uri.parse(`untitled:/Untitled-${workspace.textDocuments.length + 1}`), arg.content ?? '');
    doc.languageId = arg.language ?? 'plaintext';
    return doc;
  },
};
/** A SecretStorage over `map` (get, store, delete), so a test reads what was stored straight from the map. */
export interface InMemorySecrets {
  get(k: string): Promise<string | undefined>; store(k: string, v: string): Promise<void>; delete(k: string): Promise<void>;
}
export function secretStorageOver(map: Map<string, string>): InMemorySecrets {
  return {
    get: async (k) => map.get(k),
    store: async (k, v) => { map.set(k, v); },
    delete: async (k) => { map.delete(k); },
  };
}

/** Settings a test set, by `section.key` (what getConfiguration(section).get(key) answers); others are their defaults. */
export const configValues = new Map<string, unknown>();
/** Settings written (workspace.getConfiguration(section, scope).update), in order. */
export const configUpdates: { section?: string; scope?: unknown; key: string; value: unknown;
  target?: ConfigurationTarget; overrideInLanguage?: boolean }[] = [];
let clipboard = '';
export const env = {
  clipboard: { writeText: async (t: string) => { clipboard = t; }, readText: async () => clipboard },
  openExternal: async (uri: Uri) => { opened.push(uri); return true; },
};
/** URIs handed to the browser (env.openExternal). */
export const opened: Uri[] = [];
export const languages = {
  registerDocumentLinkProvider: () => ({ dispose() {} }),
  registerCodeLensProvider: () => ({ dispose() {} }),
  registerHoverProvider: () => ({ dispose() {} }),
};
/** Commands registered, by id; executeCommand runs them (and records every call). */
export const registered = new Map<string, (...args: unknown[]) => unknown>();
export const executed: { id: string; args: unknown[] }[] = [];
export const commands = {
  registerCommand: (id: string, fn: (...args: unknown[]) => unknown) => { registered.set(id, fn); return { dispose: () => registered.delete(id) }; },
  executeCommand: async (id: string, ...args: unknown[]) => { executed.push({ id, args }); return registered.get(id)?.(...args); },
};
