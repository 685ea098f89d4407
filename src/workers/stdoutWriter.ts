// Writes the command line's output into a pipe from a thread of its own. Node writes to a pipe
// synchronously on Linux: with a 64 KB pipe, the main thread would sit in write() while the
// reader drains each 4 MB buffer, and parse nothing meanwhile. Here the wait happens on this
// thread, and the buffer goes back to the main thread to be filled again.
import { parentPort } from 'node:worker_threads';
import { openSync, writeSync } from 'node:fs';

const port = parentPort!;
// A descriptor of our own for the same pipe: Node made fd 1 non-blocking, and a blocking write
// is what lets this thread wait for the reader without spinning.
let fd = 1;
try { fd = openSync('/proc/self/fd/1', 'w'); } catch { /* not Linux: write to fd 1 and retry when it is full */ }

port.on('message', (m: { bytes: Uint8Array }) => {
  const b = m.bytes;
  try {
    for (let off = 0; off < b.length;) {
      try { off += writeSync(fd, b, off, b.length - off); } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
      }
    }
    port.postMessage({ bytes: b }, [b.buffer as ArrayBuffer]);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    port.postMessage({ error: { code: err.code, message: err.message } });
  }
});
