// The one way the fleet clients talk HTTP: an injected transport (tests and the editor may pass
// their own), a bounded time and an AbortSignal on every call, a cap on the bytes read, and one
// error type whose message says what a user can do about it (down, slow, refused credentials, a
// proxy's HTML page, JSON cut short, an answer too big). Pure core: Node's fetch, no vscode.

/** Credentials the caller passes in (the CLI from env vars, the editor from SecretStorage). */
export interface FleetCredentials {
  bearerToken?: string;
  username?: string;
  password?: string;
  /** Loki's and Tempo's tenant (X-Scope-OrgID) for multi-tenant stores. */
  orgId?: string;
  /** VictoriaLogs' tenant: the AccountID and ProjectID headers (numbers; 0:0 when not sent). */
  accountId?: string;
  projectId?: string;
}

/** A VictoriaLogs tenant as a user writes it, `ACCOUNT` or `ACCOUNT:PROJECT` (32-bit numbers); `what` names the setting. */
export function parseVictoriaLogsTenant(text: string, what: string): { accountId: string; projectId?: string } | undefined {
  const s = text.trim();
  if (s === '') return undefined;
  const m = /^(\d{1,10})(?::(\d{1,10}))?$/.exec(s);
  if (!m || Number(m[1]) > 0xffffffff || (m[2] !== undefined && Number(m[2]) > 0xffffffff)) {
    throw new FleetError('bad-url', `${what} "${text}" is not a VictoriaLogs tenant: ACCOUNT or ACCOUNT:PROJECT, numbers (e.g. 3 or 3:1)`);
  }
  return m[2] !== undefined ? { accountId: m[1], projectId: m[2] } : { accountId: m[1] };
}

export interface HttpRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The whole call, first byte to last, must end within this. */
  timeoutMs: number;
  /** Reading stops, with an error, past this many bytes. */
  maxBytes: number;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  contentType: string;
  text: string;
}

/** Called per chunk of a streamed body; return false to stop reading. */
export type ChunkSink = (chunk: string) => boolean | void;

export interface HttpTransport {
  request(req: HttpRequest): Promise<HttpResponse>;
  /** A long-lived body read as it arrives (live following); the timeout bounds connecting only. */
  stream(req: HttpRequest, onChunk: ChunkSink): Promise<{ status: number; contentType: string }>;
}

export type FleetErrorKind = 'bad-url' | 'unreachable' | 'timeout' | 'cancelled' | 'auth' | 'http' | 'not-json' | 'truncated' | 'too-large';

export class FleetError extends Error {
  constructor(readonly kind: FleetErrorKind, message: string) {
    super(message);
    this.name = 'FleetError';
  }
}

/** Bytes a search answer may have; a request's lines and spans are far below this. */
export const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 10_000;

export function authHeaders(creds: FleetCredentials | undefined): Record<string, string> {
  const h: Record<string, string> = {};
  if (creds?.bearerToken) h.Authorization = `Bearer ${creds.bearerToken}`;
  else if (creds?.username !== undefined && creds.username !== '') {
    h.Authorization = `Basic ${Buffer.from(`${creds.username}:${creds.password ?? ''}`).toString('base64')}`;
  }
  if (creds?.orgId) h['X-Scope-OrgID'] = creds.orgId;
  if (creds?.accountId) h.AccountID = creds.accountId;
  if (creds?.projectId) h.ProjectID = creds.projectId;
  return h;
}

/** A URL as it may be shown: without a query string's values or userinfo. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return url.slice(0, 80);
  }
}

function combinedSignal(timeoutMs: number, signal?: AbortSignal): { signal: AbortSignal; timedOut: () => boolean; dispose: () => void } {
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; ctl.abort(); }, timeoutMs);
  const onAbort = (): void => ctl.abort();
  if (signal) {
    if (signal.aborted) ctl.abort();
    else signal.addEventListener('abort', onAbort, { once: true });
  }
  return {
    signal: ctl.signal, timedOut: () => timedOut,
    dispose: () => { clearTimeout(timer); signal?.removeEventListener('abort', onAbort); },
  };
}

function failure(e: unknown, url: string, timeoutMs: number, timedOut: boolean, cancelled: boolean): FleetError {
  if (e instanceof FleetError) return e;
  if (cancelled) return new FleetError('cancelled', `cancelled: ${shownUrl(url)}`);
  if (timedOut) return new FleetError('timeout', `no complete answer from ${shownUrl(url)} within ${timeoutMs} ms`);
  const err = e as Error & { cause?: { code?: string; message?: string } };
  const why = err.cause?.code ?? err.cause?.message ?? err.message;
  return new FleetError('unreachable', `cannot reach ${shownUrl(url)}: ${why}`);
}

async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number, url: string, onChunk?: ChunkSink): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (!onChunk && bytes > maxBytes) {
      await reader.cancel().catch(() => undefined);
      const mb = Math.round(maxBytes / 1024 / 1024);
      throw new FleetError('too-large', `the answer from ${shownUrl(url)} is over ${mb} MB: narrow the time window or the selector`);
    }
    const text = decoder.decode(value, { stream: true });
    if (onChunk) {
      if (onChunk(text) === false) { await reader.cancel().catch(() => undefined); return ''; }
    } else parts.push(text);
  }
  const tail = decoder.decode();
  if (onChunk) { if (tail) onChunk(tail); return ''; }
  parts.push(tail);
  return parts.join('');
}

/** Node's fetch, with the time bound covering the body too (a server that stalls mid-body is slow, not hung). */
export const fetchTransport: HttpTransport = {
  async request(req) {
    const { signal, timedOut, dispose } = combinedSignal(req.timeoutMs, req.signal);
    try {
      const res = await fetch(req.url, { method: req.method ?? 'GET', headers: req.headers, body: req.body, signal, redirect: 'follow' });
      const text = await readCapped(res.body, req.maxBytes, req.url);
      return { status: res.status, contentType: res.headers.get('content-type') ?? '', text };
    } catch (e) {
      throw failure(e, req.url, req.timeoutMs, timedOut(), req.signal?.aborted === true);
    } finally {
      dispose();
    }
  },
  async stream(req, onChunk) {
    const ctl = new AbortController();
    const connect = setTimeout(() => ctl.abort(), req.timeoutMs);
    let connected = false;
    const onAbort = (): void => ctl.abort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await fetch(req.url, { method: req.method ?? 'GET', headers: req.headers, body: req.body, signal: ctl.signal });
      connected = true;
      clearTimeout(connect);
      if (res.status < 200 || res.status >= 300) {
        const text = await readCapped(res.body, 64 * 1024, req.url).catch(() => '');
        throw statusError(res.status, res.headers.get('content-type') ?? '', text, req.url);
      }
      await readCapped(res.body, req.maxBytes, req.url, onChunk);
      return { status: res.status, contentType: res.headers.get('content-type') ?? '' };
    } catch (e) {
      if (req.signal?.aborted) return { status: 0, contentType: '' };
      throw failure(e, req.url, req.timeoutMs, !connected && !req.signal?.aborted, false);
    } finally {
      clearTimeout(connect);
      req.signal?.removeEventListener('abort', onAbort);
    }
  },
};

function looksLikeHtml(contentType: string, text: string): boolean {
  return /text\/html/i.test(contentType) || /^\s*<(?:!doctype|html|head|body)/i.test(text);
}

/** The error for a non-2xx answer, saying what a user would check. */
export function statusError(status: number, contentType: string, text: string, url: string): FleetError {
  const where = shownUrl(url);
  // Loki and Tempo in multi-tenant mode answer 401 "no org id" when X-Scope-OrgID is missing.
  if (status === 401 && /no org id/i.test(text)) {
    return new FleetError('auth', `${where} needs a tenant (HTTP 401 "no org id"): set the X-Scope-OrgID tenant for this store`);
  }
  if (status === 401 || status === 403) {
    return new FleetError('auth', `${where} refused the credentials (HTTP ${status}): set the token or user/password for this store`);
  }
  if (looksLikeHtml(contentType, text)) {
    const title = /<title>([^<]{0,120})<\/title>/i.exec(text)?.[1]?.trim();
    const named = title ? ` ("${title}")` : '';
    return new FleetError('http', `${where} answered HTTP ${status} with an HTML page${named}: is this the store's API address, not a proxy or UI?`);
  }
  return new FleetError('http', `HTTP ${status} from ${where}: ${text.slice(0, 200).replace(/\s+/g, ' ').trim()}`);
}

/** Parses a whole JSON answer, telling an HTML page and a body cut short apart from other junk. */
export function parseJsonAnswer(res: HttpResponse, url: string): unknown {
  if (res.status < 200 || res.status >= 300) throw statusError(res.status, res.contentType, res.text, url);
  if (looksLikeHtml(res.contentType, res.text)) {
    throw new FleetError('not-json', `${shownUrl(url)} answered an HTML page, not JSON: is this the store's API address, not a proxy or UI?`);
  }
  try {
    return JSON.parse(res.text);
  } catch (e) {
    const t = res.text.trimEnd();
    const cut = t.length > 0 && /^[[{]/.test(t.trimStart()) && !/[\]}]$/.test(t);
    if (cut) throw new FleetError('truncated', `the JSON from ${shownUrl(url)} ends early (${res.text.length} bytes): the connection or a proxy cut it`);
    throw new FleetError('not-json', `${shownUrl(url)} did not answer JSON (${(e as Error).message}): ${t.slice(0, 80)}`);
  }
}

/** Parses JSON Lines (VictoriaLogs' answers): every line must be whole. */
export function parseJsonLines(res: HttpResponse, url: string): Array<Record<string, unknown>> {
  if (res.status < 200 || res.status >= 300) throw statusError(res.status, res.contentType, res.text, url);
  if (looksLikeHtml(res.contentType, res.text)) {
    throw new FleetError('not-json', `${shownUrl(url)} answered an HTML page, not JSON lines: is this the store's API address?`);
  }
  const out: Array<Record<string, unknown>> = [];
  const lines = res.text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      const last = lines.slice(i + 1).every((l) => l.trim() === '');
      if (last) {
        throw new FleetError('truncated', `the answer from ${shownUrl(url)} ends in the middle of a line (line ${i + 1}): the connection or a proxy cut it`);
      }
      throw new FleetError('not-json', `line ${i + 1} from ${shownUrl(url)} is not JSON: ${line.slice(0, 80)}`);
    }
  }
  return out;
}

/** What a store client is built with (model.ts's ClientOptions has these fields). */
interface StoreHttpOptions { transport?: HttpTransport; credentials?: FleetCredentials; timeoutMs?: number; maxBytes?: number }

/**
 * One store's calls: its transport, its headers (JSON, any the store's API needs, its credentials),
 * the time bound and the body cap, read once from the client's options; every client asks through it.
 */
export class StoreHttp {
  readonly transport: HttpTransport;
  readonly headers: Record<string, string>;
  readonly timeoutMs: number;
  readonly maxBytes: number;

  constructor(opts: StoreHttpOptions, storeHeaders: Record<string, string> = {}) {
    this.transport = opts.transport ?? fetchTransport;
    this.headers = { Accept: 'application/json', ...storeHeaders, ...authHeaders(opts.credentials) };
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  }

  /** One call, bounded by the store's time and body cap. */
  request(url: string, signal?: AbortSignal, call: { method?: 'GET' | 'POST'; body?: string } = {}): Promise<HttpResponse> {
    return this.transport.request({ url, ...call, headers: this.headers, timeoutMs: this.timeoutMs, maxBytes: this.maxBytes, signal });
  }
}
