// A small log shipper for the fleet demo, doing what a node's log agent (Vector, Fluent Bit,
// Promtail) does for a pod: it reads the pod's stdout line by line, stamps each line with the
// node's clock as it arrives (as the container runtime's log file does), attaches the pod's stream
// labels (namespace, pod, container) and posts batches to VictoriaLogs' JSON-lines API. VictoriaLogs
// stores nothing unless the body is sent as `application/stream+json`, and makes the labels named
// in `_stream_fields` the line's stream, which HopLens reads back as the pod.
import type { Readable } from 'node:stream';

export interface StreamLabels { namespace: string; pod: string; container: string }

export interface LogShipperOptions {
  /** VictoriaLogs' base URL (http://127.0.0.1:PORT). */
  victoriaLogsUrl: string;
  labels: StreamLabels;
  /** The node's wall clock in epoch ms (the demo skews it as it skews the pod's). */
  clock?: () => number;
  /** How often a batch goes out (default 200 ms). */
  flushEveryMs?: number;
  /** Bound on each POST (default 5 s). */
  timeoutMs?: number;
  /** A failed POST: its lines are kept for the next batch (up to `maxPending`). */
  onProblem?: (message: string) => void;
  maxPending?: number;
}

interface Row { _msg: string; _time: string; namespace: string; pod: string; container: string }

export class LogShipper {
  private pending: Row[] = [];
  private partial = '';
  private timer: NodeJS.Timeout | undefined;
  private posting: Promise<void> = Promise.resolve();
  /** Lines VictoriaLogs accepted. */
  shipped = 0;

  constructor(private readonly opts: LogShipperOptions) {}

  /** Ships every line the stream gives, until it ends. */
  follow(stream: Readable): void {
    stream.setEncoding('utf8');
    stream.on('data', (text: string) => this.take(text));
    stream.on('end', () => { if (this.partial) this.add(this.partial); this.partial = ''; void this.flush(); });
    this.timer = setInterval(() => { void this.flush(); }, this.opts.flushEveryMs ?? 200);
    this.timer.unref();
    stream.resume();
  }

  /** Text as it arrives: whole lines are stamped now, a line's start waits for its end. */
  take(text: string): void {
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) this.add(line.replace(/\r$/, ''));
  }

  private add(line: string): void {
    if (!line) return;
    const time = new Date(this.opts.clock ? this.opts.clock() : Date.now()).toISOString();
    this.pending.push({ _msg: line, _time: time, ...this.opts.labels });
    const cap = this.opts.maxPending ?? 100_000;
    if (this.pending.length > cap) this.pending.splice(0, this.pending.length - cap);
  }

  /** Posts what is pending (one POST at a time, in order). */
  flush(): Promise<void> {
    this.posting = this.posting.then(() => this.post());
    return this.posting;
  }

  private async post(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const url = `${this.opts.victoriaLogsUrl}/insert/jsonline?_stream_fields=namespace,pod,container&_time_field=_time&_msg_field=_msg`;
    try {
      const res = await fetch(url, {
        method: 'POST', headers: { 'Content-Type': 'application/stream+json' }, body: batch.map((r) => JSON.stringify(r)).join('\n') + '\n',
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 5000),
      });
      await res.text();
      if (res.status !== 200 && res.status !== 204) throw new Error(`HTTP ${res.status}`);
      this.shipped += batch.length;
    } catch (e) {
      this.pending = [...batch, ...this.pending];
      this.opts.onProblem?.(`shipping ${this.opts.labels.pod}'s lines to VictoriaLogs failed (${(e as Error).message}); will retry`);
    }
  }

  /** Ships what is left and stops the timer. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
