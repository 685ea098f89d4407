// A small vLLM / SGLang look-alike on 127.0.0.1 for tests, the demo and the benchmark:
// the real routes, the exact SSE chunk shapes, a scripted timing schedule, and the
// matching server log lines appended to a log file as it serves.
import { appendFileSync } from 'node:fs';
import * as http from 'node:http';
import type { Engine } from '../../engines/types';
import { exportLlmRequestSpan } from './otlpExport';
import { parseTraceparent } from '../../core/request/traceContext';
import type { Socket } from 'node:net';
import { DONE, SglangChatChunks, SglangGenerateChunks, sse, VllmChunks, type Usage } from './frames';
import { SglangLog, VllmLog } from './logLines';
import { EngineCoreTrace } from './engineCoreTrace';
import { contentFrameWriteMs, DEFAULT_SCHEDULE, parseSchedule, type FakeSchedule } from './schedule';

export interface FakeEngineOptions {
  engine: Engine;
  port?: number;
  /** Server log file to append to (created if missing); null/undefined: no log. */
  logFile?: string | null;
  /** Instead of a file, each log line to this (a pod's stdout in the fleet demo). */
  logSink?: (line: string) => void;
  schedule?: FakeSchedule | string;
  /** The one model it serves (default Qwen/Qwen3-0.6B). */
  model?: string;
  /** When set, requests need `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** pid printed in vLLM's `(APIServer pid=N)` prefix. */
  pid?: number;
  /** Like vLLM's --otlp-traces-endpoint: export an llm_request span per finished vLLM request. */
  otlpEndpoint?: string;
  /**
   * Like `VLLM_TRACE_FUNCTION=1` with TP=1 (vLLM only): an EngineCore process (pid `enginePid`,
   * default the API server's + 1) prints its tracer lines into the log and its engine steps
   * are traced under this folder (see engineCoreTrace.ts).
   */
  traceDir?: string;
  enginePid?: number;
  /** The folder the traced engine source is cited under (default: a container's site-packages). */
  traceSourceRoot?: string;
}

export interface WriteTrace {
  /** Epoch ms when the request arrived. */
  arrivedAtEpochMs: number;
  /** ms after arrival at which each socket write happened, with how many frames it held. */
  writes: { t: number; frames: number }[];
  /** ms after arrival at which each content frame was due by the schedule (before burst grouping: see contentFrameWriteMs). */
  scheduledContentMs: number[];
  aborted: boolean;
}

export interface FakeEngineHandle {
  url: string;
  port: number;
  setSchedule(s: FakeSchedule | string): void;
  /** The traced engine core's file, when `traceDir` was given. */
  engineCoreTrace: { pid: number; instanceDir: string; path: string } | null;
  /** What was written for a request id (the id as the client sent it). */
  writesFor(requestId: string): WriteTrace | undefined;
  /** Resolves when no request is being served (tests wait for abort lines this way). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

// Token texts, with multi-byte UTF-8 (é, 数, an emoji) so clients meet split sequences.
const TOKENS = ['Hello', '!', ' How', ' can', ' I', ' help', ' you', ' today', '?', ' Café', ' 数', '字', ' 🙂', ' one', ',', ' two', ',', ' three', '.', '\n'];

function tokenId(i: number): number { return 1000 + (i % TOKENS.length); }

/** Qwen3's end-of-turn token (<|im_end|>): what SGLang reports as `matched` when the model stopped on its own. */
const EOS_TOKEN_ID = 151645;

interface ReplyLength { frames: number; tokens: number; finish: 'stop' | 'length' }

/**
 * How long the reply runs and why it ends, as an engine decides it: the schedule's `frames` is
 * where the model emits its end-of-turn token (`stop`); max_tokens cuts it first when it is
 * smaller (`length`). With no scripted length the model would go on, so max_tokens ends it.
 */
export function replyLength(s: FakeSchedule, maxTokens: number): ReplyLength {
  const limit = Number.isFinite(maxTokens) && maxTokens >= 1 ? Math.floor(maxTokens) : 16;
  const k = s.tokensPerFrame;
  if (s.frames !== null && s.frames * k <= limit) return { frames: s.frames, tokens: s.frames * k, finish: 'stop' };
  return { frames: Math.max(1, Math.ceil(limit / k)), tokens: limit, finish: 'length' };
}

function sglangFinish(r: ReplyLength): { type: string; length?: number; matched?: number } {
  return r.finish === 'stop' ? { type: 'stop', matched: EOS_TOKEN_ID } : { type: 'length', length: r.tokens };
}

function randomHex(n: number): string {
  let s = '';
  while (s.length < n) s += Math.floor(Math.random() * 0x100000000).toString(16).padStart(8, '0');
  return s.slice(0, n);
}

function sleep(ms: number): Promise<void> { return new Promise((r) => setTimeout(r, ms)); }

/**
 * Waits until performance.now() ≥ target; the last ~3 ms is a busy-wait when precise: a timer
 * alone wakes up to ~2 ms late on a busy 2-core machine (measured: p99 0.4 ms, max 1.9 ms), and
 * a late server would be charged to the client under test.
 */
async function sleepUntil(target: number, precise: boolean): Promise<void> {
  for (;;) {
    const left = target - performance.now();
    if (left <= 0) return;
    if (!precise) { await sleep(left); return; }
    if (left > 3.5) { await sleep(left - 3); continue; }
    while (performance.now() < target) { /* spin: setTimeout alone is ±1 ms */ }
    return;
  }
}

function readBody(req: http.IncomingMessage, limit = 1 << 20): Promise<string | null> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => { size += c.length; if (size <= limit) parts.push(c); });
    req.on('end', () => resolve(size > limit ? null : Buffer.concat(parts).toString('utf8')));
    req.on('error', () => resolve(null));
  });
}

interface StreamCtx {
  engine: Engine;
  api: 'chat' | 'completions' | 'generate';
  body: Record<string, unknown>;
  clientRid: string;
  schedule: FakeSchedule;
  model: string;
  path: string;
  client: string;
  /** The request's valid W3C `traceparent`, if any (vLLM parents its llm_request span on it). */
  traceparent?: { traceId: string; parentId: string };
}

export async function startFakeEngine(opts: FakeEngineOptions): Promise<FakeEngineHandle> {
  const model = opts.model ?? 'Qwen/Qwen3-0.6B';
  let schedule: FakeSchedule = typeof opts.schedule === 'string' ? parseSchedule(opts.schedule) : { ...DEFAULT_SCHEDULE, ...(opts.schedule ?? {}) };
  const writeLine = opts.logSink ?? ((line: string) => { if (opts.logFile) appendFileSync(opts.logFile, line + '\n'); });
  const vlog = new VllmLog(opts.pid ?? process.pid, writeLine);
  const slog = new SglangLog(writeLine);
  const core = opts.engine === 'vllm' && opts.traceDir
    ? new EngineCoreTrace(opts.traceDir, opts.enginePid ?? (opts.pid ?? process.pid) + 1, 140211394960256, writeLine, Date.now(), opts.traceSourceRoot) : null;
  const epochNow = () => performance.timeOrigin + performance.now();
  const traces = new Map<string, WriteTrace>();
  const sockets = new Set<Socket>();
  let active = 0;
  let idleWaiters: (() => void)[] = [];
  const begin = () => { active++; };
  const finish = () => { active--; if (active === 0) { const w = idleWaiters; idleWaiters = []; w.forEach((f) => f()); } };

  const json = (res: http.ServerResponse, status: number, body: string, ctx?: { path: string; client: string }) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
    if (ctx && opts.engine === 'vllm') vlog.access(ctx.client, ctx.path, status, http.STATUS_CODES[status] ?? '');
  };

  const server = http.createServer({ noDelay: true }, (req, res) => {
    begin();
    res.on('close', finish);
    void handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) json(res, 500, VllmChunks.httpError(String(e), 'InternalServerError', 500));
      else res.destroy();
    });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const client = `${req.socket.remoteAddress ?? '127.0.0.1'}:${req.socket.remotePort ?? 0}`;
    if (url.pathname === '/__fake/writes') {
      const t = traces.get(url.searchParams.get('rid') ?? '');
      return json(res, t ? 200 : 404, JSON.stringify(t ?? { error: 'no such request id' }));
    }
    if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      return json(res, 401, '{"error":"Unauthorized"}', { path: url.pathname, client });
    }
    if (req.method === 'GET') {
      if (url.pathname === '/v1/models') {
        return json(res, 200, JSON.stringify({ object: 'list', data: [{ id: model, object: 'model', created: Math.floor(Date.now() / 1000), owned_by: opts.engine, root: model, parent: null, max_model_len: 40960 }] }));
      }
      if (url.pathname === '/health') { res.writeHead(200); res.end(); return; }
      if (opts.engine === 'vllm' && url.pathname === '/version') return json(res, 200, '{"version":"0.27.1"}');
      if (opts.engine === 'sglang' && (url.pathname === '/get_server_info' || url.pathname === '/server_info')) {
        return json(res, 200, JSON.stringify({ model_path: model, tp_size: 1, version: '0.5.18', stream_interval: schedule.tokensPerFrame }));
      }
      return json(res, 404, '{"detail":"Not Found"}');
    }
    const api = url.pathname === '/v1/chat/completions' ? 'chat' : url.pathname === '/v1/completions' ? 'completions'
      : url.pathname === '/generate' && opts.engine === 'sglang' ? 'generate' : null;
    if (req.method !== 'POST' || api === null) return json(res, 404, '{"detail":"Not Found"}', { path: url.pathname, client });
    const text = await readBody(req);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text ?? '') as Record<string, unknown>;
      if (typeof body !== 'object' || body === null) throw new Error('not an object');
    } catch {
      return json(res, 400, VllmChunks.httpError('Invalid JSON body', 'BadRequestError', 400), { path: url.pathname, client });
    }
    if (opts.engine === 'vllm' && api !== 'generate' && body.model !== undefined && body.model !== model) {
      return json(res, 404, VllmChunks.httpError(`The model \`${String(body.model)}\` does not exist.`, 'NotFoundError', 404, 'model'), { path: url.pathname, client });
    }
    const headerRid = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : undefined;
    const clientRid = opts.engine === 'vllm'
      ? headerRid ?? (typeof body.request_id === 'string' ? body.request_id : randomHex(32))
      : typeof body.rid === 'string' ? body.rid : randomHex(32);
    const traceparent = parseTraceparent(typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined);
    await serveStream(res, { engine: opts.engine, api, body, clientRid, schedule, model, path: url.pathname, client, ...(traceparent ? { traceparent } : {}) });
  }

  async function serveStream(res: http.ServerResponse, c: StreamCtx): Promise<void> {
    const s = c.schedule;
    const maxTokens = Number(c.api === 'generate' ? (c.body.sampling_params as Record<string, unknown> | undefined)?.max_new_tokens ?? 128 : c.body.max_tokens ?? 16);
    const temperature = Number(c.api === 'generate' ? (c.body.sampling_params as Record<string, unknown> | undefined)?.temperature ?? 1 : c.body.temperature ?? 1);
    const promptText = c.api === 'chat' ? JSON.stringify(c.body.messages ?? '') : String(c.api === 'generate' ? c.body.text ?? '' : c.body.prompt ?? '');
    const promptTokens = Math.max(1, Math.ceil(promptText.length / 4));
    const streamOptions = (c.body.stream_options ?? {}) as Record<string, unknown>;
    const includeUsage = s.usage && streamOptions.include_usage === true;
    const continuous = s.usage && streamOptions.continuous_usage_stats === true && (c.engine === 'sglang' || includeUsage);
    const k = s.tokensPerFrame;
    const reply = replyLength(s, maxTokens);
    const nFrames = reply.frames;
    const arrived = performance.now();
    const trace: WriteTrace = { arrivedAtEpochMs: Date.now(), writes: [], scheduledContentMs: [], aborted: false };
    traces.set(c.clientRid, trace);
    const created = Math.floor(Date.now() / 1000);

    // Ids as the engine prints them.
    const externalId = c.engine === 'sglang' ? c.clientRid : c.api === 'chat' ? `chatcmpl-${c.clientRid}` : `cmpl-${c.clientRid}`;
    const loggedId = c.engine === 'vllm' && c.api === 'completions' ? `${externalId}-0` : externalId;
    const internalId = `${loggedId}-${randomHex(8)}`;

    if (c.engine === 'vllm') {
      vlog.received(loggedId, maxTokens, temperature);
      vlog.added(internalId);
      if (core) { const t = epochNow(); core.addRequest(t, t + 0.08); }
    } else {
      if (c.api === 'chat') slog.receivedOpenAI(c.body);
      slog.received(c.clientRid, c.api === 'generate' ? String(c.body.text ?? '') : promptText, maxTokens, temperature);
    }

    if (s.hang) {
      // Accept and never answer: the client's timeouts must end this.
      await new Promise<void>((r) => res.on('close', () => r()));
      return;
    }
    if (s.httpStatus !== null) {
      const status = s.httpStatus;
      const type = status >= 500 ? 'InternalServerError' : status === 404 ? 'NotFoundError' : 'BadRequestError';
      const body = c.engine === 'vllm' ? VllmChunks.httpError(`fake engine: scripted HTTP ${status}`, type, status)
        : JSON.stringify({ object: 'error', message: `fake engine: scripted HTTP ${status}`, type, param: null, code: status });
      return json(res, status, body, { path: c.path, client: c.client });
    }
    if (s.nonSse === 'html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head><body><h1>Welcome to nginx!</h1></body></html>\n');
      if (c.engine === 'vllm') vlog.access(c.client, c.path, 200, 'OK');
      return;
    }
    if (s.nonSse === 'json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: externalId, object: 'chat.completion', created, model: c.model, choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }], usage: { prompt_tokens: promptTokens, total_tokens: promptTokens + 2, completion_tokens: 2 } }));
      if (c.engine === 'vllm') vlog.access(c.client, c.path, 200, 'OK');
      return;
    }

    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    res.flushHeaders();
    if (c.engine === 'vllm') vlog.access(c.client, c.path, 200, 'OK');

    let finished = false;
    res.on('close', () => {
      if (finished) return;
      trace.aborted = true;
      // vLLM logs the client's disconnect; SGLang stops the stream silently (engine-facts §D).
      if (c.engine === 'vllm') vlog.aborted(internalId, loggedId);
    });
    const gone = () => res.destroyed || res.writableEnded;
    const write = async (at: number, payload: string, frames: number): Promise<boolean> => {
      await sleepUntil(arrived + at, s.precise);
      if (gone()) return false;
      res.write(payload);
      trace.writes.push({ t: performance.now() - arrived, frames });
      return true;
    };

    const writeTimes = contentFrameWriteMs(s, nFrames);
    for (let i = 0; i < nFrames; i++) trace.scheduledContentMs.push(s.firstMs + i * s.everyMs + (s.stall && i >= s.stall.at ? s.stall.ms : 0));
    const vllm = c.engine === 'vllm' && c.api !== 'generate' ? new VllmChunks(externalId, c.model, created, c.api) : null;
    const sglChat = c.engine === 'sglang' && c.api === 'chat' ? new SglangChatChunks(externalId, c.model, created) : null;
    const sglGen = c.api === 'generate' ? new SglangGenerateChunks(c.clientRid, promptTokens) : null;

    if (c.api === 'chat') {
      const roleAt = s.roleMs ?? writeTimes[0] ?? s.firstMs;
      const role = vllm ? vllm.role(continuous ? { prompt: promptTokens, completion: 0 } : null) : sglChat!.role();
      if (!(await write(roleAt, sse(role), 1))) return;
    }

    let full = '';
    const ids: number[] = [];
    let pending = '';
    let pendingFrames = 0;
    const endWith = async (at: number, payloads: string[]) => {
      for (const p of payloads) if (!(await write(at, p, 1))) return;
      finished = true;
      res.end();
    };
    if (sglGen) slog.prefill(promptTokens);
    let stepFrom = epochNow();
    for (let i = 0; i < nFrames; i++) {
      const at = writeTimes[i];
      if (s.error && s.error.at === i) {
        if (pending && !(await write(at, pending, pendingFrames))) return;
        const internal = s.error.type === 'internal';
        const msg = internal ? 'Internal server error' : 'fake engine: scripted bad request';
        const errorBody = c.engine === 'vllm' ? VllmChunks.error(msg, internal ? 'InternalServerError' : 'BadRequestError', internal ? 500 : 400)
          : c.api === 'generate' ? SglangGenerateChunks.error(msg, internal ? 500 : 400)
            : SglangChatChunks.error(msg, internal ? 'InternalServerError' : 'BadRequestError', internal ? 500 : 400);
        if (c.engine === 'vllm' && internal) vlog.failed(loggedId);
        return endWith(at, [sse(errorBody), DONE]);
      }
      let textNow = '';
      const upTo = Math.min((i + 1) * k, reply.tokens);
      for (let tok = i * k; tok < upTo; tok++) { textNow += TOKENS[tok % TOKENS.length]; ids.push(tokenId(tok)); }
      full += textNow;
      const usage: Usage = { prompt: promptTokens, completion: upTo };
      let chunk: string;
      if (vllm) chunk = vllm.content(textNow, continuous ? usage : null, c.api === 'completions' && i === nFrames - 1 ? reply.finish : null);
      else if (sglChat) chunk = sglChat.content(textNow, continuous ? usage : null);
      else {
        const last = i === nFrames - 1;
        chunk = sglGen!.frame(s.incremental ? textNow : full, s.incremental ? ids.slice(i * k - upTo) : [...ids], upTo,
          last ? sglangFinish(reply) : null,
          i === 0 ? { response_sent_to_client_ts: Date.now() / 1000 } : last ? { e2e_latency: (performance.now() - arrived) / 1000 } : {});
      }
      pending += sse(chunk);
      pendingFrames++;
      if (c.engine === 'vllm' && c.api === 'chat') vlog.delta(loggedId, textNow);
      if (c.engine === 'sglang') for (let tok = i * k; tok < upTo; tok++) slog.decodeStep(promptTokens + tok + 1, 1000 / Math.max(1, s.everyMs / k));
      const nextAt = writeTimes[i + 1];
      const heldForBurst = nextAt !== undefined && nextAt === at && s.burst !== null && i >= s.burst.at && i < s.burst.at + s.burst.count - 1;
      if (heldForBurst) continue;
      // A burst is ONE socket write: the frames a lagging frontend merged.
      if (!(await write(at, pending, pendingFrames))) return;
      if (core) { const t = epochNow(); core.step(stepFrom, t - 0.1); stepFrom = t; }
      pending = '';
      pendingFrames = 0;
      if (s.unparseableAt === i) { if (!(await write(at, sse('{"id":"' + externalId + '","object":"chat.completion.chunk",'), 1))) return; }
      if (s.dropAt === i) { finished = true; res.socket?.end(); return; } // FIN after the flushed frames, mid chunked body
      if (s.hangAt === i) {
        await new Promise<void>((r) => res.on('close', () => r()));
        return;
      }
    }
    const endAt = writeTimes[nFrames - 1] ?? s.firstMs;
    const tail: string[] = [];
    const total: Usage = { prompt: promptTokens, completion: reply.tokens };
    if (vllm && c.api === 'chat') tail.push(sse(vllm.finish(reply.finish, continuous ? total : null)));
    if (vllm && includeUsage) tail.push(sse(vllm.usage(total)));
    if (sglChat) { tail.push(sse(sglChat.finish(reply.finish, reply.finish === 'stop' ? EOS_TOKEN_ID : null))); if (includeUsage) tail.push(sse(sglChat.usage(total))); }
    if (c.engine === 'vllm' && c.api === 'chat') vlog.complete(loggedId, full);
    if (c.engine === 'vllm' && opts.otlpEndpoint) {
      const otlp = opts.otlpEndpoint;
      // vLLM ends the span in its output processor, before the last frame is written: at the
      // time the schedule writes the tail, not when the response has gone out.
      res.once('finish', () => exportLlmRequestSpan(otlp, {
        requestId: loggedId, arrivedEpochMs: trace.arrivedAtEpochMs, queueMs: 0.4,
        firstTokenMs: s.firstMs, e2eMs: Math.min(endAt, performance.now() - arrived),
        promptTokens, completionTokens: reply.tokens, maxTokens, ...(c.traceparent ? { traceparent: c.traceparent } : {}),
      }));
    }
    if (c.engine === 'sglang') {
      slog.reqTimeStats(c.clientRid, promptTokens, reply.tokens, performance.now() - arrived, trace.arrivedAtEpochMs / 1000);
      slog.finished(c.clientRid, full, ids, { id: c.clientRid, finish_reason: sglangFinish(reply), prompt_tokens: promptTokens, weight_version: 'default', num_retractions: 0, reasoning_tokens: 0, completion_tokens: reply.tokens, cached_tokens: 0, e2e_latency: Number(((performance.now() - arrived) / 1000).toFixed(4)) });
    }
    if (!s.noDone) tail.push(DONE);
    await endWith(endAt, tail);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    engineCoreTrace: core ? { pid: core.pid, instanceDir: core.instanceDir, path: core.path } : null,
    setSchedule(next) { schedule = typeof next === 'string' ? parseSchedule(next) : { ...DEFAULT_SCHEDULE, ...next }; },
    writesFor: (rid) => traces.get(rid),
    idle: () => (active === 0 ? Promise.resolve() : new Promise<void>((r) => idleWaiters.push(r))),
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
