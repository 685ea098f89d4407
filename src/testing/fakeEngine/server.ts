// A small look-alike of an engine's server on 127.0.0.1 for tests, the demo and the benchmark:
// the real routes, the exact SSE chunk shapes, a scripted timing schedule, and the
// matching server log lines appended to a log file as it serves.
// This file owns the server and its routes; stream.ts answers one streaming request. What is the
// engine's own (its routes, ids, frames, lines) its imitation says (src/engines/<id>/fake.ts, listed
// in src/engines/fakes.ts), and how a request carries its id its profile (`request`).
import { appendFileSync } from 'node:fs';
import * as http from 'node:http';
import type { Engine, EngineRequestApi } from '../../engines/types';
import { engineProfile } from '../../engines/registry';
import { starletteError, type EngineImitation } from '../../engines/fake';
import { imitationOf } from '../../engines/fakes';
import { parseTraceparent } from '../../core/request/traceContext';
import type { Socket } from 'node:net';
import { exportSpan } from './otlpExport';
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
  /** Like vLLM's --otlp-traces-endpoint: export the engine's span (vLLM's llm_request) per finished request. */
  otlpEndpoint?: string;
  /**
   * Like `VLLM_TRACE_FUNCTION=1` with TP=1 (an engine with a traced core, vLLM): an EngineCore process
   * (pid `enginePid`, default the API server's + 1) prints its tracer lines into the log and its engine
   * steps are traced under this folder (see src/engines/vllm/fakeEngineCore.ts).
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
  const imitation = imitationOf(opts.engine);
  if (!imitation) throw new Error(`the fake engine does not imitate ${opts.engine}`);
  const writeLine = opts.logSink ?? ((line: string) => { if (opts.logFile) appendFileSync(opts.logFile, line + '\n'); });
  const otlp = opts.otlpEndpoint;
  const server = imitation.start({
    write: writeLine, pid: opts.pid ?? process.pid, epochNow: () => performance.timeOrigin + performance.now(),
    ...(opts.traceDir ? {
      trace: {
        dir: opts.traceDir, ...(opts.enginePid !== undefined ? { pid: opts.enginePid } : {}),
        ...(opts.traceSourceRoot ? { sourceRoot: opts.traceSourceRoot } : {}),
      },
    } : {}),
    ...(otlp ? { exportSpan: (span) => exportSpan(otlp, span) } : {}),
  });
  const traces = new Map<string, WriteTrace>();
  const eng: FakeEngineState = {
    model, server, traces,
    schedule: () => schedule,
    json(res, status, body, ctx) {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
      if (ctx) server.answered(ctx.client, ctx.path, status, http.STATUS_CODES[status] ?? '');
    },
  };
  const routes: Routes = { opts, imitation, request: engineProfile(imitation.id).request };
  const sockets = new Set<Socket>();
  let active = 0;
  let idleWaiters: (() => void)[] = [];
  const begin = () => { active++; };
  const finish = () => { active--; if (active === 0) { const w = idleWaiters; idleWaiters = []; w.forEach((f) => f()); } };

  const listener = http.createServer({ noDelay: true }, (req, res) => {
    begin();
    res.on('close', finish);
    void routeRequest(eng, routes, req, res).catch((e: unknown) => {
      if (!res.headersSent) eng.json(res, 500, starletteError(String(e), 'InternalServerError', 500));
      else res.destroy();
    });
  });
  listener.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });

  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (listener.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    engineCoreTrace: server.engineCore,
    setSchedule(next) { schedule = typeof next === 'string' ? parseSchedule(next) : { ...DEFAULT_SCHEDULE, ...next }; },
    writesFor: (rid) => traces.get(rid),
    idle: () => (active === 0 ? Promise.resolve() : new Promise<void>((r) => idleWaiters.push(r))),
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      listener.close(() => resolve());
    }),
  };
}

/** What the routes ask about the imitated engine. */
interface Routes {
  opts: FakeEngineOptions;
  imitation: EngineImitation;
  /** How a request carries its id to the engine (its profile's `request`). */
  request: EngineRequestApi | undefined;
}

/**
 * The engine's routes: the test-only write log, the API key, the GET routes each engine has, and
 * the POST APIs, whose body and ids are checked and read before the stream is served on the
 * schedule in force once the body has arrived.
 */
async function routeRequest(eng: FakeEngineState, routes: Routes, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const { json, model } = eng;
  const { opts, imitation } = routes;
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const client = `${req.socket.remoteAddress ?? '127.0.0.1'}:${req.socket.remotePort ?? 0}`;
  if (url.pathname === '/__fake/writes') {
    const t = eng.traces.get(url.searchParams.get('rid') ?? '');
    return json(res, t ? 200 : 404, JSON.stringify(t ?? { error: 'no such request id' }));
  }
  if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
    return json(res, 401, '{"error":"Unauthorized"}', { path: url.pathname, client });
  }
  if (req.method === 'GET') return answerGet(eng, routes, url.pathname, res);
  const api = imitation.apis.get(url.pathname) ?? null;
  if (req.method !== 'POST' || api === null) return json(res, 404, '{"detail":"Not Found"}', { path: url.pathname, client });
  const text = await readBody(req);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text ?? '') as Record<string, unknown>;
    if (typeof body !== 'object' || body === null) throw new Error('not an object');
  } catch {
    return json(res, 400, starletteError('Invalid JSON body', 'BadRequestError', 400), { path: url.pathname, client });
  }
  const unknownModel = imitation.unknownModel(api, body.model, model);
  if (unknownModel !== null) return json(res, 404, unknownModel, { path: url.pathname, client });
  const traceparent = parseTraceparent(typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined);
  await serveStream(eng, res, {
    api, body, clientRid: clientRid(routes.request, req, body), schedule: eng.schedule(), model, path: url.pathname, client,
    ...(traceparent ? { traceparent } : {}),
  });
}

/** The id the client chose, where the engine reads it (its id header first, then its body field), else one the server draws. */
function clientRid(api: EngineRequestApi | undefined, req: http.IncomingMessage, body: Record<string, unknown>): string {
  const header = api?.idHeader ? req.headers[api.idHeader.toLowerCase()] : undefined;
  if (typeof header === 'string') return header;
  const field = api ? body[api.idBodyField] : undefined;
  return typeof field === 'string' ? field : randomHex(32);
}

/** The GET routes: models, health, and each engine's own version or server-info route. */
function answerGet(eng: FakeEngineState, routes: Routes, pathname: string, res: http.ServerResponse): void {
  const { json, model } = eng;
  if (pathname === '/v1/models') {
    const created = Math.floor(Date.now() / 1000);
    const card = { id: model, object: 'model', created, owned_by: routes.opts.engine, root: model, parent: null, max_model_len: 40960 };
    return json(res, 200, JSON.stringify({ object: 'list', data: [card] }));
  }
  if (pathname === '/health') { res.writeHead(200); res.end(); return; }
  const own = routes.imitation.getRoutes.get(pathname);
  if (own) return json(res, 200, own({ model, tokensPerFrame: eng.schedule().tokensPerFrame }));
  return json(res, 404, '{"detail":"Not Found"}');
}
