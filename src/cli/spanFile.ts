// `hoplens otlp --out FILE`: every export request's spans appended as one line of OTLP JSON
// (the Collector file exporter's shape, which `--file` reads back). A batch is written whole or
// not at all: a failed write is cut back off the file and reported to the receiver, which then
// answers 503 so the exporter keeps those spans and sends them again.
import { promises as fsp } from 'node:fs';
import { dirname } from 'node:path';
import { tracesDataJsonLine } from '../core/otlp/otlpJson';
import type { OtlpSpan } from '../core/otlp/types';

function openError(path: string, e: NodeJS.ErrnoException): Error {
  const why = e.code === 'ENOENT' ? `no such directory ${dirname(path)}`
    : e.code === 'EACCES' || e.code === 'EPERM' ? `permission denied (${e.code})`
      : e.code === 'EISDIR' ? 'it is a directory'
        : e.code === 'EROFS' ? 'read-only file system'
          : e.message;
  return new Error(`cannot write spans to ${path}: ${why}`);
}

export class SpanFileWriter {
  private handle: fsp.FileHandle | null;
  /** Writes run one after another, so a failed one can be cut back off the end. */
  private queue: Promise<void> = Promise.resolve();

  private constructor(readonly path: string, handle: fsp.FileHandle) {
    this.handle = handle;
  }

  /** Opens (creates) the file for appending; fails now, not at the first span. */
  static async open(path: string): Promise<SpanFileWriter> {
    try {
      return new SpanFileWriter(path, await fsp.open(path, 'a'));
    } catch (e) {
      throw openError(path, e as NodeJS.ErrnoException);
    }
  }

  /** Appends one OTLP JSON line with these spans; rejects when it could not be written whole. */
  write(spans: OtlpSpan[]): Promise<void> {
    const line = Buffer.from(tracesDataJsonLine(spans) + '\n', 'utf8');
    const run = this.queue.then(() => this.append(line));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async append(line: Buffer): Promise<void> {
    // After a failure the file is opened again: the disk may have room by now.
    if (!this.handle) {
      try { this.handle = await fsp.open(this.path, 'a'); } catch (e) { throw openError(this.path, e as NodeJS.ErrnoException); }
    }
    const fh = this.handle;
    let sizeBefore: number | null = null;
    try { sizeBefore = (await fh.stat()).size; } catch { /* a device has no size to restore */ }
    try {
      for (let off = 0; off < line.length;) off += (await fh.write(line, off, line.length - off)).bytesWritten;
    } catch (e) {
      // A partial line would make the next one unreadable: cut it off (not possible on a device).
      if (sizeBefore !== null) await fh.truncate(sizeBefore).catch(() => undefined);
      this.handle = null;
      await fh.close().catch(() => undefined);
      throw new Error(`cannot write ${this.path}: ${(e as Error).message}`, { cause: e });
    }
  }

  async close(): Promise<void> {
    await this.queue;
    const fh = this.handle;
    this.handle = null;
    await fh?.close().catch(() => undefined);
  }
}
