// A log on this machine as a LogSource (logSource.ts): a file, a gzip file, a pipe or FIFO, or
// standard input (`-`), read as bytes so the byte fast path keeps its speed. Nothing holds it
// already: `current()` is for the editor's sessions, which wrap this in their own source.
import { openLogInput } from './logInput';
import type { ByteFeed, LogSource } from './logSource';

export function pathLogSource(path: string): LogSource {
  const label = path === '-' ? 'standard input' : path.split(/[\\/]/).pop() || path;
  return {
    stream: { key: path, label },
    async open(): Promise<ByteFeed> {
      const input = await openLogInput(path);
      return { kind: 'bytes', referenceTime: input.referenceTime, chunks: () => input.chunks(), close: () => input.close() };
    },
  };
}
