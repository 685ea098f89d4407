// Each stream a log store answered (one pod's container) as a LogSource (core/logs/logSource.ts):
// its lines in the store's order with the store's own timestamps, read once, so the parser,
// the request index and the timeline take a remote stream as they take a file.
import type { LineFeed, LogSource, StoreLine } from '../logs/logSource';
import type { RemoteLogStream, StoreEndpoint } from './model';

/** `namespace/pod/container` when labelled so, else the stream's short name. */
export function streamLabel(stream: RemoteLogStream): string {
  const { namespace, pod, container } = stream.labels;
  return pod ? [namespace, pod, container].filter((x) => x).join('/') : stream.name;
}

export function remoteStreamSource(endpoint: StoreEndpoint, stream: RemoteLogStream, referenceTimeMs: number): LogSource {
  const labelKeys = Object.keys(stream.labels).sort();
  const key = `${endpoint.kind}+${endpoint.baseUrl}#{${labelKeys.map((k) => `${k}=${JSON.stringify(stream.labels[k])}`).join(',')}}`;
  return {
    stream: { key, label: streamLabel(stream), labels: { ...stream.labels } },
    open(): Promise<LineFeed> {
      let closed = false;
      const lines: StoreLine[] = stream.entries.map((e) => ({ text: e.text, storeTimeMs: Number(e.timeNs / 1000n) / 1000 }));
      return Promise.resolve({
        kind: 'lines', referenceTime: referenceTimeMs,
        close: () => { closed = true; },
        async *batches() {
          const BATCH = 2000;
          for (let i = 0; i < lines.length && !closed; i += BATCH) yield lines.slice(i, i + BATCH);
        },
      });
    },
  };
}
