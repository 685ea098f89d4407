// The event stream's framing (`data: …` and a blank line), and the engines' SSE chunk bodies
// re-exported from their imitations (src/engines/<id>/fakeFrames.ts) for the tests and benchmarks
// that build a stream by hand (a hostile server, the metrics tests).
export type { Usage } from '../../engines/fake';
export { VllmChunks } from '../../engines/vllm/fakeFrames';
export { SglangChatChunks, SglangGenerateChunks } from '../../engines/sglang/fakeFrames';

export function sse(data: string): string {
  return `data: ${data}\n\n`;
}

export const DONE = sse('[DONE]');
