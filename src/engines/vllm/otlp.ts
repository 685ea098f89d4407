// How vLLM exports its spans to an OTLP/HTTP endpoint (engine-facts: `--otlp-traces-endpoint`,
// vllm/engine/arg_utils.py; the exporter picked by OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, grpc by
// default, so http/protobuf is named). vLLM sets no service.name: without OTEL_SERVICE_NAME its
// spans are filed under "unknown_service" in Jaeger or Tempo.
import type { EngineOtlp } from '../types';

const FLAG = '--otlp-traces-endpoint';

export const VLLM_OTLP: EngineOtlp = {
  endpointFlag: FLAG,
  launchLine: (url) => `OTEL_SERVICE_NAME=vllm OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf vllm serve <model> ${FLAG} ${url}`,
  launchWith: (url) => `${FLAG} ${url} and OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf`,
  // vllm/tracing.py's resource: the API server process that exported the span.
  processIdAttribute: 'vllm.process_id',
};
