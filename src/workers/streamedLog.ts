// Reads a large log for the streamed view (Open Large Server Log…) on its own thread: the
// extension host's thread only applies what each slice learnt (core/session/streamedLog.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { serveStreamedLog } from '../core/session/streamedLog';

serveStreamedLog((workerData as { path: string }).path, parentPort!);
