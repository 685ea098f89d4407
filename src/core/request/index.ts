// The request layer's public surface: one traced streaming request, its metrics and exports.
export * from './types';
export { sendTracedRequest, sendRepeated, detectEngine, listModels, type TraceDeps, type TracedRequest } from './client';
export { buildRequest, toCurl, validateOptions, DEFAULTS, type TraceOptions } from './build';
export {
  computeMetrics, aggregateRuns, distribution, percentile, itlHistogram,
  type TraceMetrics, type RunsSummary, type Signature, type Distribution, type HistogramBin,
} from './metrics';
export { toJson, toMarkdown, textReport, framesTable, summaryRows, toCurlCommand, runsReport, type TraceJson } from './export';
export { serverIdsFor, newRequestId, type ServerIds } from './serverIds';
export { FrameClassifier, countChars } from './classify';
export { StreamRecorder } from './recorder';
export { NodeHttpTransport, type HttpTransport, type ResponseSink, type HttpRequestInit, type HttpExchange } from './transport';
export {
  findRequestLogLines, parseServerTime, secondStampRangeText, countLinesUpTo, serverLogFile, ServerLogReader,
  type RequestLogLine, type ServerLogAnswer,
} from './logLink';
export { TracedRequestWorker, type OffThreadJob, type OffThreadDeps, type OffThreadMessage } from './offThread';
export { warmUpRequestPath } from './warmUp';
export { newTraceContext, parseTraceparent, type TraceContext } from './traceContext';
