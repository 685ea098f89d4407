// W3C Trace Context for a traced request: the `traceparent` header HopLens sends, so the
// engine's span for that exact request (vLLM's llm_request takes it as its parent) is found
// by trace id in Jaeger or Tempo, beside the request id HopLens already sends.
// Format (W3C Trace Context, level 1): `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`,
// lowercase; an all-zero trace id or parent id is invalid, and version ff is forbidden.
import { randomBytes } from 'node:crypto';

export interface TraceContext {
  /** 32 lowercase hex digits, never all zero. */
  traceId: string;
  /** The client's span id, the parent of the engine's span: 16 lowercase hex digits, never all zero. */
  spanId: string;
  /** The header value as sent: `00-<traceId>-<spanId>-01` (sampled). */
  traceparent: string;
}

const ALL_ZERO = /^0+$/;

function randomHexNonZero(bytes: number, random: (n: number) => Buffer): string {
  for (;;) {
    const hex = random(bytes).toString('hex');
    if (hex.length === bytes * 2 && !ALL_ZERO.test(hex)) return hex;
  }
}

/** A fresh, random trace context for one request (sampled, so the engine records its span). */
export function newTraceContext(random: (n: number) => Buffer = randomBytes): TraceContext {
  const traceId = randomHexNonZero(16, random);
  const spanId = randomHexNonZero(8, random);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/**
 * The trace id and parent id of a `traceparent` header value, or undefined when it is not a
 * valid one (as a W3C receiver does: an invalid header is ignored and a new trace starts).
 * A future version (not 00, not ff) may carry more fields after the flags.
 */
export function parseTraceparent(value: string | undefined): { traceId: string; parentId: string; sampled: boolean } | undefined {
  if (value === undefined) return undefined;
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/.exec(value.trim());
  if (!m) return undefined;
  const [, version, traceId, parentId, flags, rest] = m;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(parentId)) return undefined;
  return { traceId, parentId, sampled: (parseInt(flags, 16) & 1) === 1 };
}
