// Which events of a request must happen before which others, across sources, as orderings for
// clockOffsets.ts. Every rule below holds for the engines' own code paths; a rule that holds
// only sometimes is left out, because one false ordering would bend every offset.
//
//  router   "started processing request" (before it forwards) ≤ any line of an engine about the request
//  engine   received before the response headers (vLLM V1/V1b, SGLang S1 — not S2, printed
//           once the streaming body runs) ≤ the router's "finished processing request" (the
//           headers come back from the instance that answers: a single instance, or the
//           decode instance of a prefill/decode pair)
//  P → D    vLLM: the proxy sends to the decode instance only after the prefill instance
//           answered, so every prefill line before its response (V1, V2, V6) ≤ decode's V1;
//           SGLang: decode finishes after the prefill it waits for had the request (S1/S2
//           prefill ≤ S5/S6 decode)
//  split    one SGLang server whose request logger writes to its own file
//           (--log-requests-target): Receive (S2) ≤ ReqTimeStats (S5) ≤ Finish (S6)
//  OTLP     vLLM's llm_request starts at arrival, set before Added request (V2) is printed, and
//           ends when the output processor finishes it, after V1 and V2
//  client   the request is sent before any server sees it; the engines have it (V1, V2, S2;
//           the router's "started") before the first frame arrives; V1 / S1 and the router's
//           "finished" come before the response headers; the span's first token is before the
//           first frame, its end before the stream's end
//
// vLLM's API-server and engine-core processes share no request line (the engine core prints
// none at INFO), so an engine-core log gets no ordering: it is taken to run on the reference
// clock unless the user says otherwise.
import { clockTraits, engineProfile, isEngine } from '../../engines/registry';
import type { SpanStore } from '../otlp/engineTiming';
import type { EngineTiming } from '../otlp/types';
import { OrderingSet, type PairBound } from './clockOffsets';
import type { RequestLogs } from './requestLogs';
import { STAMP, type StampReader, type StampSlot } from './requestStamps';
import { requestKey } from './requestKey';
import type { ClientRequest } from './clientRequest';
import { firstFrameMs } from './clientRequest';
import type { Turns } from '../session/pace';

/** What a log file is, for this request: decides which rules apply. */
export type LogRole = 'router' | 'prefill' | 'decode' | 'instance' | 'unknown';

export interface RuleSources {
  key: string;
  logs: readonly { domain: string; log: RequestLogs; role: LogRole }[];
  client: { domain: string; request: ClientRequest } | null;
  spans: { domain: string; store: SpanStore } | null;
}

const WHAT: Record<number, string> = {
  [STAMP.arrive]: 'received the request', [STAMP.admit]: 'Added request (V2)', [STAMP.beforeResponse]: 'last line before its response',
  [STAMP.engineFinish]: 'ReqTimeStats (S5)', [STAMP.apiFinish]: 'Finish (S6)',
  [STAMP.routerReceived]: 'router: started processing request', [STAMP.routerResponded]: 'router: finished processing request',
  [STAMP.beforeHeaders]: 'received the request',
};

const ENGINE_SLOTS: StampSlot[] = [STAMP.arrive, STAMP.admit, STAMP.beforeResponse, STAMP.engineFinish, STAMP.apiFinish];

/** The slot of an engine file's earliest stamp for one request (its lower end), or -1. */
function earliest(s: StampReader, row: number): StampSlot | -1 {
  let best: StampSlot | -1 = -1;
  for (const slot of ENGINE_SLOTS) if (s.has(row, slot) && (best === -1 || s.time(row, slot) < s.time(row, best))) best = slot;
  return best;
}

/**
 * The role of each log for this request, from its own lines: vLLM's prefill instance gets the
 * request with `'do_remote_decode': True` in its kv_transfer_params (or, without them in the
 * printed params, max_tokens=1 while another instance has the same request with more), SGLang
 * prints `type=prefill` / `type=decode` in ReqTimeStats.
 */
export function inferRoles(logs: readonly RequestLogs[]): LogRole[] {
  const roles: LogRole[] = logs.map((l) => (l.kind === 'router' ? 'router' : l.records.length ? 'instance' : 'unknown'));
  const maxTokens: (number | null)[] = logs.map(() => null);
  for (const [i, l] of logs.entries()) {
    for (const { record } of l.records) {
      const m = record.message;
      if (record.hop === 'V1') {
        if (/'do_remote_decode': True/.test(m)) roles[i] = 'prefill';
        else if (/'do_remote_prefill': True/.test(m)) roles[i] = 'decode';
        const mt = /\bmax_tokens=(\d+)/.exec(m);
        if (mt) maxTokens[i] = Number(mt[1]);
      } else if (record.hop === 'S5') {
        const t = /\btype=(prefill|decode)\b/.exec(m);
        if (t) roles[i] = t[1] as LogRole;
      }
    }
  }
  if (!roles.includes('prefill')) {
    const withTokens = maxTokens.map((v, i) => ({ v, i })).filter((x) => x.v !== null && clockTraits(logs[x.i].engine).prefillSentWithOneToken);
    const one = withTokens.filter((x) => x.v === 1);
    if (one.length === 1 && withTokens.some((x) => x.v! > 1)) roles[one[0].i] = 'prefill';
  }
  if (roles.includes('prefill')) {
    for (const [i, r] of roles.entries()) if (r === 'instance') roles[i] = 'decode';
  }
  return roles;
}

/** The resource attribute an engine's spans carry their process's pid in; undefined for none or no known engine. */
function otlpProcessAttribute(engine: string | null): string | undefined {
  return engine !== null && isEngine(engine) ? engineProfile(engine).otlp?.processIdAttribute : undefined;
}

function apiServerPids(log: RequestLogs): Set<number> {
  const out = new Set<number>();
  for (const p of log.processes) if (p.pid !== null && p.role === 'api-server') out.add(p.pid);
  return out;
}

/** The pid a span's resource carries under the first of `attributes` it has (its engine's `otlp.processIdAttribute`). */
function spanPid(t: EngineTiming, attributes: readonly string[]): number | null {
  const attribute = attributes.find((a) => t.span.resource[a] !== undefined);
  if (attribute === undefined) return null;
  const v = t.span.resource[attribute];
  const n = typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : typeof v === 'string' ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : null;
}

const NS_MS = 0.000001;

/** Requests looked at between two looks at the clock in collectOrderingsPaced (a few ms of work). */
const KEYS_PER_LOOK = 512;

/**
 * The orderings of every request the sources share, into `set`, as steps: it yields after every
 * KEYS_PER_LOOK requests, so one caller runs it through and another in slices.
 */
function* orderingSteps(src: RuleSources, set: OrderingSet): Generator<void, void, void> {
  const logs = src.logs;
  // Pairs of log files, over the requests both have.
  for (let i = 0; i < logs.length; i++) {
    for (let j = i + 1; j < logs.length; j++) {
      const [a, b] = logs[i].log.stamps.size <= logs[j].log.stamps.size ? [logs[i], logs[j]] : [logs[j], logs[i]];
      const ab = set.pair(a.domain, b.domain), ba = set.pair(b.domain, a.domain);
      let n = 0;
      for (const key of a.log.stamps.keys()) {
        if (++n % KEYS_PER_LOOK === 0) yield;
        const rb = b.log.stamps.find(key);
        if (rb < 0) continue;
        const ra = a.log.stamps.find(key);
        pairRules(ab, ba, a, ra, b, rb, key);
        pairRules(ba, ab, b, rb, a, ra, key);
      }
    }
  }
  if (src.spans) spanRules(set, src, src.spans.domain, src.spans.store);
  if (src.client) clientRules(set, src, src.client.domain, src.client.request);
}

/** Every ordering the sources allow, over every request they share. */
export function collectOrderings(src: RuleSources): OrderingSet {
  const set = new OrderingSet();
  for (const step of orderingSteps(src, set)) void step;
  return set;
}

/**
 * The same orderings, worked out in slices: the thread's event loop gets a turn whenever the
 * pace's budget is spent (a million-line set shares some 60,000 requests: half a second of work).
 */
export async function collectOrderingsPaced(src: RuleSources, turns: Turns): Promise<OrderingSet> {
  const set = new OrderingSet();
  for (const step of orderingSteps(src, set)) {
    void step;
    if (turns.due()) await turns.take();
  }
  return set;
}

type Side = RuleSources['logs'][number];

/** The rules where X's event comes first (`xy`: X before Y; `yx` for the one rule the other way), for the request in rows rx / ry. */
function pairRules(xy: PairBound, yx: PairBound, x: Side, rx: number, y: Side, ry: number, key: string): void {
  const sx = x.log.stamps, sy = y.log.stamps;
  const add = (a: StampSlot, b: StampSlot, rule: string): void => {
    xy.offer(sx.time(rx, a), sx.resMs(rx, a), WHAT[a], sx.line(rx, a), sy.time(ry, b), sy.resMs(ry, b), WHAT[b], sy.line(ry, b), rule, key);
  };
  if (x.role === 'router' && y.log.kind === 'engine') {
    const e = earliest(sy, ry);
    if (sx.has(rx, STAMP.routerReceived) && e !== -1) add(STAMP.routerReceived, e, 'a router forwards a request only after it has it');
  }
  if (y.role === 'router' && x.log.kind === 'engine' && (x.role === 'instance' || x.role === 'decode')) {
    if (sx.has(rx, STAMP.beforeHeaders) && sy.has(ry, STAMP.routerResponded)) {
      add(STAMP.beforeHeaders, STAMP.routerResponded, "the router's response headers come back only after the instance received the request");
    }
  }
  if (x.role === 'prefill' && y.role === 'decode') {
    if (clockTraits(x.log.engine).decodeAfterPrefillAnswered) {
      if (sx.has(rx, STAMP.beforeResponse) && sy.has(ry, STAMP.arrive)) {
        add(STAMP.beforeResponse, STAMP.arrive, 'the proxy sends to the decode instance only after the prefill instance answered');
      }
    } else {
      // Not the prefill's ReqTimeStats: it notices the KV transfer done on its own loop, and a
      // decode of one token may finish first. That the prefill had the request is certain.
      const slot = sy.has(ry, STAMP.engineFinish) ? STAMP.engineFinish : STAMP.apiFinish;
      if (sx.has(rx, STAMP.arrive) && sy.has(ry, slot)) {
        add(STAMP.arrive, slot, 'decode finishes only after the prefill instance, whose KV cache it waits for, had the request');
      }
    }
  }
  // One SGLang server whose request logger writes to a file of its own.
  if (x.role === 'instance' && y.role === 'instance' && clockTraits(x.log.engine).requestLoggerApart && x.log.engine === y.log.engine
    && sx.has(rx, STAMP.arrive) && sy.has(ry, STAMP.engineFinish) && !sx.has(rx, STAMP.engineFinish) && !sy.has(ry, STAMP.arrive)) {
    add(STAMP.arrive, STAMP.engineFinish, 'the scheduler finishes a request only after the tokenizer manager received it');
    if (sx.has(rx, STAMP.apiFinish)) {
      const f = STAMP.engineFinish, t = STAMP.apiFinish;
      yx.offer(sy.time(ry, f), sy.resMs(ry, f), WHAT[f], sy.line(ry, f), sx.time(rx, t), sx.resMs(rx, t), WHAT[t], sx.line(rx, t),
        'the tokenizer manager finishes a request only after the scheduler did', key);
    }
  }
}

function spanRules(set: OrderingSet, src: RuleSources, domain: string, store: SpanStore): void {
  const withAdmit = src.logs.filter((l) => clockTraits(l.log.engine).spanStartsBeforeAdmit);
  if (withAdmit.length === 0) return;
  const pids = withAdmit.map((l) => apiServerPids(l.log));
  const pidAttributes = [...new Set(withAdmit.flatMap((l) => otlpProcessAttribute(l.log.engine) ?? []))];
  for (const t of store.requests()) {
    const key = requestKey(t.rid);
    const candidates: Side[] = [];
    const pid = spanPid(t, pidAttributes);
    for (const [i, l] of withAdmit.entries()) {
      const row = l.log.stamps.find(key);
      if (row < 0 || !l.log.stamps.has(row, STAMP.admit)) continue;
      if (pid !== null && pids[i].size > 0 && !pids[i].has(pid)) continue;
      candidates.push(l);
    }
    // With the request in several instances (prefill and decode both export a span) and no pid
    // to tell them apart, the span's instance is unknown: no ordering.
    if (candidates.length !== 1) continue;
    const l = candidates[0];
    const s = l.log.stamps;
    const row = s.find(key);
    const admit = s.get(row, STAMP.admit)!;
    const arrive = s.get(row, STAMP.arrive);
    const start = t.span.startMs, end = t.span.endMs;
    set.add(domain, start, NS_MS, 'llm_request start (arrival)', null, l.domain, admit.time, admit.resMs, WHAT[STAMP.admit], admit.line,
      'the span starts at arrival, which is set before Added request is printed', key);
    set.add(l.domain, admit.time, admit.resMs, WHAT[STAMP.admit], admit.line, domain, end, NS_MS, 'llm_request end', null,
      'the span ends when the request finishes, after it was added', key);
    if (arrive) set.add(l.domain, arrive.time, arrive.resMs, WHAT[STAMP.arrive], arrive.line, domain, end, NS_MS, 'llm_request end', null,
      'the span ends when the request finishes, after it was received', key);
  }
}

const CLIENT_RES = 1; // the client's epoch anchor is Date.now(): whole milliseconds

function clientRules(set: OrderingSet, src: RuleSources, domain: string, c: ClientRequest): void {
  const key = requestKey(c.requestId);
  if (key !== src.key) return;
  const t0 = c.startedAtEpochMs ?? 0;
  const first = firstFrameMs(c);
  const at = (ms: number): number => t0 + ms;
  for (const l of src.logs) {
    const s = l.log.stamps;
    const row = s.find(key);
    if (row < 0) continue;
    const e = l.role === 'router' ? (s.has(row, STAMP.routerReceived) ? STAMP.routerReceived : -1) : earliest(s, row);
    if (e !== -1) set.add(domain, t0, CLIENT_RES, 'client sent the request', null, l.domain, s.time(row, e), s.resMs(row, e), WHAT[e], s.line(row, e),
      'the request is sent before any server sees it', key);
    if (first !== null) {
      for (const slot of [STAMP.arrive, STAMP.admit, STAMP.routerReceived] as StampSlot[]) {
        if (!s.has(row, slot)) continue;
        set.add(l.domain, s.time(row, slot), s.resMs(row, slot), WHAT[slot], s.line(row, slot), domain, at(first), CLIENT_RES, 'client: first frame', null,
          'the first frame arrives only after the request reached the engine', key);
      }
    }
    if (c.headersMs !== null) {
      const r = STAMP.routerResponded;
      if (s.has(row, r)) {
        set.add(l.domain, s.time(row, r), s.resMs(row, r), WHAT[r], s.line(row, r), domain, at(c.headersMs), CLIENT_RES, 'client: response headers', null,
          'the router logs the response before passing its headers on', key);
      }
      const h = STAMP.beforeHeaders;
      if ((l.role === 'instance' || l.role === 'decode') && s.has(row, h)) {
        set.add(l.domain, s.time(row, h), s.resMs(row, h), WHAT[h], s.line(row, h), domain, at(c.headersMs), CLIENT_RES, 'client: response headers', null,
          'the instance logs the request (vLLM Received request, SGLang Receive OpenAI) before it returns the streaming response', key);
      }
    }
  }
  if (src.spans) {
    for (const t of src.spans.store.requests()) {
      if (requestKey(t.rid) !== key) continue;
      const sd = src.spans.domain;
      set.add(domain, t0, CLIENT_RES, 'client sent the request', null, sd, t.span.startMs, NS_MS, 'llm_request start (arrival)', null,
        'the request is sent before the engine sees it arrive', key);
      if (first !== null && t.ttftMs !== null) {
        set.add(sd, t.span.startMs + t.ttftMs, NS_MS, 'llm_request first token', null, domain, at(first), CLIENT_RES, 'client: first frame', null,
          'the first token is in the output processor before any frame is written', key);
      }
      if (c.endMs !== null) set.add(sd, t.span.endMs, NS_MS, 'llm_request end', null, domain, at(c.endMs), CLIENT_RES, 'client: end of stream', null,
        'the span ends before the last frame is written', key);
    }
  }
}
