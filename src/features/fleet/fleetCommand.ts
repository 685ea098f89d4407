// HopLens: Find Request in the Fleet… — asks the stores in hoplens.fleet.traces/logs for one
// request (core/fleet/find.ts) and opens each pod's lines as a read-only `hoplens-fleet:`
// document in the log language, so the log feature's lenses and links work on them as on a file.
// Each store that did not answer is named in a warning beside the others' results; an empty
// answer says which stores were asked over which window; a result cut by hoplens.fleet.lineLimit
// says so and offers Fetch More. A bearer token or a user and password per store URL live in
// SecretStorage (HopLens: Set Fleet Store Credentials…), never in settings; the tenant of a
// multi-tenant Loki or Tempo (X-Scope-OrgID) is the store entry's own (`{ "url", "tenant" }`) or the
// setting hoplens.fleet.tenant, VictoriaLogs'
// (AccountID, ProjectID) hoplens.fleet.victoriaLogsTenant. Each document also tells the Requests
// view which of its lines name the request without being hops (plainLines).
import * as vscode from 'vscode';
import { CommandIds } from '../../commandIds';
import type { HopLensConfig } from '../../config';
import type { Logger } from '../../logging';
import { findRequestInFleet, foundAnything, type FleetResult } from '../../core/fleet/find';
import { FleetError, parseVictoriaLogsTenant } from '../../core/fleet/http';
import { detectBackend } from '../../core/fleet/traceLookup';
import { fleetLoginKey, fleetTokenKey, queryUrlCredentials, queryUrlEndpoint, storedCredentials, tempoTenantOf } from '../../core/fleet/credentials';
import type { TraceBackend } from '../../core/otlp/query';
import {
  DEFAULT_LINE_LIMIT, MAX_LINE_LIMIT, parseStoreUrl, type ClientOptions, type RemoteLogStream, type StoreEndpoint, type TimeWindow,
} from '../../core/fleet/model';
import { parseTimeBound } from '../../core/fleet/window';
import { forWorkbench } from '../../core/text/workbench';
import { idNeedle, mentionsRequest } from '../../core/logs/requestIds';
import { joinedToAsked, pairsInTexts } from '../../core/logs/transferIds';
import { keyMatcher, queryKeys } from '../../core/timeline/requestKey';
import { FLEET_SCHEME } from '../shared/logSessions';
import type { LineFeed, LogSource, StoreLine } from '../../core/logs/logSource';
import type { OtlpSpan } from '../../core/otlp/types';

export { fleetLoginKey, fleetTokenKey };

/** The stores that take a tenant (X-Scope-OrgID). */
function takesTenant(e: StoreEndpoint): boolean {
  return e.kind === 'loki' || e.kind === 'tempo';
}

export interface FleetCommandDeps {
  settings: { readonly current: HopLensConfig };
  secrets: Pick<vscode.SecretStorage, 'get' | 'store' | 'delete'>;
  log: Logger;
  /** Per HTTP call to a store (the clients' default when unset). */
  timeoutMs?: number;
  /** Most lines taken from each log store (hoplens.fleet.lineLimit when unset). */
  lineLimit?: number;
  /** Shows a request's timeline from the pods' documents and the spans found (the timeline feature's). */
  showTimeline?: (req: { query: string; sources: readonly LogSource[]; spans: readonly OtlpSpan[] }) => Promise<boolean>;
}

/** What the last search found, for its timeline. */
interface LastFleetResult { label: string; uris: vscode.Uri[]; spans: OtlpSpan[] }

/** A search as asked, to ask again with a higher line limit (Fetch More): same stores, same window. */
interface FleetSearch {
  query: { requestId?: string; traceId?: string };
  label: string;
  stores: { traces: StoreEndpoint[]; logs: StoreEndpoint[] };
  window: TimeWindow;
  selector?: string;
  lineLimit: number;
  /** Fetch More asks the log stores only: the spans the trace stores gave the first time are kept. */
  carried?: { spans: OtlpSpan[]; traceIds: string[] };
  /** Fetch More: the search whose documents (one per pod) get the longer answer, rather than new ones beside them. */
  continues?: number;
}

/**
 * The stores named in the settings, or the first setting that names one wrongly. With no
 * hoplens.fleet.traces, the older hoplens.traces.queryUrl (Show Engine Timing's lookup) is read as
 * a trace store of `legacyKind` (what the address answered as: FleetCommands detects it; Jaeger
 * unless told), so a setting made before the fleet keeps finding spans.
 */
export function configuredStores(
  c: Pick<HopLensConfig, 'fleet' | 'traces'>, legacyKind: TraceBackend = 'jaeger',
): { traces: StoreEndpoint[]; logs: StoreEndpoint[] } {
  const read = (urls: string[], setting: string, kinds: string[]) => urls.map((u) => {
    let e: StoreEndpoint;
    try { e = parseStoreUrl(u); } catch (err) { throw new FleetError('bad-url', `${setting}: ${(err as Error).message}`); }
    const takes = kinds.map((k) => `${k}+…`).join(' or ');
    if (!kinds.includes(e.kind)) throw new FleetError('bad-url', `${setting}: "${u}" is a ${e.kind} store; this setting takes ${takes}`);
    return e;
  });
  const legacy = legacyQueryUrl(c);
  const named = legacyKind === 'tempo' ? 'Tempo' : 'Jaeger';
  const traces = c.fleet.traces.length || !legacy
    ? read(c.fleet.traces, 'hoplens.fleet.traces', ['jaeger', 'tempo'])
    : read([`${legacyKind}+${legacy}`], `hoplens.traces.queryUrl (read as a ${named} store while hoplens.fleet.traces is empty)`, [legacyKind]);
  return { traces, logs: read(c.fleet.logs, 'hoplens.fleet.logs', ['victorialogs', 'loki']) };
}

/** hoplens.traces.queryUrl when Find Request in the Fleet… reads it (hoplens.fleet.traces empty), else ''. */
function legacyQueryUrl(c: Pick<HopLensConfig, 'fleet' | 'traces'>): string {
  // Tests and older callers may pass the fleet settings alone.
  const url = (c.traces as Partial<HopLensConfig['traces']> | undefined)?.queryUrl?.trim() ?? '';
  return c.fleet.traces.length ? '' : url;
}

function fleetWindow(setting: string, nowMs: number): TimeWindow {
  const startMs = parseTimeBound(setting, nowMs, 'hoplens.fleet.window');
  if (startMs >= nowMs) throw new FleetError('bad-url', `hoplens.fleet.window "${setting}" starts after now`);
  return { startMs, endMs: nowMs };
}

/** A request id from the command's argument: a string, or an object with requestId/traceId (a lens, another command). */
function queryOfArgument(arg: unknown): { requestId?: string; traceId?: string } | undefined {
  if (typeof arg === 'string' && arg.trim()) return { requestId: arg.trim() };
  if (arg && typeof arg === 'object') {
    const { requestId, traceId } = arg as { requestId?: unknown; traceId?: unknown };
    const q = { requestId: typeof requestId === 'string' && requestId.trim() ? requestId.trim() : undefined,
      traceId: typeof traceId === 'string' && traceId.trim() ? traceId.trim() : undefined };
    if (q.requestId || q.traceId) return q;
  }
  return undefined;
}

/** A file name from a stream: its pod (and container), nothing that reads as a path. */
function documentName(stream: RemoteLogStream, taken: Set<string>): string {
  const { pod, container, namespace } = stream.labels;
  const safe = (s: string) => s.replace(/[^\w.@:-]+/g, '_').slice(0, 120);
  const base = safe(pod ? (container ? `${pod}-${container}` : pod) : stream.name);
  let name = base;
  if (taken.has(name) && namespace) name = `${base}@${safe(namespace)}`;
  for (let i = 2; taken.has(name); i++) name = `${base}#${i}`;
  taken.add(name);
  return name;
}

/**
 * One pod's document: its lines (an entry holding line breaks is several), each with its entry's
 * store time; the request searched for, and the entries that name it (their first line, 1-based).
 */
interface FleetDocument { label: string; lines: StoreLine[]; referenceTime: number; request: string; naming: Array<{ line: number; text: string }> }

/** Tests an entry for naming the request as the timeline does (a Loki `|=` filter also matches `req-10` for `req-1`). */
function namesRequest(request: string): (text: string) => boolean {
  const keys = queryKeys(request);
  const match = keyMatcher(keys);
  const needles = keys.map(idNeedle);
  return (text) => mentionsRequest(text, needles, (id) => match(id) !== null);
}

/** A stream's identity across searches: its store and its labels (a pod's container), whatever its lines. */
function streamKey(store: StoreEndpoint, s: RemoteLogStream): string {
  return JSON.stringify([store.kind, store.baseUrl, Object.keys(s.labels).sort().map((k) => [k, s.labels[k]])]);
}

/** The documents of one search: each stream's URI (Fetch More fills the same ones) and the names taken. */
interface SearchDocuments { folder: string; taken: Set<string>; byStream: Map<string, vscode.Uri> }

/** The read-only documents: each search's streams, by URI, as the stores returned their lines. */
export class FleetDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly docs = new Map<string, FleetDocument>();
  private readonly searches = new Map<number, SearchDocuments>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  /** A document's lines were replaced (Fetch More): VS Code asks for its text again, an open tab shows the longer text. */
  readonly onDidChange = this.changed.event;
  private search = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /**
   * A document as a LogSource for the timeline: its stream key is its URI (a timeline item opens
   * it there), its label the pod's, its lines those of the document (line N of the source is
   * line N of the document), each with the store's own time of its entry.
   */
  source(uri: vscode.Uri): LogSource | undefined {
    const doc = this.docs.get(uri.toString());
    if (!doc) return undefined;
    return {
      stream: { key: uri.toString(), label: doc.label },
      open(): Promise<LineFeed> {
        let closed = false;
        return Promise.resolve({
          kind: 'lines', referenceTime: doc.referenceTime, close: () => { closed = true; },
          async *batches() {
            const BATCH = 2000;
            for (let i = 0; i < doc.lines.length && !closed; i += BATCH) yield doc.lines.slice(i, i + BATCH);
          },
        });
      },
    };
  }

  /**
   * One URI per stream of the result, named after its pod. A new search gets new URIs (no stale
   * tab keeps old lines); `continuing` (Fetch More) is the search whose documents the result
   * fills: a pod it had keeps its URI and gets the longer answer's lines, older and newer
   * together (its open tab is told to show them), a pod it lacked gets a URI beside them.
   */
  add(requestLabel: string, result: FleetResult, referenceTime: number, continuing?: number): {
    search: number; docs: { uri: vscode.Uri; lines: number; replaced: boolean }[]; all: vscode.Uri[];
  } {
    const earlier = continuing === undefined ? undefined : this.searches.get(continuing);
    const search = earlier && continuing !== undefined ? continuing : ++this.search;
    const into: SearchDocuments = earlier ?? {
      folder: requestLabel.replace(/[^\w.@:-]+/g, '_').slice(0, 120) || 'request', taken: new Set<string>(), byStream: new Map(),
    };
    this.searches.set(search, into);
    const out: { uri: vscode.Uri; lines: number; replaced: boolean }[] = [];
    const names = namesRequest(requestLabel);
    // A line naming only the request's bootstrap_room, which another line (any pod's) pairs with it, names it too.
    const pairs = pairsInTexts(result.logs.flatMap((l) => l.streams.flatMap((s) => s.entries.map((e) => e.text))), names);
    for (const store of result.logs) {
      for (const s of store.streams) {
        if (s.entries.length === 0) continue;
        const key = streamKey(store.endpoint, s);
        const had = into.byStream.get(key);
        const uri = had ?? vscode.Uri.parse(`${FLEET_SCHEME}:/${into.folder}/${documentName(s, into.taken)}.log`).with({ query: `search=${search}` });
        into.byStream.set(key, uri);
        const lines: StoreLine[] = [];
        const naming: Array<{ line: number; text: string }> = [];
        for (const e of s.entries) {
          const storeTimeMs = Number(e.timeNs / 1000n) / 1000;
          const parts = e.text.split('\n').map((text) => text.replace(/\r$/, ''));
          if (names(e.text) || joinedToAsked(e.text, pairs, names)) naming.push({ line: lines.length + 1, text: parts[0] });
          for (const text of parts) lines.push({ text, storeTimeMs });
        }
        this.texts.set(uri.toString(), s.entries.map((e) => e.text).join('\n') + '\n');
        this.docs.set(uri.toString(), { label: s.name, lines, referenceTime, request: requestLabel, naming });
        if (had) this.changed.fire(uri);
        out.push({ uri, lines: s.entries.length, replaced: had !== undefined });
      }
    }
    return { search, docs: out, all: [...into.byStream.values()] };
  }

  /** A document's request and the lines (entries' first lines) that name it, for the Requests view's plain lines. */
  plainLines(uri: vscode.Uri): { request: string; lines: ReadonlyArray<{ line: number; text: string }> } | undefined {
    const doc = this.docs.get(uri.toString());
    return doc && { request: doc.request, lines: doc.naming };
  }

  forget(uri: vscode.Uri): void { this.texts.delete(uri.toString()); this.docs.delete(uri.toString()); }

  dispose(): void { this.changed.dispose(); }
}

/** A bad setting or a failed query, as a plain error message. */
function showError(e: unknown): void {
  void vscode.window.showErrorMessage(`HopLens: ${forWorkbench((e as Error).message, 1000)}`);
}

function windowText(w: TimeWindow): string {
  return `${new Date(w.startMs).toISOString()} – ${new Date(w.endMs).toISOString()}`;
}

/**
 * The store entries' own tenants by store (`kind+baseUrl`). A Jaeger entry takes none; a URL
 * written wrong is left to configuredStores, which names it.
 */
function storeTenantsOf(list: ReadonlyArray<{ url: string; tenant: string }>): Map<string, { url: string; tenant: string }> {
  const out = new Map<string, { url: string; tenant: string }>();
  for (const t of list) {
    let e: StoreEndpoint;
    try { e = parseStoreUrl(t.url); } catch { continue; }
    if (e.kind === 'jaeger') throw new FleetError('bad-url', `hoplens.fleet.traces: "${t.url}" has a tenant, which a Jaeger store does not take`);
    out.set(`${e.kind}+${e.baseUrl}`, t);
  }
  return out;
}

export class FleetCommands implements vscode.Disposable {
  readonly documents = new FleetDocuments();
  private readonly disposables: vscode.Disposable[];
  private last: LastFleetResult | undefined;
  private readonly legacyKinds = new Map<string, TraceBackend>();

  constructor(private readonly deps: FleetCommandDeps) {
    this.disposables = [
      this.documents,
      vscode.workspace.registerTextDocumentContentProvider(FLEET_SCHEME, this.documents),
      vscode.workspace.onDidCloseTextDocument((d) => { if (d.uri.scheme === FLEET_SCHEME) this.documents.forget(d.uri); }),
      vscode.commands.registerCommand(CommandIds.findRequestInFleet, (arg?: unknown) => this.find(arg)),
      vscode.commands.registerCommand(CommandIds.setFleetCredentials, () => this.setCredentials()),
      vscode.commands.registerCommand(CommandIds.showFleetTimeline, () => this.timeline()),
    ];
  }

  /** Lines per log store: the test's override, else hoplens.fleet.lineLimit, within 1 … MAX_LINE_LIMIT. */
  private get lineLimit(): number {
    const n = this.deps.lineLimit ?? this.deps.settings.current.fleet.lineLimit ?? DEFAULT_LINE_LIMIT;
    return Number.isFinite(n) ? Math.min(MAX_LINE_LIMIT, Math.max(1, Math.floor(n))) : DEFAULT_LINE_LIMIT;
  }

  /**
   * The stores the settings name; hoplens.traces.queryUrl (hoplens.fleet.traces empty) as what its
   * address answers as — Tempo (/api/echo) or Jaeger, Jaeger when neither answers (its client then
   * says why) — detected once per address.
   */
  private async stores(): Promise<{ traces: StoreEndpoint[]; logs: StoreEndpoint[] }> {
    const c = this.deps.settings.current;
    const legacy = legacyQueryUrl(c);
    if (!legacy || !/^https?:\/\//i.test(legacy)) return configuredStores(c);
    let kind = this.legacyKinds.get(legacy);
    if (!kind) {
      kind = await detectBackend(legacy, { timeoutMs: this.deps.timeoutMs, credentials: await this.queryUrlCredentials(legacy) }).catch(() => undefined);
      if (kind) this.legacyKinds.set(legacy, kind);
    }
    return configuredStores(c, kind ?? 'jaeger');
  }

  /** What the check of hoplens.traces.queryUrl's kind is asked with: the credentials kept for the address, Tempo's tenant. */
  private async queryUrlCredentials(queryUrl: string): Promise<ClientOptions['credentials']> {
    const stored = await queryUrlCredentials((k) => this.deps.secrets.get(k), queryUrl);
    const fleet = this.deps.settings.current.fleet;
    const at = queryUrlEndpoint(queryUrl, 'tempo');
    const orgId = at ? tempoTenantOf(at, fleet.storeTenants ?? [], fleet.tenant) : undefined;
    return stored || orgId ? { ...stored, ...(orgId ? { orgId } : {}) } : undefined;
  }

  /** Says no store is set, with a button to the settings; the command does not wait for the user to answer it. */
  private noStores(): void {
    const open = 'Open Settings';
    void vscode.window.showInformationMessage(
      'HopLens: no fleet stores are set. Add a log store (victorialogs+http://HOST:9428, loki+…) to hoplens.fleet.logs or a trace store '
      + '(jaeger+http://HOST:16686, tempo+…) to hoplens.fleet.traces.', open,
    ).then((pick) => { if (pick === open) void vscode.commands.executeCommand('workbench.action.openSettings', 'hoplens.fleet'); });
  }

  /** Runs the command; resolves with the documents opened (for tests and callers). */
  async find(arg?: unknown): Promise<vscode.Uri[]> {
    const settings = this.deps.settings.current.fleet;
    let stores: { traces: StoreEndpoint[]; logs: StoreEndpoint[] };
    try { stores = await this.stores(); } catch (e) { showError(e); return []; }
    if (!stores.traces.length && !stores.logs.length) { this.noStores(); return []; }
    let query = queryOfArgument(arg);
    if (!query) {
      const typed = await vscode.window.showInputBox({
        title: 'HopLens: Find Request in the Fleet', prompt: 'A request id as you have it: chatcmpl-…, the engine\'s id, an SGLang rid, or a W3C trace id',
        placeHolder: 'chatcmpl-…', ignoreFocusOut: true,
      });
      if (!typed?.trim()) return [];
      query = /^[0-9a-f]{32}$/i.test(typed.trim()) ? { traceId: typed.trim(), requestId: typed.trim() } : { requestId: typed.trim() };
    }
    let window: TimeWindow;
    try { window = fleetWindow(settings.window, Date.now()); } catch (e) { showError(e); return []; }
    return this.run({
      query, label: query.requestId ?? query.traceId ?? '', stores, window, selector: settings.selector || undefined, lineLimit: this.lineLimit,
    });
  }

  /**
   * Each store's client options: its credentials from the secret storage, the tenant for Loki and
   * Tempo (X-Scope-OrgID) or VictoriaLogs (AccountID, ProjectID) — the store entry's own
   * (`{ "url", "tenant" }`) over hoplens.fleet.tenant / hoplens.fleet.victoriaLogsTenant — and
   * the time bound. Throws for a tenant written wrong or given to a store that takes none.
   */
  private async clientOptionsFor(all: readonly StoreEndpoint[]): Promise<(e: StoreEndpoint) => ClientOptions> {
    const settings = this.deps.settings.current.fleet;
    const tenant = settings.tenant?.trim() || undefined;
    const vlTenant = parseVictoriaLogsTenant(settings.victoriaLogsTenant ?? '', 'hoplens.fleet.victoriaLogsTenant');
    const own = storeTenantsOf(settings.storeTenants ?? []);
    const creds = new Map<string, ClientOptions['credentials']>();
    for (const e of all) {
      const stored = await storedCredentials((k) => this.deps.secrets.get(k), e);
      const mine = own.get(`${e.kind}+${e.baseUrl}`);
      const orgId = takesTenant(e) ? mine?.tenant ?? tenant : undefined;
      const vl = e.kind === 'victorialogs' && mine ? parseVictoriaLogsTenant(mine.tenant, `the tenant of "${mine.url}"`) : vlTenant;
      const c = {
        ...(stored ?? {}), ...(orgId ? { orgId } : {}),
        ...(e.kind === 'victorialogs' && vl ? vl : {}),
      };
      creds.set(`${e.kind}+${e.baseUrl}`, Object.keys(c).length ? c : undefined);
    }
    return (e) => ({ credentials: creds.get(`${e.kind}+${e.baseUrl}`), timeoutMs: this.deps.timeoutMs });
  }

  /** Asks the stores (progress with cancel) and opens what came back. */
  private async run(search: FleetSearch): Promise<vscode.Uri[]> {
    const all = [...search.stores.traces, ...search.stores.logs];
    let clientOptions: (e: StoreEndpoint) => ClientOptions;
    try { clientOptions = await this.clientOptionsFor(all); } catch (e) { showError(e); return []; }
    const ask = new AbortController();
    let result: FleetResult;
    try {
      result = await vscode.window.withProgress({
        location: vscode.ProgressLocation.Notification, cancellable: true,
        title: `HopLens: looking for ${forWorkbench(search.label)} in ${all.length} store(s)`,
      }, (_progress, token) => {
        token.onCancellationRequested(() => ask.abort());
        return findRequestInFleet({
          ...search.query, traces: search.stores.traces, logs: search.stores.logs, window: search.window, selector: search.selector,
          lineLimit: search.lineLimit, signal: ask.signal, clientOptions,
        });
      });
    } catch (e) {
      showError(e);
      return [];
    }
    if (ask.signal.aborted) return [];
    if (search.carried) result = { ...result, spans: [...search.carried.spans, ...result.spans], traceIds: [...search.carried.traceIds, ...result.traceIds] };
    return this.show(search, result);
  }

  /** A store's problem, with where to fix it when it refused the credentials or wants a tenant. */
  private problemText(p: FleetResult['problems'][number]): string {
    if (p.kind !== 'auth') return p.message;
    const tenant = takesTenant(p.endpoint)
      ? '; its tenant (X-Scope-OrgID) is the store entry\'s "tenant" ({ "url": …, "tenant": … }) or the setting hoplens.fleet.tenant' : '';
    return `${p.message} (HopLens: Set Fleet Store Credentials… keeps its token or user and password${tenant})`;
  }

  private async show(search: FleetSearch, result: FleetResult): Promise<vscode.Uri[]> {
    const { label, window } = search;
    for (const p of result.problems) this.deps.log.warn(`fleet: ${p.message}`);
    for (const a of result.asked) this.deps.log.info(`fleet: ${a}`);
    for (const n of result.notes) this.deps.log.info(`fleet: ${n}`);
    if (result.problems.length) {
      void vscode.window.showWarningMessage(`HopLens: ${result.problems.length} store(s) did not answer, the others' results are shown: `
        + forWorkbench(result.problems.map((p) => this.problemText(p)).join('; '), 2000));
    }
    if (!foundAnything(result)) {
      const asked = result.asked.length ? result.asked.join('; ') : 'no store answered';
      const notes = result.notes.length ? ` ${result.notes.join(' ')}` : '';
      const text = `HopLens: nothing found for ${forWorkbench(label)} over ${windowText(window)}. `
        + `Asked: ${forWorkbench(asked, 2000)}${forWorkbench(notes, 1000)}`;
      void vscode.window.showInformationMessage(text);
      return [];
    }
    const added = this.documents.add(label, result, window.endMs, search.continues);
    const docs = added.docs;
    this.last = { label, uris: added.all, spans: result.spans };
    for (const [i, d] of docs.entries()) {
      let doc = await vscode.workspace.openTextDocument(d.uri);
      if (doc.languageId !== 'log') doc = await vscode.languages.setTextDocumentLanguage(doc, 'log');
      await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: i > 0 });
    }
    const lines = docs.reduce((n, d) => n + d.lines, 0);
    const spans = result.spans.length ? `; ${result.spans.length} span(s) in trace(s) ${result.traceIds.join(', ')}` : '';
    const more = Math.min(MAX_LINE_LIMIT, search.lineLimit * 4);
    const canMore = result.truncated && more > search.lineLimit;
    const cut = result.truncated
      ? ` Cut by the limit of ${search.lineLimit} lines per log store: older lines were not fetched`
        + `${canMore ? ` (Fetch More asks for up to ${more})` : ''}; or narrow hoplens.fleet.window or hoplens.fleet.selector.`
      : '';
    const fanOut = result.notes.filter((n) => !/had more lines than the limit/.test(n));
    const notes = fanOut.length ? ` ${fanOut.join(' ')}` : '';
    const say = result.truncated || fanOut.length ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    const timeline = 'Show Timeline';
    const fetchMore = 'Fetch More';
    const buttons = canMore ? [fetchMore, timeline] : [timeline];
    void say(`HopLens: ${forWorkbench(label)}: ${lines} line(s) from ${docs.length} pod(s)${spans}.${cut}${forWorkbench(notes, 1000)}`, ...buttons)
      .then((pick) => {
        if (pick === timeline) void this.timeline();
        if (pick === fetchMore) {
          const carried = { spans: result.spans, traceIds: result.traceIds };
          void this.run({ ...search, lineLimit: more, stores: { traces: [], logs: search.stores.logs }, carried, continues: added.search });
        }
      });
    return docs.map((d) => d.uri);
  }

  /**
   * The last search's request on the timeline: one log per pod (its document, labelled by its
   * pod, so each pod gets its own clock offset) and the spans the trace stores gave.
   */
  async timeline(): Promise<boolean> {
    const last = this.last;
    const sources = last?.uris.map((u) => this.documents.source(u)).filter((s): s is LogSource => s !== undefined) ?? [];
    if (!last || (!sources.length && !last.spans.length) || !this.deps.showTimeline) {
      void vscode.window.showInformationMessage(
        'HopLens: find a request in the fleet first (HopLens: Find Request in the Fleet…); its timeline shows the pods it found.',
      );
      return false;
    }
    return this.deps.showTimeline({ query: last.label, sources, spans: last.spans });
  }

  /** Keeps a bearer token, or a user and password, for one store in the secret storage, or removes them. */
  async setCredentials(): Promise<void> {
    let stores: { traces: StoreEndpoint[]; logs: StoreEndpoint[] };
    try { stores = await this.stores(); } catch (e) { showError(e); return; }
    const all = [...stores.traces, ...stores.logs];
    // Show Engine Timing's lookup reads the credentials kept here for hoplens.traces.queryUrl, also while hoplens.fleet.traces names other stores.
    const queryUrl = (this.deps.settings.current.traces as Partial<HopLensConfig['traces']> | undefined)?.queryUrl?.trim() ?? '';
    const lookup = queryUrlEndpoint(queryUrl, this.legacyKinds.get(queryUrl) ?? 'jaeger');
    const lookupListed = !lookup || stores.traces.some((e) => e.baseUrl === lookup.baseUrl);
    if (!all.length && lookupListed) { this.noStores(); return; }
    const items: Array<{ label: string; description?: string; endpoint: StoreEndpoint }> =
      all.map((e) => ({ label: forWorkbench(`${e.kind}+${e.baseUrl}`), endpoint: e }));
    if (lookup && !lookupListed) {
      items.push({ label: forWorkbench(`${lookup.kind}+${lookup.baseUrl}`), description: 'hoplens.traces.queryUrl (Show Engine Timing)', endpoint: lookup });
    }
    const picked = items.length === 1 ? items[0] : await vscode.window.showQuickPick(items, { title: 'HopLens: which store the credentials are for' });
    if (!picked) return;
    const kinds = [
      { label: 'Bearer token', how: 'token' as const, description: 'Authorization: Bearer …' },
      { label: 'User and password', how: 'login' as const, description: 'Authorization: Basic …' },
      { label: 'Remove the stored credentials', how: 'remove' as const },
    ];
    const tenantNote = takesTenant(picked.endpoint) ? ' (its tenant, X-Scope-OrgID, is its entry\'s "tenant" or the setting hoplens.fleet.tenant)' : '';
    const how = await vscode.window.showQuickPick(kinds, { title: `HopLens: how ${forWorkbench(picked.label)} takes credentials${tenantNote}` });
    if (!how) return;
    const tokenKey = fleetTokenKey(picked.endpoint);
    const loginKey = fleetLoginKey(picked.endpoint);
    if (how.how === 'remove') {
      await this.deps.secrets.delete(tokenKey);
      await this.deps.secrets.delete(loginKey);
      void vscode.window.showInformationMessage(`HopLens: credentials removed for ${forWorkbench(picked.label)}.`);
      return;
    }
    if (how.how === 'token') {
      const token = await vscode.window.showInputBox({
        title: `HopLens: bearer token for ${forWorkbench(picked.label)} (kept in VS Code's secret storage)`,
        password: true, placeHolder: 'empty to remove the stored token', ignoreFocusOut: true,
      });
      if (token === undefined) return;
      if (token.trim()) {
        await this.deps.secrets.store(tokenKey, token.trim());
        await this.deps.secrets.delete(loginKey);
      } else await this.deps.secrets.delete(tokenKey);
      const done = token.trim() ? 'stored' : 'removed';
      void vscode.window.showInformationMessage(`HopLens: token ${done} for ${forWorkbench(picked.label)}.`);
      return;
    }
    const username = await vscode.window.showInputBox({
      title: `HopLens: user for ${forWorkbench(picked.label)}`, placeHolder: 'user name', ignoreFocusOut: true,
      validateInput: (v) => (v.includes(':') ? 'a user name for basic auth has no colon' : undefined),
    });
    if (username === undefined || !username.trim()) return;
    const password = await vscode.window.showInputBox({
      title: `HopLens: password for ${forWorkbench(username.trim())} at ${forWorkbench(picked.label)} (kept in VS Code's secret storage)`,
      password: true, ignoreFocusOut: true,
    });
    if (password === undefined) return;
    await this.deps.secrets.store(loginKey, JSON.stringify({ username: username.trim(), password }));
    await this.deps.secrets.delete(tokenKey);
    void vscode.window.showInformationMessage(`HopLens: user and password stored for ${forWorkbench(picked.label)}.`);
  }

  dispose(): void { for (const d of this.disposables) d.dispose(); }
}
