// Turns one SSE event's data into a classified frame, for the exact chunk shapes of
// vLLM and SGLang (spec/engine-facts.md §D). Stateful per stream: SGLang's /generate
// sends cumulative text by default, so the delta is computed against the previous frame,
// and running token counts become per-frame token counts.
import type { Api, FrameKind } from './types';

export interface ClassifiedFrame {
  kind: FrameKind;
  text: string;
  chars: number;
  tokens: number | null;
  cumulativeTokens: number | null;
  finishReason: string | null;
  serverId: string | null;
  errorMessage?: string;
}

/** How SGLang /generate frames carry text: decided from the frames unless forced. */
export type GenerateTextMode = 'auto' | 'cumulative' | 'incremental';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function asString(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Code points, as Python's len() counts them (the lab prints that number). */
export function countChars(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { n--; i++; }
    }
  }
  return n;
}

function finishReasonText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  // SGLang /generate: {"type":"stop","matched":…} / {"type":"length","length":N} / {"type":"abort",…}
  if (isObject(v) && typeof v.type === 'string') return v.type;
  return String(v);
}

function errorMessageOf(err: unknown): string {
  if (isObject(err)) {
    const msg = asString(err.message);
    const type = asString(err.type);
    const code = err.code !== undefined && err.code !== null ? String(err.code) : '';
    return [type, code && `(${code})`, msg && `: ${msg}`].filter(Boolean).join(' ').replace(' :', ':') || JSON.stringify(err);
  }
  return typeof err === 'string' ? err : JSON.stringify(err);
}

export class FrameClassifier {
  private cumulativeText = '';
  private lastCumulativeTokens: number | null = null;
  private generateMode: GenerateTextMode;

  constructor(private readonly api: Api, generateMode: GenerateTextMode = 'auto') {
    this.generateMode = generateMode;
  }

  /** The text mode SGLang /generate frames turned out to use (after classification). */
  get detectedGenerateMode(): GenerateTextMode { return this.generateMode; }

  classify(data: string): ClassifiedFrame {
    if (data === '[DONE]') return this.make('done');
    let obj: unknown;
    try {
      obj = JSON.parse(data);
    } catch {
      return this.make('unparseable');
    }
    if (!isObject(obj)) return this.make('unparseable');
    if ('error' in obj && obj.error !== null && obj.error !== undefined) {
      // vLLM {"error": {"message","type","param","code"}}; SGLang adds "object": "error".
      return { ...this.make('error'), errorMessage: errorMessageOf(obj.error), serverId: null };
    }
    if (obj.object === 'error') {
      // Older OpenAI-style error object at the top level.
      return { ...this.make('error'), errorMessage: errorMessageOf(obj) };
    }
    if (Array.isArray(obj.choices)) return this.classifyOpenAI(obj);
    if ('text' in obj || isObject(obj.meta_info)) return this.classifyGenerate(obj);
    return this.make('empty');
  }

  private make(kind: FrameKind): ClassifiedFrame {
    return { kind, text: '', chars: 0, tokens: null, cumulativeTokens: null, finishReason: null, serverId: null };
  }

  /** Running completion-token count → tokens added by this frame. */
  private tokenDelta(cumulative: number | null): { tokens: number | null; cumulativeTokens: number | null } {
    if (cumulative === null) return { tokens: null, cumulativeTokens: null };
    const prev = this.lastCumulativeTokens ?? 0;
    this.lastCumulativeTokens = cumulative;
    return { tokens: Math.max(0, cumulative - prev), cumulativeTokens: cumulative };
  }

  private classifyOpenAI(obj: Json): ClassifiedFrame {
    const choices = obj.choices as unknown[];
    const serverId = typeof obj.id === 'string' ? obj.id : null;
    const usage = isObject(obj.usage) ? obj.usage : null;
    const completionTokens = usage && typeof usage.completion_tokens === 'number' ? usage.completion_tokens : null;
    if (choices.length === 0) {
      // The usage chunk (choices: []) reports the final count; it adds no tokens of its own.
      const out = this.make(usage ? 'usage' : 'empty');
      out.serverId = serverId;
      if (completionTokens !== null) {
        out.cumulativeTokens = completionTokens;
        out.tokens = 0;
        this.lastCumulativeTokens = completionTokens;
      }
      return out;
    }
    let text = '';
    let reasoning = '';
    let toolCalls = false;
    let role = false;
    let finish: string | null = null;
    for (const c of choices) {
      if (!isObject(c)) continue;
      finish = finish ?? finishReasonText(c.finish_reason);
      if (this.api === 'completions' || 'text' in c) {
        text += asString(c.text);
      }
      const delta = isObject(c.delta) ? c.delta : null;
      if (delta) {
        text += asString(delta.content);
        // vLLM's reasoning parser sends `reasoning`; SGLang (and older vLLM) `reasoning_content`.
        reasoning += asString(delta.reasoning) + asString(delta.reasoning_content);
        if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) toolCalls = true;
        if (typeof delta.role === 'string') role = true;
      }
    }
    let kind: FrameKind;
    let shown = text;
    if (text) kind = 'content';
    else if (reasoning) { kind = 'reasoning'; shown = reasoning; }
    else if (toolCalls) { kind = 'tool-call'; shown = toolCallText(choices); }
    else if (finish) kind = 'finish';
    else if (role) kind = 'role-only';
    else kind = 'empty';
    const tok = this.tokenDelta(completionTokens);
    return { kind, text: shown, chars: countChars(shown), ...tok, finishReason: finish, serverId };
  }

  private classifyGenerate(obj: Json): ClassifiedFrame {
    const meta = isObject(obj.meta_info) ? obj.meta_info : {};
    const serverId = typeof meta.id === 'string' ? meta.id : null;
    const finish = finishReasonText(meta.finish_reason);
    const completionTokens = typeof meta.completion_tokens === 'number' ? meta.completion_tokens : null;
    const frameText = asString(obj.text);
    const ids = Array.isArray(obj.output_ids) ? obj.output_ids.length : null;
    if (this.generateMode === 'auto' && this.lastCumulativeTokens !== null && completionTokens !== null && ids !== null) {
      // Cumulative frames repeat every id so far; incremental ones hold only the new ids.
      if (ids < completionTokens || !frameText.startsWith(this.cumulativeText)) this.generateMode = 'incremental';
      else if (completionTokens > (this.lastCumulativeTokens ?? 0)) this.generateMode = 'cumulative';
    }
    let delta: string;
    const cumulative = this.generateMode === 'cumulative' || (this.generateMode === 'auto' && frameText.startsWith(this.cumulativeText));
    if (cumulative) {
      delta = frameText.slice(this.cumulativeText.length);
      this.cumulativeText = frameText;
    } else {
      delta = frameText;
      this.cumulativeText += frameText;
    }
    const tok = this.tokenDelta(completionTokens);
    const kind: FrameKind = delta ? 'content' : finish ? 'finish' : 'empty';
    return { kind, text: delta, chars: countChars(delta), ...tok, finishReason: finish, serverId };
  }
}

function toolCallText(choices: unknown[]): string {
  const parts: string[] = [];
  for (const c of choices) {
    if (!isObject(c) || !isObject(c.delta) || !Array.isArray(c.delta.tool_calls)) continue;
    for (const call of c.delta.tool_calls) {
      if (!isObject(call) || !isObject(call.function)) continue;
      parts.push(asString(call.function.name) + asString(call.function.arguments));
    }
  }
  return parts.join('');
}
