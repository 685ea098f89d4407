// One request the fake engine answers, from the arrival lines it logs to the last SSE frame:
// the ids and lengths the engine would pick, the scripted non-stream answers (hang, HTTP error,
// an HTML or JSON body), the content frames on the schedule (bursts, a mid-stream error, a drop,
// a hang), and the tail (finish, usage, [DONE]) with the completion lines and the OTLP span.
// Split out of server.ts so each step of a reply reads on its own; the order of writes, log lines
// and trace entries is the one the tests pin.
import type * as http from 'node:http';
import type { Engine } from '../../engines/types';
import { exportLlmRequestSpan } from './otlpExport';
import { DONE, SglangChatChunks, SglangGenerateChunks, sse, VllmChunks, type Usage } from './frames';
import type { SglangLog, VllmLog } from './logLines';
import type { EngineCoreTrace } from './engineCoreTrace';
import { contentFrameWriteMs, type FakeSchedule } from './schedule';
import type { FakeEngineOptions, WriteTrace } from './server';

// The reply's token texts: a greeting with multi-byte UTF-8 (é, 数, an emoji) so clients meet
// split sequences, then the prompt's first words, so a changed prompt changes the reply (the same
// prompt, the same reply); a prompt with no words gets a count instead. The reply repeats from its
// start when max_tokens or the schedule asks for more tokens than it has.
const GREETING = ['Hello', '!', ' How', ' can', ' I', ' help', ' you', ' today', '?', ' Café', ' 数', '字', ' 🙂'];
const NO_WORDS = [' one', ',', ' two', ',', ' three', '.', '\n'];
/** How many of the prompt's words the reply names. */
const NAMED_WORDS = 6;

/** The reply to a prompt whose text is `prompt`: the greeting, then `You said: "<its first words>…"`. */
export function replyTokens(prompt: string): string[] {
  const words = prompt.split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return [...GREETING, ...NO_WORDS];
  const named = words.slice(0, NAMED_WORDS).map((w, i) => (i === 0 ? ` "${w}` : ` ${w}`));
  return [...GREETING, ' You', ' said', ':', ...named, words.length > NAMED_WORDS ? '…"' : '"', '\n'];
}

/** The text a user typed: a chat's last user message, a completion's prompt, /generate's text. */
function userText(api: StreamCtx['api'], body: Record<string, unknown>): string {
  const part = (p: unknown): string => {
    const t = typeof p === 'string' ? p : (p as { text?: unknown } | null)?.text;
    return typeof t === 'string' ? t : '';
  };
  const text = (v: unknown): string => (typeof v === 'string' ? v : Array.isArray(v) ? v.map(part).join(' ') : '');
  if (api === 'generate') return text(body.text);
  if (api === 'completions') return text(body.prompt);
  const messages = Array.isArray(body.messages) ? body.messages as { role?: unknown; content?: unknown }[] : [];
  const user = messages.filter((m) => m && m.role === 'user').at(-1);
  return user ? text(user.content) : '';
}

function tokenId(i: number, n: number): number { return 1000 + (i % n); }

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

export function randomHex(n: number): string {
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

/** Resolves when the response's connection closes (a hang ends only by the client's timeout). */
function untilClosed(res: http.ServerResponse): Promise<void> {
  return new Promise<void>((r) => res.on('close', () => r()));
}

export interface StreamCtx {
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

/** What one running fake engine shares with every request it serves. */
export interface FakeEngineState {
  opts: FakeEngineOptions;
  /** The one model it serves. */
  model: string;
  /** The schedule in force now (tests change it between requests). */
  schedule(): FakeSchedule;
  vlog: VllmLog;
  slog: SglangLog;
  core: EngineCoreTrace | null;
  traces: Map<string, WriteTrace>;
  epochNow(): number;
  json(res: http.ServerResponse, status: number, body: string, ctx?: { path: string; client: string }): void;
}

/** The request's numbers and ids as the engine derives them from its body, before anything is written. */
interface StreamPlan {
  maxTokens: number;
  temperature: number;
  promptText: string;
  promptTokens: number;
  /** The reply's token texts (replyTokens of the user's text). */
  tokens: string[];
  includeUsage: boolean;
  continuous: boolean;
  reply: ReplyLength;
  created: number;
  /** The id in the SSE frames. */
  externalId: string;
  /** The id in the server log's request lines. */
  loggedId: string;
  /** The engine core's id (vLLM's abort line names it). */
  internalId: string;
}

function planStream(c: StreamCtx): StreamPlan {
  const s = c.schedule;
  const sampling = c.body.sampling_params as Record<string, unknown> | undefined;
  const maxTokens = Number(c.api === 'generate' ? sampling?.max_new_tokens ?? 128 : c.body.max_tokens ?? 16);
  const temperature = Number(c.api === 'generate' ? sampling?.temperature ?? 1 : c.body.temperature ?? 1);
  const promptText = c.api === 'chat' ? JSON.stringify(c.body.messages ?? '') : String(c.api === 'generate' ? c.body.text ?? '' : c.body.prompt ?? '');
  const streamOptions = (c.body.stream_options ?? {}) as Record<string, unknown>;
  const includeUsage = s.usage && streamOptions.include_usage === true;
  const externalId = c.engine === 'sglang' ? c.clientRid : c.api === 'chat' ? `chatcmpl-${c.clientRid}` : `cmpl-${c.clientRid}`;
  const loggedId = c.engine === 'vllm' && c.api === 'completions' ? `${externalId}-0` : externalId;
  return {
    maxTokens, temperature, promptText,
    promptTokens: Math.max(1, Math.ceil(promptText.length / 4)),
    tokens: replyTokens(userText(c.api, c.body)),
    includeUsage,
    continuous: s.usage && streamOptions.continuous_usage_stats === true && (c.engine === 'sglang' || includeUsage),
    reply: replyLength(s, maxTokens),
    created: Math.floor(Date.now() / 1000),
    externalId, loggedId,
    internalId: `${loggedId}-${randomHex(8)}`,
  };
}

/** Builds each frame's JSON in the engine's and API's own shape. */
interface Chunkers {
  vllm: VllmChunks | null;
  sglChat: SglangChatChunks | null;
  sglGen: SglangGenerateChunks | null;
}

/** Serves one request: logs its arrival, then answers as the schedule says. */
export async function serveStream(eng: FakeEngineState, res: http.ServerResponse, c: StreamCtx): Promise<void> {
  const arrived = performance.now();
  const trace: WriteTrace = { arrivedAtEpochMs: Date.now(), writes: [], scheduledContentMs: [], aborted: false };
  eng.traces.set(c.clientRid, trace);
  const plan = planStream(c);
  logArrival(eng, c, plan);
  if (await answerWithoutStream(eng, res, c, plan)) return;
  await new StreamReply(eng, res, c, plan, trace, arrived).run();
}

function logArrival(eng: FakeEngineState, c: StreamCtx, p: StreamPlan): void {
  if (c.engine === 'vllm') {
    eng.vlog.received(p.loggedId, p.maxTokens, p.temperature);
    eng.vlog.added(p.internalId);
    if (eng.core) { const t = eng.epochNow(); eng.core.addRequest(t, t + 0.08); }
  } else {
    if (c.api === 'chat') eng.slog.receivedOpenAI(c.body);
    eng.slog.received(c.clientRid, c.api === 'generate' ? String(c.body.text ?? '') : p.promptText, p.maxTokens, p.temperature);
  }
}

/** The scripted answers that are not an event stream (hang, HTTP error, HTML, JSON); true when one was given. */
async function answerWithoutStream(eng: FakeEngineState, res: http.ServerResponse, c: StreamCtx, p: StreamPlan): Promise<boolean> {
  const s = c.schedule;
  if (s.hang) {
    // Accept and never answer: the client's timeouts must end this.
    await untilClosed(res);
    return true;
  }
  if (s.httpStatus !== null) {
    const status = s.httpStatus;
    const type = status >= 500 ? 'InternalServerError' : status === 404 ? 'NotFoundError' : 'BadRequestError';
    const body = c.engine === 'vllm' ? VllmChunks.httpError(`fake engine: scripted HTTP ${status}`, type, status)
      : JSON.stringify({ object: 'error', message: `fake engine: scripted HTTP ${status}`, type, param: null, code: status });
    eng.json(res, status, body, { path: c.path, client: c.client });
    return true;
  }
  if (s.nonSse === 'html') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head><body><h1>Welcome to nginx!</h1></body></html>\n');
    if (c.engine === 'vllm') eng.vlog.access(c.client, c.path, 200, 'OK');
    return true;
  }
  if (s.nonSse === 'json') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
      id: p.externalId, object: 'chat.completion', created: p.created, model: c.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: p.promptTokens, total_tokens: p.promptTokens + 2, completion_tokens: 2 },
    }));
    if (c.engine === 'vllm') eng.vlog.access(c.client, c.path, 200, 'OK');
    return true;
  }
  return false;
}

/** One event-stream reply: its socket writes on the schedule, and what it has sent so far. */
class StreamReply {
  private readonly s: FakeSchedule;
  private readonly writeTimes: number[];
  private readonly chunkers: Chunkers;
  private finished = false;
  /** The reply's text and token ids so far (SGLang's non-incremental frames and finish line carry them whole). */
  private full = '';
  private readonly ids: number[] = [];
  /** Frames held back to go out in one write (a burst). */
  private pending = '';
  private pendingFrames = 0;
  private stepFrom: number;

  constructor(
    private readonly eng: FakeEngineState, private readonly res: http.ServerResponse, private readonly c: StreamCtx,
    private readonly p: StreamPlan, private readonly trace: WriteTrace, private readonly arrived: number,
  ) {
    this.s = c.schedule;
    this.writeTimes = contentFrameWriteMs(this.s, p.reply.frames);
    this.chunkers = {
      vllm: c.engine === 'vllm' && c.api !== 'generate' ? new VllmChunks(p.externalId, c.model, p.created, c.api) : null,
      sglChat: c.engine === 'sglang' && c.api === 'chat' ? new SglangChatChunks(p.externalId, c.model, p.created) : null,
      sglGen: c.api === 'generate' ? new SglangGenerateChunks(c.clientRid, p.promptTokens) : null,
    };
    this.stepFrom = 0;
  }

  async run(): Promise<void> {
    this.openEventStream();
    const s = this.s;
    for (let i = 0; i < this.p.reply.frames; i++) {
      this.trace.scheduledContentMs.push(s.firstMs + i * s.everyMs + (s.stall && i >= s.stall.at ? s.stall.ms : 0));
    }
    if (this.c.api === 'chat') {
      const roleAt = s.roleMs ?? this.writeTimes[0] ?? s.firstMs;
      const { vllm, sglChat } = this.chunkers;
      const role = vllm ? vllm.role(this.p.continuous ? { prompt: this.p.promptTokens, completion: 0 } : null) : sglChat!.role();
      if (!(await this.write(roleAt, sse(role), 1))) return;
    }
    if (this.chunkers.sglGen) this.eng.slog.prefill(this.p.promptTokens);
    this.stepFrom = this.eng.epochNow();
    for (let i = 0; i < this.p.reply.frames; i++) {
      if (!(await this.contentFrame(i))) return;
    }
    await this.writeTail();
  }

  private openEventStream(): void {
    const { res, c } = this;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    res.flushHeaders();
    if (c.engine === 'vllm') this.eng.vlog.access(c.client, c.path, 200, 'OK');
    res.on('close', () => {
      if (this.finished) return;
      this.trace.aborted = true;
      // vLLM logs the client's disconnect; SGLang stops the stream silently (engine-facts §D).
      if (c.engine === 'vllm') this.eng.vlog.aborted(this.p.internalId, this.p.loggedId);
    });
  }

  private gone(): boolean { return this.res.destroyed || this.res.writableEnded; }

  private async write(at: number, payload: string, frames: number): Promise<boolean> {
    await sleepUntil(this.arrived + at, this.s.precise);
    if (this.gone()) return false;
    this.res.write(payload);
    this.trace.writes.push({ t: performance.now() - this.arrived, frames });
    return true;
  }

  private async endWith(at: number, payloads: string[]): Promise<void> {
    for (const payload of payloads) if (!(await this.write(at, payload, 1))) return;
    this.finished = true;
    this.res.end();
  }

  /** Frame i (or the scripted error, drop or hang at it); false when the reply ends here. */
  private async contentFrame(i: number): Promise<boolean> {
    const { s, c, eng } = this;
    const at = this.writeTimes[i];
    if (s.error && s.error.at === i) {
      if (this.pending && !(await this.write(at, this.pending, this.pendingFrames))) return false;
      await this.endWith(at, [sse(this.errorBody(s.error.type === 'internal')), DONE]);
      return false;
    }
    const k = s.tokensPerFrame;
    let textNow = '';
    const upTo = Math.min((i + 1) * k, this.p.reply.tokens);
    const tokens = this.p.tokens;
    for (let tok = i * k; tok < upTo; tok++) { textNow += tokens[tok % tokens.length]; this.ids.push(tokenId(tok, tokens.length)); }
    this.full += textNow;
    this.pending += sse(this.contentChunk(i, textNow, upTo));
    this.pendingFrames++;
    if (c.engine === 'vllm' && c.api === 'chat') eng.vlog.delta(this.p.loggedId, textNow);
    if (c.engine === 'sglang') {
      for (let tok = i * k; tok < upTo; tok++) eng.slog.decodeStep(this.p.promptTokens + tok + 1, 1000 / Math.max(1, s.everyMs / k));
    }
    const nextAt = this.writeTimes[i + 1];
    const heldForBurst = nextAt !== undefined && nextAt === at && s.burst !== null && i >= s.burst.at && i < s.burst.at + s.burst.count - 1;
    if (heldForBurst) return true;
    // A burst is ONE socket write: the frames a lagging frontend merged.
    if (!(await this.write(at, this.pending, this.pendingFrames))) return false;
    if (eng.core) { const t = eng.epochNow(); eng.core.step(this.stepFrom, t - 0.1); this.stepFrom = t; }
    this.pending = '';
    this.pendingFrames = 0;
    if (s.unparseableAt === i) {
      if (!(await this.write(at, sse('{"id":"' + this.p.externalId + '","object":"chat.completion.chunk",'), 1))) return false;
    }
    if (s.dropAt === i) { this.finished = true; this.res.socket?.end(); return false; } // FIN after the flushed frames, mid chunked body
    if (s.hangAt === i) {
      await untilClosed(this.res);
      return false;
    }
    return true;
  }

  /** The mid-stream error frame, and vLLM's failure line for an internal error. */
  private errorBody(internal: boolean): string {
    const { c } = this;
    const msg = internal ? 'Internal server error' : 'fake engine: scripted bad request';
    const type = internal ? 'InternalServerError' : 'BadRequestError';
    const status = internal ? 500 : 400;
    const body = c.engine === 'vllm' ? VllmChunks.error(msg, type, status)
      : c.api === 'generate' ? SglangGenerateChunks.error(msg, status)
        : SglangChatChunks.error(msg, type, status);
    if (c.engine === 'vllm' && internal) this.eng.vlog.failed(this.p.loggedId);
    return body;
  }

  private contentChunk(i: number, textNow: string, upTo: number): string {
    const { vllm, sglChat, sglGen } = this.chunkers;
    const { c, p, s } = this;
    const usage: Usage = { prompt: p.promptTokens, completion: upTo };
    const last = i === p.reply.frames - 1;
    if (vllm) return vllm.content(textNow, p.continuous ? usage : null, c.api === 'completions' && last ? p.reply.finish : null);
    if (sglChat) return sglChat.content(textNow, p.continuous ? usage : null);
    const k = s.tokensPerFrame;
    return sglGen!.frame(s.incremental ? textNow : this.full, s.incremental ? this.ids.slice(i * k - upTo) : [...this.ids], upTo,
      last ? sglangFinish(p.reply) : null,
      i === 0 ? { response_sent_to_client_ts: Date.now() / 1000 } : last ? { e2e_latency: (performance.now() - this.arrived) / 1000 } : {});
  }

  /** The finish and usage frames, [DONE], and the lines and span the engine emits when a request completes. */
  private async writeTail(): Promise<void> {
    const { s, c, p, eng, trace, arrived } = this;
    const { vllm, sglChat } = this.chunkers;
    const endAt = this.writeTimes[p.reply.frames - 1] ?? s.firstMs;
    const tail: string[] = [];
    const total: Usage = { prompt: p.promptTokens, completion: p.reply.tokens };
    if (vllm && c.api === 'chat') tail.push(sse(vllm.finish(p.reply.finish, p.continuous ? total : null)));
    if (vllm && p.includeUsage) tail.push(sse(vllm.usage(total)));
    if (sglChat) {
      tail.push(sse(sglChat.finish(p.reply.finish, p.reply.finish === 'stop' ? EOS_TOKEN_ID : null)));
      if (p.includeUsage) tail.push(sse(sglChat.usage(total)));
    }
    if (c.engine === 'vllm' && c.api === 'chat') eng.vlog.complete(p.loggedId, this.full);
    if (c.engine === 'vllm' && eng.opts.otlpEndpoint) {
      const otlp = eng.opts.otlpEndpoint;
      // vLLM ends the span in its output processor, before the last frame is written: at the
      // time the schedule writes the tail, not when the response has gone out.
      this.res.once('finish', () => exportLlmRequestSpan(otlp, {
        requestId: p.loggedId, arrivedEpochMs: trace.arrivedAtEpochMs, queueMs: 0.4,
        firstTokenMs: s.firstMs, e2eMs: Math.min(endAt, performance.now() - arrived),
        promptTokens: p.promptTokens, completionTokens: p.reply.tokens, maxTokens: p.maxTokens,
        ...(c.traceparent ? { traceparent: c.traceparent } : {}),
      }));
    }
    if (c.engine === 'sglang') {
      eng.slog.reqTimeStats(c.clientRid, p.promptTokens, p.reply.tokens, performance.now() - arrived, trace.arrivedAtEpochMs / 1000);
      eng.slog.finished(c.clientRid, this.full, this.ids, {
        id: c.clientRid, finish_reason: sglangFinish(p.reply), prompt_tokens: p.promptTokens, weight_version: 'default',
        num_retractions: 0, reasoning_tokens: 0, completion_tokens: p.reply.tokens, cached_tokens: 0,
        e2e_latency: Number(((performance.now() - arrived) / 1000).toFixed(4)),
      });
    }
    if (!s.noDone) tail.push(DONE);
    await this.endWith(endAt, tail);
  }
}
