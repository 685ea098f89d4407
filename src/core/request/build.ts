// What we send: URL, headers and body for each API, and the request id in the places
// each engine reads it (vLLM: `X-Request-Id` header, then body `request_id`; SGLang: body `rid`).
import type { Api, Engine, RequestSpec } from './types';
import { apiOwner, engineChoiceWords, engineProfile, isEngine, ownApi, requestApis, requestApiWords } from '../../engines/registry';

export interface TraceOptions {
  /** Server base URL, e.g. http://127.0.0.1:8000 */
  url: string;
  engine?: Engine | 'auto';
  api?: Api;
  /** Empty/undefined: the first model of GET /v1/models. */
  model?: string;
  prompt?: string;
  maxTokens?: number;
  temperature?: number;
  /** Extra body fields merged last (they win over ours, except the request id and `stream`). */
  extraBody?: Record<string, unknown>;
  /** Our request id; default `hoplens-<time>-<random>`. */
  requestId?: string;
  /** Sent as `Authorization: Bearer …`; never stored in results or exports. */
  apiKey?: string;
  /** Budget for the whole request, headers to [DONE] (default 120 000). */
  timeoutMs?: number;
  /** Longest silence allowed once the response started (default 30 000). */
  idleTimeoutMs?: number;
  /** TCP/TLS connect budget (default 10 000). */
  connectTimeoutMs?: number;
  /** For SGLang /generate: cumulative (default server behaviour) or incremental text. */
  generateTextMode?: 'auto' | 'cumulative' | 'incremental';
  signal?: AbortSignal;
}

export const DEFAULTS = {
  url: 'http://127.0.0.1:8000',
  prompt: 'Count to twenty, one number per line.',
  maxTokens: 32,
  temperature: 0,
  timeoutMs: 120_000,
  idleTimeoutMs: 30_000,
  connectTimeoutMs: 10_000,
};

/** The longest wait Node's timers can hold (2^31 − 1 ms, about 24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * The server's root from a URL as people write it: the OpenAI SDK and most docs give the base
 * URL with `/v1` (`http://host:8000/v1`); our paths (/v1/…, /version, /generate) start at the root.
 */
export function serverRootUrl(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** The URL with any `user:password@` replaced, for everything that is printed, stored or exported. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1***@');
}

/** Checks options a user typed; returns a message per problem (empty when fine). */
export function validateOptions(o: TraceOptions): string[] {
  const problems: string[] = [];
  let u: URL | null = null;
  try { u = new URL(o.url); } catch { problems.push(`server URL '${redactUrl(o.url)}' is not a URL (expected e.g. http://127.0.0.1:8000)`); }
  if (u && u.protocol !== 'http:' && u.protocol !== 'https:') problems.push(`server URL must start with http:// or https:// (got '${u.protocol}')`);
  if (o.engine !== undefined && o.engine !== 'auto' && !isEngine(o.engine)) problems.push(`engine must be ${engineChoiceWords(true)} (got '${o.engine}')`);
  if (o.api !== undefined && !requestApis().includes(o.api)) {
    problems.push(`api must be ${requestApiWords()} (got '${o.api}')`);
  }
  if (o.maxTokens !== undefined && (!Number.isInteger(o.maxTokens) || o.maxTokens < 1)) {
    problems.push(`max tokens must be a whole number ≥ 1 (got ${o.maxTokens})`);
  }
  if (o.temperature !== undefined && (!Number.isFinite(o.temperature) || o.temperature < 0)) {
    problems.push(`temperature must be a number ≥ 0 (got ${o.temperature})`);
  }
  for (const [name, v] of [['timeout', o.timeoutMs], ['idle timeout', o.idleTimeoutMs], ['connect timeout', o.connectTimeoutMs]] as const) {
    if (v !== undefined && (!Number.isFinite(v) || v <= 0)) problems.push(`${name} must be a positive number of milliseconds (got ${v})`);
    else if (v !== undefined && v > MAX_TIMER_MS) {
      problems.push(`${name} must be at most ${MAX_TIMER_MS} ms (about 24 days; a timer cannot wait longer) (got ${v})`);
    }
  }
  if (o.requestId !== undefined && !/^[A-Za-z0-9._:-]{1,200}$/.test(o.requestId)) {
    problems.push(`request id '${o.requestId}' may only use letters, digits and . _ : - (it goes into a header and into log lines)`);
  }
  const owner = o.api === undefined ? undefined : apiOwner(o.api);
  if (owner !== undefined && isEngine(o.engine) && o.engine !== owner.id) problems.push(`api ${o.api} needs an ${owner.label} server (engine is ${o.engine})`);
  return problems;
}

export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}

/** The request for one traced call. The API key is added by the transport, not stored here. */
export function buildRequest(engine: Engine, api: Api, model: string, requestId: string, o: TraceOptions, traceparent?: string): RequestSpec {
  const prompt = o.prompt ?? DEFAULTS.prompt;
  const maxTokens = o.maxTokens ?? DEFAULTS.maxTokens;
  const temperature = o.temperature ?? DEFAULTS.temperature;
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'text/event-stream',
  };
  let path: string;
  let body: Record<string, unknown>;
  const own = ownApi(api);
  if (own !== undefined) {
    path = own.path;
    body = own.body({ prompt, temperature, maxTokens, model });
  } else {
    path = api === 'chat' ? '/v1/chat/completions' : '/v1/completions';
    body = api === 'chat'
      ? { model, messages: [{ role: 'user', content: prompt }], stream: true, max_tokens: maxTokens, temperature }
      : { model, prompt, stream: true, max_tokens: maxTokens, temperature };
    // Usage on every chunk gives per-frame token counts (vLLM needs include_usage for it;
    // SGLang honours continuous_usage_stats on its own).
    body.stream_options = { include_usage: true, continuous_usage_stats: true };
  }
  if (o.extraBody) Object.assign(body, o.extraBody);
  body.stream = true;
  // Where the engine takes the id it prints in its log lines (its profile's request API).
  const requestApi = isEngine(engine) ? engineProfile(engine).request : undefined;
  if (requestApi?.idHeader) headers[requestApi.idHeader] = requestId;
  body[requestApi?.idBodyField ?? 'rid'] = requestId;
  // W3C trace context: vLLM makes it the parent of its llm_request span (when tracing is on).
  if (traceparent !== undefined) headers.traceparent = traceparent;
  return { url: joinUrl(o.url, path), method: 'POST', headers, body };
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A `curl` line that replays the request. The key shows as $HOPLENS_API_KEY unless asked. */
export function toCurl(spec: RequestSpec, opts: { apiKey?: string; revealKey?: boolean; hasApiKey?: boolean } = {}): string {
  const parts = ['curl', '-N', '-sS', '-X', spec.method, shellQuote(spec.url)];
  for (const [k, v] of Object.entries(spec.headers)) parts.push('-H', shellQuote(`${k}: ${v}`));
  if (opts.apiKey || opts.hasApiKey) {
    const key = opts.revealKey && opts.apiKey ? shellQuote(`Authorization: Bearer ${opts.apiKey}`) : `"Authorization: Bearer $HOPLENS_API_KEY"`;
    parts.push('-H', key);
  }
  if (spec.method === 'POST') parts.push('--data-raw', shellQuote(JSON.stringify(spec.body)));
  return parts.join(' ');
}
