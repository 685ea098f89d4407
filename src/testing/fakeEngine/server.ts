// A small vLLM / SGLang look-alike on 127.0.0.1 for tests, the demo and the benchmark:
// the real routes, the exact SSE chunk shapes, a scripted timing schedule, and the
// matching server log lines appended to a log file as it serves.
// This file owns the server and its routes; stream.ts answers one streaming request.
import { appendFileSync } from 'node:fs';
import * as http from 'node:http';
import type { Engine } from '../../engines/types';
import { parseTraceparent } from '../../core/request/traceContext';
import type { Socket } from 'node:net';
import { VllmChunks } from './frames';
import { SglangLog, VllmLog } from './logLines';
import { EngineCoreTrace } from './engineCoreTrace';
import { DEFAULT_SCHEDULE, parseSchedule, type FakeSchedule } from './schedule';
import { randomHex, serveStream, type FakeEngineState } from './stream';
import { readBody } from './readBody';

export { replyLength } from './stream';

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

export async function startFakeEngine(opts: FakeEngineOptions): Promise<FakeEngineHandle> {
  const model = opts.model ?? 'Qwen/Qwen3-0.6B';
  let schedule: FakeSchedule = typeof opts.schedule === 'string' ? parseSchedule(opts.schedule) : { ...DEFAULT_SCHEDULE, ...(opts.schedule ?? {}) };
  const writeLine = opts.logSink ?? ((line: string) => { if (opts.logFile) appendFileSync(opts.logFile, line + '\n'); });
  const vlog = new VllmLog(opts.pid ?? process.pid, writeLine);
  const core = opts.engine === 'vllm' && opts.traceDir
    ? new EngineCoreTrace(opts.traceDir, opts.enginePid ?? (opts.pid ?? process.pid) + 1, 140211394960256, writeLine, Date.now(), opts.traceSourceRoot)
    : null;
  const traces = new Map<string, WriteTrace>();
  const eng: FakeEngineState = {
    opts, model, vlog, slog: new SglangLog(writeLine), core, traces,
    schedule: () => schedule,
    epochNow: () => performance.timeOrigin + performance.now(),
    json(res, status, body, ctx) {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
      if (ctx && opts.engine === 'vllm') vlog.access(ctx.client, ctx.path, status, http.STATUS_CODES[status] ?? '');
    },
  };
  const sockets = new Set<Socket>();
  let active = 0;
  let idleWaiters: (() => void)[] = [];
  const begin = () => { active++; };
  const finish = () => { active--; if (active === 0) { const w = idleWaiters; idleWaiters = []; w.forEach((f) => f()); } };

  const server = http.createServer({ noDelay: true }, (req, res) => {
    begin();
    res.on('close', finish);
    void routeRequest(eng, req, res).catch((e: unknown) => {
      if (!res.headersSent) eng.json(res, 500, VllmChunks.httpError(String(e), 'InternalServerError', 500));
      else res.destroy();
    });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });

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

/**
 * The engine's routes: the test-only write log, the API key, the GET routes each engine has, and
 * the POST APIs, whose body and ids are checked and read before the stream is served on the
 * schedule in force once the body has arrived.
 */
async function routeRequest(eng: FakeEngineState, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const { opts, json, model } = eng;
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const client = `${req.socket.remoteAddress ?? '127.0.0.1'}:${req.socket.remotePort ?? 0}`;
  if (url.pathname === '/__fake/writes') {
    const t = eng.traces.get(url.searchParams.get('rid') ?? '');
    return json(res, t ? 200 : 404, JSON.stringify(t ?? { error: 'no such request id' }));
  }
  if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
    return json(res, 401, '{"error":"Unauthorized"}', { path: url.pathname, client });
  }
  if (req.method === 'GET') return answerGet(eng, url.pathname, res);
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
    const message = `The model \`${String(body.model)}\` does not exist.`;
    return json(res, 404, VllmChunks.httpError(message, 'NotFoundError', 404, 'model'), { path: url.pathname, client });
  }
  const headerRid = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : undefined;
  const clientRid = opts.engine === 'vllm'
    ? headerRid ?? (typeof body.request_id === 'string' ? body.request_id : randomHex(32))
    : typeof body.rid === 'string' ? body.rid : randomHex(32);
  const traceparent = parseTraceparent(typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined);
  await serveStream(eng, res, {
    engine: opts.engine, api, body, clientRid, schedule: eng.schedule(), model, path: url.pathname, client, ...(traceparent ? { traceparent } : {}),
  });
}

/** The GET routes: models, health, and each engine's own version or server-info route. */
function answerGet(eng: FakeEngineState, pathname: string, res: http.ServerResponse): void {
  const { opts, json, model } = eng;
  if (pathname === '/v1/models') {
    const card = { id: model, object: 'model', created: Math.floor(Date.now() / 1000), owned_by: opts.engine, root: model, parent: null, max_model_len: 40960 };
    return json(res, 200, JSON.stringify({ object: 'list', data: [card] }));
  }
  if (pathname === '/health') { res.writeHead(200); res.end(); return; }
  if (opts.engine === 'vllm' && pathname === '/version') return json(res, 200, '{"version":"0.27.1"}');
  if (opts.engine === 'sglang' && (pathname === '/get_server_info' || pathname === '/server_info')) {
    return json(res, 200, JSON.stringify({ model_path: model, tp_size: 1, version: '0.5.18', stream_interval: eng.schedule().tokensPerFrame }));
  }
  return json(res, 404, '{"detail":"Not Found"}');
}
