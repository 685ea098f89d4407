// The Requests view: one node per request of the current server log (id, first time, hop
// count, span), its hops in order with process and delta, then the hops it never printed and why.
import * as vscode from 'vscode';
import type { RequestGroup, RequestHop, MissingHop } from '../../core/logs/requests';
import type { RequestTracker } from '../../core/logs/requests';
import type { Engine, LogRecord } from '../../core/logs/model';
import { ridMatchesQuery } from '../../core/logs/requestIds';
import { findHop } from '../../engines/index';
import type { HopDef } from '../../engines/index';
import { hopLabel } from './hopPresentation';
import { shortFormat } from '../../engines/shortName';
import { engineProfile } from '../../engines/registry';
import { CommandIds } from '../../commandIds';
import { clockStamp, printedTimeOfDay } from '../../core/logs/clockStamp';
import { Disposable } from '../../util/dispose';
import { forWorkbench } from '../../core/text/workbench';
import { LogTransferJoins, type Joined, type JoinedLine } from '../../core/logs/transferJoin';
import { requestKey } from '../../core/timeline/requestKey';

export { documentLogSource, type RequestLogSource } from '../shared/logSessions';
import type { RequestLogSource } from '../shared/logSessions';

type Brief = NonNullable<ReturnType<RequestTracker['brief']>>;

type Node =
  | { kind: 'request'; brief: Brief; source: RequestLogSource }
  | { kind: 'hop'; hop: RequestHop; group: RequestGroup; source: RequestLogSource }
  | { kind: 'missing'; missing: MissingHop; group: RequestGroup }
  | { kind: 'engine'; rid: string; timing: EngineTimingLine }
  | { kind: 'info'; text: string }
  | { kind: 'plainRequest'; request: string; lines: readonly PlainLine[]; source: RequestLogSource; joinedBy?: ReadonlyMap<number, JoinedBy> }
  | { kind: 'plain'; rid: string; line: PlainLine; source: RequestLogSource; joinedBy?: JoinedBy };

/** How a plain line joined its request: the transfer id it names (`bootstrap_room N`), and the other logs whose lines paired it with the request. */
interface JoinedBy { id: string; pairedIn: readonly string[] }

/** A line of the log naming a request that is not one of its hop lines (a KV-transfer connector's, a DEBUG line). */
export interface PlainLine { line: number; text: string }
/**
 * For a log that holds one request's lines (a fleet document: the store filtered them), that
 * request as the user named it and the log's lines (1-based) that name it; undefined for other logs.
 */
export type PlainLinesLookup = (uri: vscode.Uri) => { request: string; lines: readonly PlainLine[] } | undefined;
/**
 * The other open logs a log's rows look in for the line pairing a transfer id with a request (a
 * decode instance's log beside a prefill instance's): the open logs, the source among them or not.
 */
export type PeerLogsLookup = () => readonly RequestLogSource[];
/** Plain lines listed under one request at most (the rest are a count). */
const MAX_PLAIN_NODES = 500;
/** The extension host's time one look for a log's transfer-id lines takes at most; the rest is read in later turns. */
const JOIN_BUDGET_MS = 40;

/**
 * A hop's line of the legend, made once per hop: VS Code asks for up to 1,000 rows in one task
 * as the view opens with a big log, right after its first lens (127 ms of the host's thread for
 * a 10 MiB log's rows when each row made its own).
 */
const legendLines = new WeakMap<HopDef, string>();
function legendLine(def: HopDef): string {
  let line = legendLines.get(def);
  if (line === undefined) {
    line = `: ${shortFormat(def.format) || def.format}${def.meaning ? ` (${def.meaning.split(/(?<=\.)\s/)[0]})` : ''}`;
    legendLines.set(def, line);
  }
  return line;
}

/** What each hop id of a request means, for its tooltip ("V2: Added request …", one a line). */
function hopLegend(engine: Engine | null, hops: readonly string[]): string {
  if (!engine) return '';
  const lines = hops.map((id) => {
    const def = findHop(engine, id);
    return def ? `\n  ${id}${legendLine(def)}` : '';
  }).join('');
  return lines ? `\nwhat the hop ids mean (HopLens: Show Hop Table has them all):${lines}` : '';
}

/** The engine's own timing of a request (an OpenTelemetry llm_request span), when one arrived. */
export interface EngineTimingLine { label: string; description: string; tooltip: string }
export type EngineTimingLookup = (rid: string) => EngineTimingLine | null;

/**
 * Keep the tree responsive on logs with very many requests: the most recent ones are listed (a
 * live log's new requests, the one just traced), older ones through the filter. VS Code converts
 * every row on the extension host's thread: 5,000 rows cost this code alone 23 ms.
 */
const MAX_REQUEST_NODES = 1000;

/** Whether a log's engine names a request's transfer by an id of its own (SGLang's bootstrap_room). */
function hasTransferIds(log: Pick<RequestLogSource, 'engine'>): boolean {
  return !!log.engine && engineProfile(log.engine).transferIds !== undefined;
}

/**
 * A log's lines joined to a request by a transfer id, as plain lines and what each joined by: the
 * id (`bootstrap_room N`), and the logs `pairedIn` names as having paired it.
 */
function joinedRows(joined: Joined, pairedIn: (j: JoinedLine) => string[]): { lines: PlainLine[]; by: Map<number, JoinedBy> } {
  const by = new Map(joined.lines.map((j) => [j.record.line, { id: `${joined.label} ${j.id}`, pairedIn: pairedIn(j) }]));
  return { lines: joined.lines.map((j) => ({ line: j.record.line, text: j.record.message })), by };
}

export class RequestsViewProvider extends Disposable implements vscode.TreeDataProvider<Node> {
  private readonly changed = this._register(new vscode.EventEmitter<Node | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private source: RequestLogSource | undefined;
  private filter = '';
  private view: vscode.TreeView<Node> | undefined;
  private engineTiming: EngineTimingLookup = () => null;
  private plainLinesOf: PlainLinesLookup = () => undefined;
  /** The log's lines naming only a request's transfer id (SGLang's bootstrap_room), read when a request is expanded. */
  private readonly transferJoins = new LogTransferJoins(requestKey);
  private joinTimer: NodeJS.Timeout | undefined;
  /** The rows of requests named only by their transfer id, for the answer they were made from. */
  private roomRows: {
    found: ReadonlyMap<string, unknown>; source: RequestLogSource; filter: string; requests: number; rows: Node[]; total: number;
  } | undefined;
  private peerLogsOf: PeerLogsLookup = () => [];
  private peersChanged: vscode.Disposable | undefined;

  /**
   * Lets a request's row list its log's lines naming only a transfer id that another open log's
   * lines pair with the request; `changed` fires when an open log changes (a peer's new lines refresh the rows).
   */
  setPeerLogs(lookup: PeerLogsLookup, changed?: vscode.Event<vscode.Uri>): void {
    this.peerLogsOf = lookup;
    this.peersChanged?.dispose();
    this.peersChanged = changed?.((uri) => {
      const s = this.source;
      if (s && hasTransferIds(s) && s.uri.toString() !== uri.toString() && this.peersOf(s).some((p) => p.uri.toString() === uri.toString())) this.refresh();
    });
    this.refresh();
  }

  /** The open logs other than `source` of an engine with transfer ids whose records are kept. */
  private peersOf(source: RequestLogSource): RequestLogSource[] {
    const own = source.uri.toString();
    return this.peerLogsOf().filter((p) => p.uri.toString() !== own && hasTransferIds(p) && (p.records?.length ?? 0) > 0);
  }

  /** Lists, under a request, the lines of its log that name it but are no hop (fleet documents). */
  setPlainLinesLookup(lookup: PlainLinesLookup): void {
    this.plainLinesOf = lookup;
    this.refresh();
  }

  /** The listed request the log's plain lines belong to, or none (then they are a row of their own). */
  private plainOwner(request: string, rids: readonly string[]): string | undefined {
    return rids.find((rid) => rid.includes(request) || ridMatchesQuery(rid, request));
  }

  /** Plain nodes for a request: the lookup's lines that are none of its hop lines, capped. */
  private plainNodes(rid: string, lines: readonly PlainLine[], hopLines: ReadonlySet<number>, source: RequestLogSource,
    joinedBy?: ReadonlyMap<number, JoinedBy>): Node[] {
    const rest = lines.filter((l) => !hopLines.has(l.line));
    const node = (line: PlainLine): Node => {
      const by = joinedBy?.get(line.line);
      return by === undefined ? { kind: 'plain', rid, line, source } : { kind: 'plain', rid, line, source, joinedBy: by };
    };
    const out: Node[] = rest.slice(0, MAX_PLAIN_NODES).map(node);
    if (rest.length > MAX_PLAIN_NODES) out.push({ kind: 'info', text: `${(rest.length - MAX_PLAIN_NODES).toLocaleString('en-US')} more lines name it` });
    return out;
  }

  /** Joins OpenTelemetry timings to the requests (by the same normalised id). */
  setEngineTimingLookup(lookup: EngineTimingLookup): void {
    this.engineTiming = lookup;
    this.refresh();
  }

  attach(view: vscode.TreeView<Node>): void {
    this.view = view;
    this.updateMessage();
  }

  setSource(source: RequestLogSource | undefined): void {
    this.source = source;
    this.refresh();
  }

  get currentSource(): RequestLogSource | undefined { return this.source; }

  /** Whether the Requests view is on screen. */
  get visible(): boolean { return this.view?.visible ?? false; }

  get currentFilter(): string { return this.filter; }

  setFilter(filter: string): void {
    this.filter = filter.trim();
    void vscode.commands.executeCommand('setContext', 'hoplens.requestFilterActive', this.filter.length > 0);
    this.refresh();
  }

  refresh(): void {
    this.changed.fire(undefined);
    this.updateMessage();
  }

  private refreshTimer: NodeJS.Timeout | undefined;
  /** Coalesces bursts of updates (spans arrive in batches) into one refresh. */
  refreshSoon(): void {
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => { this.refreshTimer = undefined; this.refresh(); }, 500);
  }

  override dispose(): void {
    clearTimeout(this.refreshTimer);
    clearTimeout(this.joinTimer);
    this.peersChanged?.dispose();
    super.dispose();
  }

  /** What the view lists now: its log, and the request ids of its rows. */
  listed(): { uri: vscode.Uri; label: string; rids: string[]; total: number; filter: string } | undefined {
    const s = this.source;
    return s && { uri: s.uri, label: s.label, ...this.listedRids(s), filter: this.filter };
  }

  /** The request ids listed at the top level, in log order: the most recent that pass the filter. */
  private listedRids(s: RequestLogSource): { rids: string[]; total: number } {
    const all: string[] = [];
    // The filter is part of an id, as its input box says (`myrun` finds chatcmpl-myrun-0001), or an id
    // in any form the server printed it (`chatcmpl-myrun-0001-9e1f0c2d` finds chatcmpl-myrun-0001).
    for (const rid of s.tracker.rids()) if (!this.filter || rid.includes(this.filter) || ridMatchesQuery(rid, this.filter)) all.push(rid);
    return { rids: all.length > MAX_REQUEST_NODES ? all.slice(-MAX_REQUEST_NODES) : all, total: all.length };
  }

  /** Shows and selects a request by id (after a traced request); an older one not listed is filtered to first. */
  async reveal(rid: string): Promise<boolean> {
    const brief = this.source?.tracker.brief(rid);
    if (!brief || !this.view || !this.source) return false;
    if (!this.listedRids(this.source).rids.includes(rid)) this.setFilter(rid);
    await this.view.reveal({ kind: 'request', brief, source: this.source }, { select: true, focus: false, expand: true });
    return true;
  }

  private updateMessage(): void {
    if (!this.view) return;
    const s = this.source;
    if (!s) { this.view.message = undefined; this.view.description = undefined; return; }
    const n = s.tracker.requestCount;
    // The count says whether the list is complete: a big log is listed while it is read.
    const count = `${n.toLocaleString('en-US')} request${n === 1 ? '' : 's'}`;
    this.view.description = `${s.label} · ${s.reading ? `${count} so far, reading…` : count}`;
    const plain = n === 0 ? this.plainLinesOf(s.uri) : undefined;
    const roomOnly = n === 0 && !plain?.lines.length ? this.roomOnlyRequests(s) : undefined;
    this.view.message = n === 0 && plain?.lines.length
      ? `No hop line in ${s.label}; ${plain.lines.length === 1 ? '1 line names' : `${plain.lines.length} lines name`} ${plain.request}.`
      : Array.isArray(roomOnly) && roomOnly.length
      ? `No hop line in ${s.label}; ${this.countRoomOnly(roomOnly)} named here only by their ${this.transferLabel(s)}.`
      : n === 0
      ? `No requests found in ${s.label}${s.engine ? '' : ' (not a vLLM or SGLang log)'}.`
      : this.filter ? `Filter: ${this.filter}` : undefined;
  }

  getParent(node: Node): Node | undefined {
    const parentOf = (group: RequestGroup, source: RequestLogSource | undefined): Node | undefined => {
      const brief = source?.tracker.brief(group.rid);
      return brief && source ? { kind: 'request', brief, source } : undefined;
    };
    if (node.kind === 'hop') return parentOf(node.group, node.source);
    if (node.kind === 'missing') return parentOf(node.group, this.source);
    return undefined;
  }

  getChildren(node?: Node): Node[] {
    const s = this.source;
    if (!s) return [];
    if (!node) {
      const { rids, total } = this.listedRids(s);
      // Rows use the cheap summary; the full group (deltas, missing hops) is built on expand.
      const out: Node[] = [];
      if (rids.length < total) {
        const text = `Showing the last ${rids.length.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} requests; filter by id to find others.`;
        out.push({ kind: 'info', text });
      }
      for (const rid of rids) {
        const brief = s.tracker.brief(rid);
        if (brief) out.push({ kind: 'request', brief, source: s });
      }
      const plain = this.plainLinesOf(s.uri);
      if (plain?.lines.length && !this.plainOwner(plain.request, rids)) {
        out.push({ kind: 'plainRequest', request: plain.request, lines: plain.lines, source: s });
      }
      const roomOnly = this.roomOnlyRequests(s);
      if (roomOnly === 'reading') out.push({ kind: 'info', text: `reading the open logs for requests named here only by their ${this.transferLabel(s)}…` });
      else if (roomOnly) out.push(...roomOnly);
      return out;
    }
    if (node.kind === 'request') {
      const group = node.source.tracker.get(node.brief.rid);
      if (!group) return [];
      const timing = this.engineTiming(group.rid);
      const plain = this.plainLinesOf(node.source.uri);
      const owner = plain?.lines.length ? this.plainOwner(plain.request, this.listedRids(node.source).rids) : undefined;
      const lines = plain && owner === group.rid ? plain.lines : [];
      const found = this.joinedLines(node.source, group.rid, lines);
      const joined = found === 'reading' ? undefined : found;
      return [
        ...(timing ? [{ kind: 'engine', rid: group.rid, timing } as Node] : []),
        ...group.hops.map((hop): Node => ({ kind: 'hop', hop, group, source: node.source })),
        ...(found === 'reading' ? [{ kind: 'info', text: `reading the log for lines that name only its ${this.transferLabel(node.source)}…` } as Node] : []),
        ...(joined || lines.length
          ? this.plainNodes(group.rid, joined?.lines ?? lines, new Set(group.hops.map((h) => h.line)), node.source, joined?.by)
          : []),
        ...group.missing.map((missing): Node => ({ kind: 'missing', missing, group })),
      ];
    }
    if (node.kind === 'plainRequest') return this.plainNodes(node.request, node.lines, new Set(), node.source, node.joinedBy);
    return [];
  }

  /**
   * With the log's lines naming only a transfer id this request alone was paired with (a line of it,
   * in this log or another open one, names the id beside its id), `lines` and those in line order,
   * each joined one with what it joined by (`bootstrap_room N`); undefined when the log has none for it.
   */
  private joinedLines(source: RequestLogSource, rid: string, lines: readonly PlainLine[]):
    { lines: PlainLine[]; by: Map<number, JoinedBy> } | undefined | 'reading' {
    const records = source.records;
    // Only an engine with a transfer id (SGLang) has such lines: a vLLM log is not read for them.
    if (!records?.length || !hasTransferIds(source)) return undefined;
    const peers = this.peersOf(source);
    const logs = [records, ...peers.map((p) => p.records!)];
    const found = this.transferJoins.across(logs, requestKey(rid), JOIN_BUDGET_MS);
    if (found === 'reading') { this.joinSoon(logs); return 'reading'; }
    const joined = found[0];
    if (!joined) return undefined;
    // Paired by this log's own lines: nothing more to say; else the peers that paired it (logs[i] is peers[i - 1]).
    const rows = joinedRows(joined, (j) => (j.pairedIn.includes(0) ? [] : j.pairedIn.map((i) => peers[i - 1].label)));
    const all = [...lines.filter((l) => !rows.by.has(l.line)), ...rows.lines];
    return { lines: all.sort((a, b) => a.line - b.line), by: rows.by };
  }

  /**
   * Rows for the requests the log names only by their transfer id (a prefill instance's log whose
   * lines of a request are its KV transfer's): a line of another open log (the decode instance's)
   * pairs the id with the request, which has no hop line here. Read only with such a log open;
   * undefined when none is, 'reading' while the logs are read.
   */
  private roomOnlyRequests(s: RequestLogSource): Node[] | 'reading' | undefined {
    const records = s.records;
    if (!records?.length || !hasTransferIds(s)) return undefined;
    const peers = this.peersOf(s);
    if (peers.length === 0) return undefined;
    const logs = [records, ...peers.map((p) => p.records!)];
    const found = this.transferJoins.requestsOf(logs, 0, JOIN_BUDGET_MS);
    if (found === 'reading') { this.joinSoon(logs); return 'reading'; }
    const c = this.roomRows;
    if (c && c.found === found && c.source === s && c.filter === this.filter && c.requests === s.tracker.requestCount) return c.rows;
    const rows: { first: number; node: Node }[] = [];
    for (const [key, joined] of found) {
      // A request with a hop line here has its row, and its room lines under it.
      if (s.tracker.storedId(key) !== undefined) continue;
      if (this.filter && !key.includes(this.filter) && !ridMatchesQuery(key, this.filter)) continue;
      const { lines, by } = joinedRows(joined, (j) => j.pairedIn.filter((i) => i > 0).map((i) => peers[i - 1].label));
      rows.push({ first: lines[0].line, node: { kind: 'plainRequest', request: key, lines, source: s, joinedBy: by } });
    }
    rows.sort((a, b) => a.first - b.first);
    // As the rows above: the most recent, the others through the filter.
    const shown: Node[] = rows.slice(-MAX_REQUEST_NODES).map((r) => r.node);
    if (rows.length > MAX_REQUEST_NODES) {
      shown.unshift({ kind: 'info', text: `Showing the last ${MAX_REQUEST_NODES.toLocaleString('en-US')} of ${rows.length.toLocaleString('en-US')} requests `
        + `named here only by their ${this.transferLabel(s)}; filter by id to find others.` });
    }
    this.roomRows = { found, source: s, filter: this.filter, requests: s.tracker.requestCount, rows: shown, total: rows.length };
    return shown;
  }

  /** "1 request is", "2 requests are": the requests of the rows roomOnlyRequests made last. */
  private countRoomOnly(rows: readonly Node[]): string {
    const n = this.roomRows?.rows === rows ? this.roomRows.total : rows.length;
    return n === 1 ? '1 request is' : `${n.toLocaleString('en-US')} requests are`;
  }

  /** Goes on reading the logs (the source's records first) for transfer-id lines in later turns, then shows what it found. */
  private joinSoon(logs: readonly (readonly LogRecord[])[]): void {
    if (this.joinTimer) return;
    this.joinTimer = setTimeout(() => {
      this.joinTimer = undefined;
      if (this.source?.records !== logs[0]) return;
      if (this.transferJoins.across(logs, '', JOIN_BUDGET_MS) === 'reading') this.joinSoon(logs);
      else this.refresh();
    }, 0);
  }

  /** What the log's engine calls a request's transfer id (`bootstrap_room`). */
  private transferLabel(source: RequestLogSource): string {
    return (source.engine && engineProfile(source.engine).transferIds?.label) || 'transfer id';
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case 'request': {
        const g = node.brief;
        const item = new vscode.TreeItem(g.rid, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `req:${g.rid}`;
        // Server time as the log printed it (no zone: the log gave none).
        const res = g.firstResolution ?? 's';
        const when = g.firstTime !== null ? printedTimeOfDay(g.firstTime, res) : `line ${g.firstLine}`;
        // The rows under it are one per hop line (a hop such as V6 prints once per delta), then the hops not printed.
        const lines = g.hopLines === g.hops.length ? '' : ` in ${g.hopLines} lines`;
        // …and the hops it never printed, each a row of its own below them.
        const missing = node.source.tracker.missingCount(g.rid);
        const notPrinted = missing > 0 ? ` · ${missing} not printed` : '';
        item.description = `${when} · ${g.hops.length} hop${g.hops.length === 1 ? '' : 's'}${lines}${notPrinted}${g.span ? ` · ${g.span.text}` : ''}`;
        const first = g.firstTime !== null ? `\nfirst stamp ${clockStamp(g.firstTime, res, false)} (server time, as the log printed it)` : '';
        item.tooltip = `${g.rid}\nfirst line ${g.firstLine}${first}\nhops: ${g.hops.join(' → ')}${hopLegend(node.source.engine, g.hops)}`;
        item.iconPath = new vscode.ThemeIcon('pulse');
        item.contextValue = 'hoplens.request';
        item.command = { command: CommandIds.revealLogLine, title: 'Reveal', arguments: [node.source.uri, g.firstLine] };
        return item;
      }
      case 'hop': {
        const def = node.group.engine ? findHop(node.group.engine, node.hop.hop) : undefined;
        const short = def ? shortFormat(def.format) : '';
        const label = def ? (short ? `${hopLabel(def)} · ${short}` : hopLabel(def)) : node.hop.hop;
        const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
        item.id = `hop:${node.group.rid}:${node.hop.line}`;
        const since = node.hop.sincePrevious ? `+${node.hop.sincePrevious.text}` : 'first';
        item.description = `${node.hop.process ?? node.hop.role ?? ''} · ${since} · line ${node.hop.line}`;
        item.tooltip = `${def?.meaning ?? ''}\nsince the request's first line: ${node.hop.sinceFirst?.text ?? '—'}`;
        item.iconPath = new vscode.ThemeIcon('debug-stackframe-dot');
        item.command = { command: CommandIds.revealLogLine, title: 'Reveal', arguments: [node.source.uri, node.hop.line] };
        return item;
      }
      case 'missing': {
        const def = node.group.engine ? findHop(node.group.engine, node.missing.hop) : undefined;
        const item = new vscode.TreeItem(`${def ? hopLabel(def) : node.missing.hop} not printed`, vscode.TreeItemCollapsibleState.None);
        item.description = node.missing.reason;
        item.tooltip = node.missing.reason + (node.missing.seenInOtherRequests
          ? '\nOther requests in this log printed it, so its gate is on: this request took another path.'
          : '');
        item.iconPath = new vscode.ThemeIcon('circle-slash');
        return item;
      }
      case 'engine': {
        const item = new vscode.TreeItem(node.timing.label, vscode.TreeItemCollapsibleState.None);
        item.description = node.timing.description;
        item.tooltip = node.timing.tooltip;
        item.iconPath = new vscode.ThemeIcon('radio-tower');
        item.command = { command: CommandIds.showEngineTiming, title: 'Show Engine Timing', arguments: [node.rid] };
        return item;
      }
      case 'info':
        return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      case 'plainRequest': {
        const item = new vscode.TreeItem(node.request, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `plainreq:${node.request}`;
        const names = node.lines.length === 1 ? '1 line names' : `${node.lines.length} lines name`;
        if (!node.joinedBy?.size) {
          item.description = `no hop · ${names} it`;
          item.tooltip = `${node.request}\nNo hop line of this request in ${node.source.label}; the lines that name it are listed.`;
        } else {
          const ids = [...new Set([...node.joinedBy!.values()].map((b) => b.id))];
          const where = [...new Set([...node.joinedBy!.values()].flatMap((b) => b.pairedIn))];
          item.description = `no hop · ${names} its ${ids.length === 1 ? ids[0] : `${ids.length} transfer ids`}`;
          item.tooltip = `${node.request}\nNo hop line of this request in ${forWorkbench(node.source.label, 200)}; its lines here name only ${ids.join(', ')}, `
            + `which a line of the request${where.length ? ` in ${where.map((l) => forWorkbench(l, 200)).join(', ')}` : ''} names beside its id.`;
        }
        item.iconPath = new vscode.ThemeIcon('pulse');
        item.command = { command: CommandIds.revealLogLine, title: 'Reveal', arguments: [node.source.uri, node.lines[0].line] };
        return item;
      }
      case 'plain': {
        // Store text as text (escape codes visible as \x1b, no icon or link syntax), cut to a row's width.
        const item = new vscode.TreeItem(forWorkbench(node.line.text.trim(), 120), vscode.TreeItemCollapsibleState.None);
        item.id = `plain:${node.rid}:${node.line.line}`;
        const by = node.joinedBy;
        item.description = by === undefined ? `line ${node.line.line}` : `line ${node.line.line} · by ${by.id}`;
        const where = by?.pairedIn.length ? ` in ${by.pairedIn.map((l) => forWorkbench(l, 200)).join(', ')}` : '';
        item.tooltip = by === undefined
          ? `a line naming the request, not a hop\n${forWorkbench(node.line.text, 1000)}`
          : `joined by ${by.id}: this line names only that, and a line of the request${where} names it beside the request's id\n`
            + forWorkbench(node.line.text, 1000);
        item.iconPath = new vscode.ThemeIcon('circle-small');
        item.command = { command: CommandIds.revealLogLine, title: 'Reveal', arguments: [node.source.uri, node.line.line] };
        return item;
      }
    }
  }
}
