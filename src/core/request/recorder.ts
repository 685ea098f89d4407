// Byte chunks (already stamped with their arrival time) → SSE events → classified frames.
// The stamp is taken by the transport before this code sees the bytes; a frame gets the
// stamp of the chunk that completed it, because eventsource-parser calls onEvent
// synchronously inside feed().
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { FrameClassifier, type GenerateTextMode } from './classify';
import type { Api, Frame } from './types';

export class StreamRecorder {
  readonly frames: Frame[] = [];
  /** SSE comment lines (`: keep-alive`), counted but not frames. */
  comments = 0;
  chunks = 0;
  bytes = 0;
  parseErrors: string[] = [];
  private readonly decoder = new TextDecoder('utf-8');
  private readonly parser: EventSourceParser;
  private readonly classifier: FrameClassifier;
  private currentT = 0;
  private currentChunk = 0;
  private done = false;
  /** Called for each frame as it is recorded (progress UI, early error detection). */
  onFrame: ((f: Frame) => void) | null = null;

  constructor(api: Api, generateMode: GenerateTextMode = 'auto') {
    this.classifier = new FrameClassifier(api, generateMode);
    this.parser = createParser({
      onEvent: (ev) => this.onEvent(ev.data),
      onComment: () => { this.comments++; },
      onError: (err) => { if (this.parseErrors.length < 20) this.parseErrors.push(err.message); },
      // A server that never sends a blank line must not grow our memory without bound.
      maxBufferSize: 64 * 1024 * 1024,
    });
  }

  get sawDone(): boolean { return this.done; }

  /** Feed one socket chunk that arrived at `t` (ms since the request started). */
  push(chunk: Uint8Array, t: number): void {
    this.currentT = t;
    this.currentChunk = this.chunks++;
    this.bytes += chunk.byteLength;
    // stream: true keeps a UTF-8 sequence split across chunks intact.
    this.parser.feed(this.decoder.decode(chunk, { stream: true }));
  }

  /** The body ended at `t`. A last event without its blank line is still parsed (servers that close early). */
  end(t: number): void {
    this.currentT = t;
    const rest = this.decoder.decode();
    if (rest) this.parser.feed(rest);
    this.parser.reset({ consume: true });
  }

  private onEvent(data: string): void {
    const c = this.classifier.classify(data);
    if (c.kind === 'done') this.done = true;
    const frame: Frame = {
      index: this.frames.length,
      t: this.currentT,
      bytes: utf8Length(data),
      kind: c.kind,
      chars: c.chars,
      text: c.text,
      tokens: c.tokens,
      cumulativeTokens: c.cumulativeTokens,
      finishReason: c.finishReason,
      serverId: c.serverId,
      chunk: this.currentChunk,
    };
    if (c.errorMessage !== undefined) frame.errorMessage = c.errorMessage;
    this.frames.push(frame);
    this.onFrame?.(frame);
  }
}

/** UTF-8 byte length without allocating (Buffer.byteLength would too, this keeps the core portable). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) { n += 4; i++; }
    else n += 3;
  }
  return n;
}
