// Messages between the main thread and the indexing worker (src/workers/calltraceIndex.ts).
import type { ThreadTraceState } from './threadTrace';

export interface IndexRequest {
  type: 'index';
  path: string;
  maxNodes?: number;
  expectedCalls?: number;
  chunkBytes?: number;
}

export type IndexReply =
  | { type: 'progress'; path: string; bytesDone: number }
  | { type: 'done'; path: string; state: ThreadTraceState }
  | { type: 'error'; path: string; message: string };
