// When the fake engine writes what: a schedule a test or a benchmark can state in one
// line, e.g. "first=150,frames=40,every=20,burst=5@20" (40 frames 20 ms apart after a
// 150 ms first frame, frames 20..24 held back and written in ONE socket write).

export interface FakeSchedule {
  /** ms from the request's arrival to the first content frame. */
  firstMs: number;
  /** ms to the role frame (chat APIs); null: written just before the first content frame, in its own write. */
  roleMs: number | null;
  /** Content frames until the model's end-of-turn (finish `stop`), unless max_tokens ends it first (`length`); null: runs to max_tokens. */
  frames: number | null;
  /** ms between content frames. */
  everyMs: number;
  /** Tokens per content frame (vLLM/SGLang `--stream-interval`). */
  tokensPerFrame: number;
  /** Content frames [at, at+count) are held and written together in one write, when the last one is due. */
  burst: { at: number; count: number } | null;
  /** An extra pause before content frame `at`. */
  stall: { at: number; ms: number } | null;
  /** After content frame `at` (0 = before any), an error frame, then [DONE]. */
  error: { at: number; type: 'internal' | 'bad-request' } | null;
  /** A frame that is not JSON, written after content frame `at`. */
  unparseableAt: number | null;
  /** End the body cleanly but leave out `data: [DONE]`. */
  noDone: boolean;
  /** Destroy the connection after content frame `at` (a crash / reset mid-stream). */
  dropAt: number | null;
  /** Stop writing after content frame `at` but keep the connection open (a silent stall). */
  hangAt: number | null;
  /** Accept the connection and the request but never answer. */
  hang: boolean;
  /** Answer with this HTTP status and the engine's JSON error instead of a stream. */
  httpStatus: number | null;
  /** Answer 200 with a body that is not an event stream. */
  nonSse: 'json' | 'html' | null;
  /** SGLang /generate: delta text (`--incremental-streaming-output`) instead of cumulative. */
  incremental: boolean;
  /** Honour stream_options.include_usage / continuous_usage_stats (default true). */
  usage: boolean;
  /** Busy-wait the last ~2 ms before each write, so writes land within tens of µs of the schedule. */
  precise: boolean;
}

export const DEFAULT_SCHEDULE: FakeSchedule = {
  firstMs: 50, roleMs: null, frames: null, everyMs: 10, tokensPerFrame: 1,
  burst: null, stall: null, error: null, unparseableAt: null, noDone: false, dropAt: null, hangAt: null,
  hang: false, httpStatus: null, nonSse: null, incremental: false, usage: true, precise: true,
};

function num(key: string, v: string | undefined): number {
  const n = Number(v);
  if (v === undefined || v === '' || !Number.isFinite(n) || n < 0) throw new Error(`schedule: '${key}' needs a number ≥ 0 (got '${v ?? ''}')`);
  return n;
}

/** "a@b" → [a, b] */
function pair(key: string, v: string | undefined): [number, number] {
  const m = /^(\d+(?:\.\d+)?)@(\d+)$/.exec(v ?? '');
  if (!m) throw new Error(`schedule: '${key}' needs the form N@FRAME (got '${v ?? ''}')`);
  return [Number(m[1]), Number(m[2])];
}

/** Parses "first=150,frames=40,every=20,burst=5@20,stall=500@30,error@10,nodone,…" or a JSON object. */
export function parseSchedule(text: string | undefined): FakeSchedule {
  const s: FakeSchedule = { ...DEFAULT_SCHEDULE };
  if (!text || !text.trim()) return s;
  if (text.trim().startsWith('{')) return { ...s, ...(JSON.parse(text) as Partial<FakeSchedule>) };
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (!item) continue;
    const at = /^([a-z-]+)@(\d+)$/i.exec(item);
    const [key, value] = at ? [at[1], undefined] : item.split('=', 2) as [string, string | undefined];
    switch (key.toLowerCase()) {
      case 'first': s.firstMs = num(key, value); break;
      case 'role': s.roleMs = num(key, value); break;
      case 'frames': s.frames = Math.floor(num(key, value)); break;
      case 'every': s.everyMs = num(key, value); break;
      case 'tokens': s.tokensPerFrame = Math.max(1, Math.floor(num(key, value))); break;
      case 'burst': { const [count, f] = pair(key, value); s.burst = { at: f, count }; break; }
      case 'stall': { const [ms, f] = pair(key, value); s.stall = { at: f, ms }; break; }
      case 'error': s.error = { at: Number(at?.[2] ?? num(key, value)), type: 'internal' }; break;
      case 'bad-request': s.error = { at: Number(at?.[2] ?? num(key, value)), type: 'bad-request' }; break;
      case 'unparseable': s.unparseableAt = Number(at?.[2] ?? num(key, value)); break;
      case 'drop': s.dropAt = Number(at?.[2] ?? num(key, value)); break;
      case 'hangat': case 'hang-at': s.hangAt = num(key, value); break;
      case 'hang': if (at) s.hangAt = Number(at[2]); else s.hang = true; break;
      case 'nodone': s.noDone = true; break;
      case 'http': s.httpStatus = Math.floor(num(key, value)); break;
      case 'nonsse': if (value !== 'json' && value !== 'html') throw new Error(`schedule: nonsse must be json or html`); s.nonSse = value; break;
      case 'incremental': s.incremental = true; break;
      case 'nousage': s.usage = false; break;
      case 'imprecise': s.precise = false; break;
      default: throw new Error(`schedule: unknown item '${item}'`);
    }
  }
  return s;
}

/** ms from arrival at which content frame i (0-based) is due, before burst grouping. */
export function contentFrameDueMs(s: FakeSchedule, i: number): number {
  let t = s.firstMs + i * s.everyMs;
  if (s.stall && i >= s.stall.at) t += s.stall.ms;
  return t;
}

/** When each content frame actually reaches the socket: a burst's frames all go with its last one. */
export function contentFrameWriteMs(s: FakeSchedule, frames: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < frames; i++) {
    let t = contentFrameDueMs(s, i);
    if (s.burst && i >= s.burst.at && i < s.burst.at + s.burst.count) {
      t = contentFrameDueMs(s, Math.min(frames - 1, s.burst.at + s.burst.count - 1));
    }
    out.push(t);
  }
  return out;
}
