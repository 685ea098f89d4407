// Worker-thread entry: indexes one trace file off the extension host's thread and transfers
// the finished column arrays back (no copy). Bundled to dist/calltraceIndex.js.
import { parentPort } from 'node:worker_threads';
import { readTraceFile } from '../core/calltrace/fileReader';
import type { IndexReply, IndexRequest } from '../core/calltrace/protocol';
import { ThreadTrace } from '../core/calltrace/threadTrace';

const PROGRESS_EVERY_BYTES = 16 * 1024 * 1024;

if (parentPort) {
  const port = parentPort;
  port.on('message', (req: IndexRequest) => {
    void (async () => {
      try {
        const trace = new ThreadTrace({ maxNodes: req.maxNodes, expectedCalls: req.expectedCalls });
        let lastReport = 0;
        await readTraceFile(req.path, trace, {
          chunkBytes: req.chunkBytes,
          blocking: true,
          onProgress: (bytesDone) => {
            if (bytesDone - lastReport < PROGRESS_EVERY_BYTES) return;
            lastReport = bytesDone;
            port.postMessage({ type: 'progress', path: req.path, bytesDone } satisfies IndexReply);
          },
        });
        const state = trace.exportState();
        port.postMessage({ type: 'done', path: req.path, state } satisfies IndexReply, ThreadTrace.transferList(state));
      } catch (e) {
        port.postMessage({ type: 'error', path: req.path, message: (e as Error).message } satisfies IndexReply);
      }
    })();
  });
}
