// One traced streaming request, end to end: detect the engine, pick the model, send,
// record every frame with its socket arrival time, and say clearly what went wrong.
import { apiOwner, engineProfile, engineProfiles, isEngine, ownApi, type EngineProfile } from '../../engines/registry';
import { buildRequest, DEFAULTS, joinUrl, redactUrl, serverRootUrl, validateOptions, type TraceOptions } from './build';
import { httpStatusError, makeError, networkError, serverErrorMessage } from './errors';
import { computeMetrics, type TraceMetrics } from './metrics';
import { StreamRecorder } from './recorder';
import { newRequestId, serverIdsFor } from './serverIds';
import { newTraceContext, type TraceContext } from './traceContext';
import { NodeHttpTransport, type HttpTransport } from './transport';
import { monotonicClock, OUTPUT_KINDS, type Api, type Clock, type Engine, type Frame, type TraceError, type TraceRecord } from './types';

export interface TraceDeps {
  clock?: Clock;
  transport?: HttpTransport;
  /** Each frame as it is recorded (live progress). */
  onFrame?: (f: Frame) => void;
  /** Coarse progress: "detecting engine", "listing models", "sending", "streaming". */
  onPhase?: (phase: string) => void;
}

export interface TracedRequest {
  record: TraceRecord;
  metrics: TraceMetrics;
}

const MAX_ERROR_BODY = 64 * 1024;

interface SimpleResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** A small GET/POST with a hard time limit, used for discovery. Never throws. */
export function simpleRequest(transport: HttpTransport, clock: Clock, url: string, headers: Record<string, string>,
  timeoutMs: number, signal?: AbortSignal): Promise<SimpleResponse | TraceError> {
  return new Promise((resolve) => {
    let settled = false;
    let status = 0;
    let resHeaders: Record<string, string> = {};
    const parts: Buffer[] = [];
    let size = 0;
    const done = (v: SimpleResponse | TraceError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(v);
    };
    const ex = transport.start({ url, method: 'GET', headers, connectTimeoutMs: Math.min(timeoutMs, DEFAULTS.connectTimeoutMs) }, {
      requestWritten() { /* not timed */ },
      headers(s, h) { status = s; resHeaders = h; },
      chunk(b) { if (size < MAX_ERROR_BODY) { parts.push(Buffer.from(b)); size += b.byteLength; } },
      end() { done({ status, headers: resHeaders, text: Buffer.concat(parts).toString('utf8') }); },
      error(err) {
        if ((err as { code?: string }).code === 'HOPLENS_CANCELLED') done(makeError('cancelled', 'Cancelled.', 'Send it again when ready.'));
        else if ((err as { code?: string }).code === 'HOPLENS_TIMEOUT') {
          done(makeError('timeout', `GET ${redactUrl(url)} got no answer within ${timeoutMs} ms.`, 'Check that the server is up and not overloaded.'));
        }
        else done(networkError(err, redactUrl(url), 'connect', 0));
      },
    });
    const timer = setTimeout(() => ex.abort(Object.assign(new Error('timeout'), { code: 'HOPLENS_TIMEOUT' })), timeoutMs);
    const onAbort = () => ex.abort(Object.assign(new Error('cancelled'), { code: 'HOPLENS_CANCELLED' }));
    if (signal?.aborted) onAbort(); else signal?.addEventListener('abort', onAbort, { once: true });
    void clock;
  });
}

function isError(v: unknown): v is TraceError {
  return typeof v === 'object' && v !== null && 'kind' in v && 'hint' in v;
}

function parseJson(text: string): unknown {
  try { return JSON.parse(text); } catch { return undefined; }
}

/** The engine assumed when the server tells nothing (its profile's `request.assumedWhenUnknown`). */
function assumedEngine(): Engine {
  return engineProfiles().find((p) => p.request?.assumedWhenUnknown)?.id ?? engineProfiles()[0].id;
}

/**
 * Asks the server what it is, from the engines' request APIs: first the paths only one engine
 * answers (SGLang's /get_server_info: a vLLM server has none), then the paths others may answer too
 * (vLLM's /version, which SGLang builds may also answer), else the assumed engine with a warning.
 */
export async function detectEngine(baseUrl: string, authHeaders: Record<string, string>, deps: { transport: HttpTransport; clock: Clock },
  timeoutMs = 5000, signal?: AbortSignal): Promise<{ engine: Engine; version: string | null; warning?: string } | TraceError> {
  const known = engineProfiles().filter((p) => p.request !== undefined);
  for (const profile of known) {
    for (const path of profile.request!.answersOnly ?? []) {
      const r = await simpleRequest(deps.transport, deps.clock, joinUrl(baseUrl, path), authHeaders, timeoutMs, signal);
      if (isError(r)) return r;
      if (r.status === 200) {
        const j = parseJson(r.text) as Record<string, unknown> | undefined;
        if (j && typeof j === 'object') return { engine: profile.id, version: typeof j.version === 'string' ? j.version : null };
      }
    }
  }
  for (const profile of known) {
    const path = profile.request!.answersAlso;
    if (path === undefined) continue;
    const r = await simpleRequest(deps.transport, deps.clock, joinUrl(baseUrl, path), authHeaders, timeoutMs, signal);
    if (isError(r)) return r;
    if (r.status === 200) {
      const j = parseJson(r.text) as Record<string, unknown> | undefined;
      return { engine: profile.id, version: j && typeof j.version === 'string' ? j.version : null };
    }
  }
  const asked = (paths: (p: EngineProfile) => string | undefined) => known.flatMap((p) => { const at = paths(p); return at ? [`${at} (${p.label})`] : []; });
  const assumed = assumedEngine();
  const neither = [...asked((p) => p.request!.answersAlso), ...asked((p) => p.request!.answersOnly?.[0])].join(' nor ');
  return {
    engine: assumed, version: null,
    warning: `The server answered neither ${neither}; assuming ${engineProfile(assumed).label}. Set the engine to silence this.`,
  };
}

/** Model ids from GET /v1/models, in the server's order. */
export async function listModels(baseUrl: string, authHeaders: Record<string, string>, deps: { transport: HttpTransport; clock: Clock },
  timeoutMs = 5000, signal?: AbortSignal): Promise<string[] | TraceError> {
  const url = joinUrl(baseUrl, '/v1/models');
  const r = await simpleRequest(deps.transport, deps.clock, url, authHeaders, timeoutMs, signal);
  if (isError(r)) return r;
  if (r.status !== 200) return httpStatusError(r.status, r.text, '', []);
  const j = parseJson(r.text) as { data?: unknown } | undefined;
  if (!j || !Array.isArray(j.data)) {
    return makeError('http-status', `GET ${redactUrl(url)} did not return a model list.`, 'Set the model explicitly.', { status: r.status });
  }
  return j.data.map((m) => (m && typeof m === 'object' && typeof (m as { id?: unknown }).id === 'string' ? (m as { id: string }).id : '')).filter(Boolean);
}

function emptyRecord(o: TraceOptions, engine: Engine, api: Api, model: string, requestId: string, error: TraceError | null, startedAt: number,
  traceContext: TraceContext): TraceRecord {
  const ids = serverIdsFor(engine, api, requestId);
  return {
    engine, api, model, requestId, traceContext, serverIds: ids.ids, logRequestId: ids.logId, serverIdPattern: ids.pattern.source,
    request: { url: redactUrl(o.url), method: 'POST', headers: {}, body: {} },
    status: null, responseHeaders: {},
    timeline: { startedAtEpochMs: startedAt, connectMs: null, requestWrittenMs: null, headersMs: null, firstByteMs: null, endMs: null },
    frames: [], chunks: 0, sawDone: false, error, warnings: [],
  };
}

/** Sends one traced streaming request. Never throws and never waits forever: the result carries any error. */
export async function sendTracedRequest(options: TraceOptions, deps: TraceDeps = {}): Promise<TracedRequest> {
  const o: TraceOptions = { ...options, url: serverRootUrl(options.url) };
  const clock = deps.clock ?? monotonicClock;
  const transport = deps.transport ?? new NodeHttpTransport(clock);
  const finish = (record: TraceRecord): TracedRequest => ({ record, metrics: computeMetrics(record) });
  const requestId = o.requestId ?? newRequestId();
  // Fresh per request (a repeated run is a new request): the engine's span for it is found by this trace id.
  const traceContext = newTraceContext();
  const requestedApi: Api = o.api ?? 'chat';
  const problems = validateOptions(o);
  if (problems.length) {
    return finish(emptyRecord(o, isEngine(o.engine) ? o.engine : assumedEngine(), requestedApi, o.model ?? '', requestId,
      makeError('bad-input', problems.join('; ') + '.', 'Fix the settings and send again.'), Date.now(), traceContext));
  }
  const auth: Record<string, string> = o.apiKey ? { Authorization: `Bearer ${o.apiKey}` } : {};
  const warnings: string[] = [];
  const discoveryTimeout = Math.min(o.timeoutMs ?? DEFAULTS.timeoutMs, 10_000);

  let engine: Engine;
  if (!o.engine || o.engine === 'auto') {
    deps.onPhase?.('detecting engine');
    const d = await detectEngine(o.url, auth, { transport, clock }, discoveryTimeout, o.signal);
    if (isError(d)) return finish(emptyRecord(o, assumedEngine(), requestedApi, o.model ?? '', requestId, d, Date.now(), traceContext));
    engine = d.engine;
    if (d.warning) warnings.push(d.warning);
  } else {
    engine = o.engine;
  }
  const owner = apiOwner(requestedApi);
  if (owner !== undefined && engine !== owner.id) {
    const problem = `The ${requestedApi} API needs an ${owner.label} server, and this one is ${engineProfile(engine).label}.`;
    const wrongEngine = makeError('bad-input', problem, 'Use api chat or completions.');
    return finish(emptyRecord(o, engine, requestedApi, o.model ?? '', requestId, wrongEngine, Date.now(), traceContext));
  }

  let model = o.model ?? '';
  let knownModels: string[] = [];
  const needsModel = ownApi(requestedApi)?.needsModel ?? true;
  if (needsModel && !model) {
    deps.onPhase?.('listing models');
    const m = await listModels(o.url, auth, { transport, clock }, discoveryTimeout, o.signal);
    if (isError(m)) return finish(emptyRecord(o, engine, requestedApi, model, requestId, m, Date.now(), traceContext));
    if (m.length === 0) {
      return finish(emptyRecord(o, engine, requestedApi, model, requestId,
        makeError('unknown-model', 'The server lists no models at /v1/models.', 'Set the model explicitly.'), Date.now(), traceContext));
    }
    knownModels = m;
    model = m[0];
  }

  const spec = buildRequest(engine, requestedApi, model, requestId, o, traceContext.traceparent);
  // The record (printed, exported, shown) never holds credentials from the URL; the socket gets them.
  const realUrl = spec.url;
  spec.url = redactUrl(spec.url);
  const record = emptyRecord(o, engine, requestedApi, model, requestId, null, Date.now(), traceContext);
  record.request = spec;
  record.warnings.push(...warnings);
  deps.onPhase?.('sending');
  const streamed = await stream(record, realUrl, o, auth, transport, clock, deps);
  if (streamed.error?.kind === 'unknown-model' && knownModels.length === 0 && needsModel) {
    // Name the models the server does serve, so the hint is actionable.
    const m = await listModels(o.url, auth, { transport, clock }, 3000);
    if (!isError(m) && m.length) streamed.error.hint = `Use one of: ${m.join(', ')} — or leave the model empty to use the first one.`;
  }
  return finish(streamed);
}

function stream(record: TraceRecord, realUrl: string, o: TraceOptions, auth: Record<string, string>,
  transport: HttpTransport, clock: Clock, deps: TraceDeps): Promise<TraceRecord> {
  const timeoutMs = o.timeoutMs ?? DEFAULTS.timeoutMs;
  const idleTimeoutMs = o.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs;
  const recorder = new StreamRecorder(record.api, o.generateTextMode ?? 'auto');
  let errorFrameSeen = false;
  recorder.onFrame = (f) => {
    if (f.kind === 'error') errorFrameSeen = true;
    deps.onFrame?.(f);
  };
  const bodyParts: Buffer[] = [];
  let bodySize = 0;
  let isSse = false;
  let phase: 'connect' | 'response' | 'stream' = 'connect';

  return new Promise((resolve) => {
    const started = clock.now();
    // Times count from the moment the connection is up (see Timeline.connectMs); until then, from the start.
    let t0 = started;
    const rel = (t: number) => t - t0;
    let settled = false;
    let idleTimer: NodeJS.Timeout | null = null;
    let lastActivity = 0;
    const totalTimer = setTimeout(() => ex.abort(Object.assign(new Error('total timeout'), { code: 'HOPLENS_TIMEOUT' })), timeoutMs);
    // One timer for the whole stream: each chunk only notes the time (no timer churn per
    // chunk); when the timer fires early it re-arms for the silence still allowed.
    const checkIdle = () => {
      const silent = performance.now() - lastActivity;
      if (silent >= idleTimeoutMs - 1) ex.abort(Object.assign(new Error('idle timeout'), { code: 'HOPLENS_IDLE' }));
      else idleTimer = setTimeout(checkIdle, idleTimeoutMs - silent);
    };
    const armIdle = () => {
      lastActivity = performance.now();
      if (!idleTimer) idleTimer = setTimeout(checkIdle, idleTimeoutMs);
    };
    const onAbort = () => ex.abort(Object.assign(new Error('cancelled'), { code: 'HOPLENS_CANCELLED' }));
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(totalTimer);
      if (idleTimer) clearTimeout(idleTimer);
      o.signal?.removeEventListener('abort', onAbort);
      record.frames = recorder.frames;
      if (recorder.tail) {
        record.tail = recorder.tail;
        const total = recorder.frames.length + recorder.tail.frames;
        const kept = recorder.frames.length.toLocaleString('en-US');
        record.warnings.push(`The stream sent ${total.toLocaleString('en-US')} frames: `
          + `per-frame detail (frames table, plots, signatures) is kept for the first ${kept}; `
          + 'counts, tokens, TTFT, end-to-end time and the ITL statistics cover all of them '
          + `(ITL percentiles past frame ${kept} from a histogram, within ±1%).`);
      }
      record.chunks = recorder.chunks;
      record.sawDone = recorder.sawDone;
      const unparseable = recorder.frames.filter((f) => f.kind === 'unparseable').length;
      if (unparseable) record.warnings.push(`${unparseable} frame(s) were not JSON and were skipped (shown as 'unparseable' in the frames table).`);
      if (recorder.parseErrors.length) record.warnings.push(`SSE framing problems: ${recorder.parseErrors.slice(0, 3).join('; ')}`);
      resolve(record);
    };

    const ex = transport.start(
      {
        url: realUrl, method: 'POST', headers: { ...record.request.headers, ...auth }, body: JSON.stringify(record.request.body),
        connectTimeoutMs: o.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
      },
      {
        connected(t) {
          record.timeline.connectMs = t - started;
          t0 = t;
        },
        requestWritten(t) {
          record.timeline.requestWrittenMs = rel(t);
          phase = 'response';
          armIdle();
        },
        headers(status, headers, t) {
          record.status = status;
          record.responseHeaders = headers;
          record.timeline.headersMs = rel(t);
          isSse = status === 200 && /^text\/event-stream/i.test(headers['content-type'] ?? '');
          phase = 'stream';
          armIdle();
        },
        chunk(bytes, t) {
          armIdle();
          if (record.timeline.firstByteMs === null) record.timeline.firstByteMs = rel(t);
          if (isSse) {
            recorder.push(bytes, rel(t));
            if (recorder.fatal !== null) ex.abort(Object.assign(new Error(recorder.fatal), { code: 'HOPLENS_FRAME_TOO_LARGE' }));
          } else if (bodySize < MAX_ERROR_BODY) { bodyParts.push(Buffer.from(bytes)); bodySize += bytes.byteLength; }
        },
        end(t) {
          record.timeline.endMs = rel(t);
          const bodyText = Buffer.concat(bodyParts).toString('utf8');
          if (record.status !== null && record.status >= 400) {
            record.error = httpStatusError(record.status, bodyText, record.model, []);
          } else if (!isSse) {
            record.error = notSseError(record, bodyText);
          } else {
            recorder.end(rel(t));
            record.error = streamOutcomeError(recorder, errorFrameSeen);
          }
          settle();
        },
        error(err, t) {
          record.timeline.endMs = rel(t);
          if (isSse) recorder.end(rel(t));
          const n = recorder.frames.length + (recorder.tail?.frames ?? 0);
          const code = err.code;
          if (code === 'HOPLENS_CANCELLED') {
            record.error = makeError('cancelled', `Cancelled by the user after ${n} frame(s).`,
              'The server logs this as an abort: open the server log lines to see it.');
          } else if (code === 'HOPLENS_FRAME_TOO_LARGE') {
            record.error = makeError('frame-too-large', `${err.message} Stopped after ${n} frame(s) and ${(recorder.bytes / 1024 / 1024).toFixed(0)} MB.`,
              'This is not an OpenAI-style event stream (or a proxy broke it): check the URL and any proxy in between.');
          } else if (code === 'HOPLENS_TIMEOUT') {
            record.error = makeError('timeout', `The request did not finish within ${timeoutMs} ms (${n} frame(s) received).`,
              'Raise the request timeout, or lower max tokens.');
          } else if (code === 'HOPLENS_IDLE') {
            record.error = phase === 'stream'
              ? makeError('idle-timeout', `The stream went silent: no bytes for ${idleTimeoutMs} ms after ${n} frame(s).`,
                'The server stalled or lost the request: look at its log. Raise the idle timeout if long pauses are expected.')
              : makeError('idle-timeout', `The server accepted the connection but sent no response for ${idleTimeoutMs} ms.`,
                'The server may be overloaded, hung, or not an inference server. Check its log, or raise the idle timeout.');
          } else {
            record.error = networkError(err, record.request.url, phase, n);
          }
          settle();
        },
      },
    );
    if (o.signal?.aborted) onAbort(); else o.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function notSseError(record: TraceRecord, bodyText: string): TraceError {
  const type = record.responseHeaders['content-type'] ?? 'no content type';
  const looksHtml = /^\s*</.test(bodyText);
  const serverMessage = serverErrorMessage(bodyText);
  return makeError('not-sse', `The server answered HTTP ${record.status} with ${type}, not an event stream${looksHtml ? ' (an HTML page)' : ''}.`,
    looksHtml ? 'The URL points at something other than the engine (a proxy, a dashboard): check the server URL and port.'
      : 'The server ignored "stream": true, or this is not a vLLM/SGLang endpoint: check the URL, the API setting and any proxy in between.',
    { ...(record.status !== null ? { status: record.status } : {}), ...(serverMessage ? { serverMessage } : {}) });
}

function streamOutcomeError(recorder: StreamRecorder, errorFrameSeen: boolean): TraceError | null {
  const frames = recorder.frames;
  if (errorFrameSeen) {
    const f = frames.find((x) => x.kind === 'error');
    const outputFrames = frames.filter((x) => OUTPUT_KINDS.has(x.kind)).length;
    return makeError('error-frame', `The server sent an error mid-stream after ${outputFrames} output frame(s): ${f?.errorMessage ?? 'unknown error'}.`,
      'The server log has the cause (look for the traceback near this request id).', f?.errorMessage ? { serverMessage: f.errorMessage } : {});
  }
  if (frames.length === 0) {
    return recorder.bytes > 0
      ? makeError('not-sse', 'The response is labelled text/event-stream but holds no SSE "data:" frames.',
        'Check that the URL points at the engine and not at a proxy that rewrites the body.')
      : makeError('no-output', 'The server ended the stream without sending any frame.', 'Look at the server log for this request id.');
  }
  if (!recorder.sawDone) {
    return makeError('no-done', `The stream ended after ${frames.length} frame(s) without "data: [DONE]".`,
      'The server or a proxy cut the stream short: check the server log and any proxy timeouts.');
  }
  return null;
}

/** The longest Retry-After honoured between runs; a longer one is cut to this (and said). */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** Milliseconds a Retry-After header asks for (delta-seconds or an HTTP date), or null. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) { resolve(); return; }
    const onAbort = (): void => { clearTimeout(timer); resolve(); };
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * "Repeat Traced Request… N": N requests in sequence (never in parallel, so runs do not
 * disturb each other), each with its own request id. Stops early when the signal aborts.
 * A 429 or 503 with Retry-After makes the next run wait as long as the server asked.
 */
export async function sendRepeated(o: TraceOptions, runs: number, deps: TraceDeps & {
  onRun?: (run: number, result: TracedRequest) => void;
  /** Waits between runs (tests); default a timer that the signal cuts short. */
  wait?: (ms: number, signal?: AbortSignal) => Promise<void>;
} = {}): Promise<TracedRequest[]> {
  const results: TracedRequest[] = [];
  const base = o.requestId ?? newRequestId();
  for (let i = 0; i < runs; i++) {
    if (o.signal?.aborted) break;
    const res = await sendTracedRequest({ ...o, requestId: runs > 1 ? `${base}.${i + 1}` : base }, deps);
    results.push(res);
    // After the first run the engine and model are known: skip discovery on later runs.
    o = { ...o, engine: res.record.engine, ...(res.record.model ? { model: res.record.model } : {}) };
    if (res.record.error?.kind === 'cancelled' || res.record.error?.kind === 'bad-input') { deps.onRun?.(i + 1, res); break; }
    const status = res.record.status;
    const asked = status === 429 || status === 503 ? retryAfterMs(res.record.responseHeaders['retry-after']) : null;
    if (asked !== null && i + 1 < runs) {
      const ms = Math.min(asked, MAX_RETRY_AFTER_MS);
      res.record.warnings.push(`The server answered ${status} with Retry-After: ${res.record.responseHeaders['retry-after']}; `
        + `the next run waited ${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`
        + `${ms < asked ? ` (cut from ${(asked / 1000).toFixed(0)} s to ${MAX_RETRY_AFTER_MS / 1000} s)` : ''}.`);
      deps.onRun?.(i + 1, res);
      await (deps.wait ?? sleep)(ms, o.signal);
    } else {
      deps.onRun?.(i + 1, res);
    }
  }
  return results;
}
