// One request the fake engine answers, from the arrival lines it logs to the last SSE frame:
// the ids and lengths the engine would pick, the scripted non-stream answers (hang, HTTP error,
// an HTML or JSON body), the content frames on the schedule (bursts, a mid-stream error, a drop,
// a hang), and the tail (finish, usage, [DONE]) with the completion lines and the OTLP span.
// Split out of server.ts so each step of a reply reads on its own; the order of writes, log lines
// and trace entries is the one the tests pin. What the engine writes at each step (its ids, frames,
// lines) its imitation says (src/engines/<id>/fake.ts): this code never names an engine.
import type * as http from 'node:http';
import type { Completion, ImitatedReply, ImitatedRequest, ImitatedServer } from '../../engines/fake';
import { DONE, sse } from './frames';
import { contentFrameWriteMs, type FakeSchedule } from './schedule';
import type { WriteTrace } from './server';

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
  /** The one model it serves. */
  model: string;
  /** The schedule in force now (tests change it between requests). */
  schedule(): FakeSchedule;
  /** The imitated engine's server: its ids, lines and frames. */
  server: ImitatedServer;
  traces: Map<string, WriteTrace>;
  json(res: http.ServerResponse, status: number, body: string, ctx?: { path: string; client: string }): void;
}

/** The request's numbers and ids as the engine derives them from its body, before anything is written. */
interface StreamPlan extends ImitatedRequest {
  /** The reply's token texts (replyTokens of the user's text). */
  tokens: string[];
  reply: ReplyLength;
}

function planStream(eng: FakeEngineState, c: StreamCtx): StreamPlan {
  const s = c.schedule;
  const sampling = c.body.sampling_params as Record<string, unknown> | undefined;
  const maxTokens = Number(c.api === 'generate' ? sampling?.max_new_tokens ?? 128 : c.body.max_tokens ?? 16);
  const temperature = Number(c.api === 'generate' ? sampling?.temperature ?? 1 : c.body.temperature ?? 1);
  const promptText = c.api === 'chat' ? JSON.stringify(c.body.messages ?? '') : String(c.api === 'generate' ? c.body.text ?? '' : c.body.prompt ?? '');
  const streamOptions = (c.body.stream_options ?? {}) as Record<string, unknown>;
  const includeUsage = s.usage && streamOptions.include_usage === true;
  const { externalId, loggedId } = eng.server.ids(c.api, c.clientRid);
  return {
    api: c.api, body: c.body, clientRid: c.clientRid, model: c.model, path: c.path, client: c.client,
    ...(c.traceparent ? { traceparent: c.traceparent } : {}),
    maxTokens, temperature, promptText,
    promptTokens: Math.max(1, Math.ceil(promptText.length / 4)),
    tokens: replyTokens(userText(c.api, c.body)),
    includeUsage,
    continuous: s.usage && streamOptions.continuous_usage_stats === true && (!eng.server.continuousNeedsIncludeUsage || includeUsage),
    reply: replyLength(s, maxTokens),
    created: Math.floor(Date.now() / 1000),
    externalId, loggedId,
    internalId: `${loggedId}-${randomHex(8)}`,
  };
}

/** Serves one request: logs its arrival, then answers as the schedule says. */
export async function serveStream(eng: FakeEngineState, res: http.ServerResponse, c: StreamCtx): Promise<void> {
  const arrived = performance.now();
  const trace: WriteTrace = { arrivedAtEpochMs: Date.now(), writes: [], scheduledContentMs: [], aborted: false };
  eng.traces.set(c.clientRid, trace);
  const plan = planStream(eng, c);
  const reply = eng.server.reply(plan);
  reply.arrived();
  if (await answerWithoutStream(eng, res, c, plan, reply)) return;
  await new StreamReply(eng, res, c, plan, reply, trace, arrived).run();
}

/** The scripted answers that are not an event stream (hang, HTTP error, HTML, JSON); true when one was given. */
async function answerWithoutStream(eng: FakeEngineState, res: http.ServerResponse, c: StreamCtx, p: StreamPlan, reply: ImitatedReply): Promise<boolean> {
  const s = c.schedule;
  if (s.hang) {
    // Accept and never answer: the client's timeouts must end this.
    await untilClosed(res);
    return true;
  }
  if (s.httpStatus !== null) {
    const status = s.httpStatus;
    const type = status >= 500 ? 'InternalServerError' : status === 404 ? 'NotFoundError' : 'BadRequestError';
    eng.json(res, status, reply.httpError(status, type, `fake engine: scripted HTTP ${status}`), { path: c.path, client: c.client });
    return true;
  }
  if (s.nonSse === 'html') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!DOCTYPE html>\n<html><head><title>Welcome to nginx!</title></head><body><h1>Welcome to nginx!</h1></body></html>\n');
    eng.server.answered(c.client, c.path, 200, 'OK');
    return true;
  }
  if (s.nonSse === 'json') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
      id: p.externalId, object: 'chat.completion', created: p.created, model: c.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: p.promptTokens, total_tokens: p.promptTokens + 2, completion_tokens: 2 },
    }));
    eng.server.answered(c.client, c.path, 200, 'OK');
    return true;
  }
  return false;
}

/** One event-stream reply: its socket writes on the schedule, and what it has sent so far. */
class StreamReply {
  private readonly s: FakeSchedule;
  private readonly writeTimes: number[];
  private finished = false;
  /** The reply's text and token ids so far (SGLang's non-incremental frames and finish line carry them whole). */
  private full = '';
  private readonly ids: number[] = [];
  /** Frames held back to go out in one write (a burst). */
  private pending = '';
  private pendingFrames = 0;

  constructor(
    private readonly eng: FakeEngineState, private readonly res: http.ServerResponse, private readonly c: StreamCtx,
    private readonly p: StreamPlan, private readonly reply: ImitatedReply, private readonly trace: WriteTrace, private readonly arrived: number,
  ) {
    this.s = c.schedule;
    this.writeTimes = contentFrameWriteMs(this.s, p.reply.frames);
  }

  async run(): Promise<void> {
    this.openEventStream();
    const s = this.s;
    for (let i = 0; i < this.p.reply.frames; i++) {
      this.trace.scheduledContentMs.push(s.firstMs + i * s.everyMs + (s.stall && i >= s.stall.at ? s.stall.ms : 0));
    }
    if (this.c.api === 'chat') {
      const roleAt = s.roleMs ?? this.writeTimes[0] ?? s.firstMs;
      if (!(await this.write(roleAt, sse(this.reply.role()), 1))) return;
    }
    this.reply.beforeContent();
    for (let i = 0; i < this.p.reply.frames; i++) {
      if (!(await this.contentFrame(i))) return;
    }
    await this.writeTail();
  }

  private openEventStream(): void {
    const { res, c } = this;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    res.flushHeaders();
    this.eng.server.answered(c.client, c.path, 200, 'OK');
    res.on('close', () => {
      if (this.finished) return;
      this.trace.aborted = true;
      this.reply.aborted();
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
    const { s, p } = this;
    const at = this.writeTimes[i];
    if (s.error && s.error.at === i) {
      if (this.pending && !(await this.write(at, this.pending, this.pendingFrames))) return false;
      await this.endWith(at, [sse(this.reply.error(s.error.type === 'internal')), DONE]);
      return false;
    }
    const k = s.tokensPerFrame;
    let textNow = '';
    const upTo = Math.min((i + 1) * k, p.reply.tokens);
    const tokens = p.tokens;
    for (let tok = i * k; tok < upTo; tok++) { textNow += tokens[tok % tokens.length]; this.ids.push(tokenId(tok, tokens.length)); }
    this.full += textNow;
    this.pending += sse(this.reply.content({
      i, last: i === p.reply.frames - 1, finish: p.reply.finish, replyTokens: p.reply.tokens, text: textNow, full: this.full, ids: this.ids,
      from: i * k, upTo, incremental: s.incremental, tokensPerFrame: k, everyMs: s.everyMs, sinceArrival: performance.now() - this.arrived,
    }));
    this.pendingFrames++;
    const nextAt = this.writeTimes[i + 1];
    const heldForBurst = nextAt !== undefined && nextAt === at && s.burst !== null && i >= s.burst.at && i < s.burst.at + s.burst.count - 1;
    if (heldForBurst) return true;
    // A burst is ONE socket write: the frames a lagging frontend merged.
    if (!(await this.write(at, this.pending, this.pendingFrames))) return false;
    this.reply.written();
    this.pending = '';
    this.pendingFrames = 0;
    if (s.unparseableAt === i) {
      if (!(await this.write(at, sse('{"id":"' + p.externalId + '","object":"chat.completion.chunk",'), 1))) return false;
    }
    if (s.dropAt === i) { this.finished = true; this.res.socket?.end(); return false; } // FIN after the flushed frames, mid chunked body
    if (s.hangAt === i) {
      await untilClosed(this.res);
      return false;
    }
    return true;
  }

  /** The finish and usage frames, [DONE], and the lines and span the engine emits when a request completes. */
  private async writeTail(): Promise<void> {
    const { s, p, trace, arrived } = this;
    const endAt = this.writeTimes[p.reply.frames - 1] ?? s.firstMs;
    const end: Completion = {
      finish: p.reply.finish, completionTokens: p.reply.tokens, full: this.full, ids: this.ids,
      arrivedEpochMs: trace.arrivedAtEpochMs, firstMs: s.firstMs, endAtMs: endAt,
      sinceArrival: () => performance.now() - arrived,
      whenSent: (f) => { this.res.once('finish', f); },
    };
    const tail = this.reply.tail(end).map(sse);
    this.reply.completed(end);
    if (!s.noDone) tail.push(DONE);
    await this.endWith(endAt, tail);
  }
}
