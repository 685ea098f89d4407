// Byte chunks (already stamped with their arrival time) → SSE events → classified frames.
// The stamp is taken by the transport before this code sees the bytes; a frame gets the
// stamp of the chunk that completed it, because eventsource-parser calls onEvent
// synchronously inside feed().
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { FrameClassifier, type GenerateTextMode } from './classify';
import { FRAME_DETAIL_CAP, emptyTail, type StreamTail } from './streamTail';
import { OUTPUT_KINDS, type Api, type Frame } from './types';

/** Characters of one SSE event (or of a line without its newline) held before the stream is refused. */
export const MAX_EVENT_CHARS = 64 * 1024 * 1024;

export class StreamRecorder {
  /** Frames with full detail, up to the cap; the rest are counted in `tail`. */
  readonly frames: Frame[] = [];
  /** Statistics of the frames past the detail cap (null while under it). */
  tail: StreamTail | null = null;
  /** Set when the stream broke the SSE framing beyond repair (an event larger than MAX_EVENT_CHARS). */
  fatal: string | null = null;
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

  private lastDetailOutputT: number | null = null;
  private lastDetailCumulative: number | null = null;
  private framesSeen = 0;

  constructor(api: Api, generateMode: GenerateTextMode = 'auto', private readonly detailCap = FRAME_DETAIL_CAP) {
    this.classifier = new FrameClassifier(api, generateMode);
    this.parser = createParser({
      onEvent: (ev) => this.onEvent(ev.data),
      onComment: () => { this.comments++; },
      onError: (err) => {
        if ((err as { type?: string }).type === 'max-buffer-size-exceeded') {
          this.fatal = `The server sent more than ${MAX_EVENT_CHARS / 1024 / 1024} MB without ending an SSE event (no blank line, or no newline at all).`;
        } else if (this.parseErrors.length < 20) this.parseErrors.push(err.message);
      },
      // A server that never sends a blank line must not grow our memory without bound.
      maxBufferSize: MAX_EVENT_CHARS,
    });
  }

  get sawDone(): boolean { return this.done; }

  /** Feed one socket chunk that arrived at `t` (ms since the request started). */
  push(chunk: Uint8Array, t: number): void {
    if (this.fatal !== null) return; // the parser refuses more input once it gave up
    this.currentT = t;
    this.currentChunk = this.chunks++;
    this.bytes += chunk.byteLength;
    // stream: true keeps a UTF-8 sequence split across chunks intact.
    this.parser.feed(this.decoder.decode(chunk, { stream: true }));
  }

  /** The body ended at `t`. A last event without its blank line is still parsed (servers that close early). */
  end(t: number): void {
    if (this.fatal !== null) return;
    this.currentT = t;
    const rest = this.decoder.decode();
    if (rest) this.parser.feed(rest);
    this.parser.reset({ consume: true });
  }

  private onEvent(data: string): void {
    const c = this.classifier.classify(data);
    if (c.kind === 'done') this.done = true;
    const frame: Frame = {
      index: this.framesSeen++,
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
    // An error frame is always kept: the report quotes it.
    if (this.frames.length < this.detailCap || frame.kind === 'error') {
      this.frames.push(frame);
      if (OUTPUT_KINDS.has(frame.kind)) this.lastDetailOutputT = frame.t;
      if (frame.cumulativeTokens !== null) this.lastDetailCumulative = frame.cumulativeTokens;
    } else {
      this.countPastCap(frame);
    }
    this.onFrame?.(frame);
  }

  private countPastCap(f: Frame): void {
    const tail = (this.tail ??= emptyTail());
    tail.frames++;
    tail.lastT = f.t;
    if (f.kind === 'unparseable') tail.unparseable++;
    if (f.cumulativeTokens !== null) tail.lastCumulativeTokens = f.cumulativeTokens;
    if (!OUTPUT_KINDS.has(f.kind)) return;
    tail.outputFrames++;
    if (f.tokens !== null && f.tokens > 1) tail.multiTokenFrames++;
    const prev = tail.lastOutputT ?? this.lastDetailOutputT;
    if (prev !== null) {
      const gap = f.t - prev;
      tail.itl.add(gap);
      if (f.tokens !== null) {
        const n = f.tokens > 0 ? f.tokens : 1;
        for (let k = 0; k < n; k++) tail.itlPerToken.add(gap / n);
      }
    }
    tail.lastOutputT = f.t;
  }

  /** The running token count at the last detailed frame (the tail's continues from it). */
  get detailCumulativeTokens(): number | null { return this.lastDetailCumulative; }
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
