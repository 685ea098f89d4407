// Every way a traced request can fail, as one plain sentence and what to try.
import type { TraceError, TraceErrorKind } from './types';
import { requestApis, startCommands } from '../../engines/registry';

const TLS_CODES = /^(?:ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_(?:VERIFY|GET)|EPROTO$|ERR_SSL)/;

export function makeError(kind: TraceErrorKind, message: string, hint: string, extra: Partial<TraceError> = {}): TraceError {
  return { kind, message, hint, ...extra };
}

/** A socket-level failure (before or during the response) → TraceError. */
export function networkError(err: Error & { code?: string }, url: string, phase: 'connect' | 'response' | 'stream', framesSoFar: number): TraceError {
  const code = err.code ?? '';
  const host = safeHost(url);
  if (code === 'ECONNREFUSED') {
    return makeError('connection-refused', `Nothing is listening at ${host}: the connection was refused.`,
      `Start the server (${startCommands().join(' / ')}) or fix the server URL and port.`, { code });
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NONAME') {
    return makeError('dns', `The host name in ${url} could not be resolved (${code}).`,
      'Check the spelling of the host, or use the IP address (127.0.0.1 for a local server).', { code });
  }
  if (code === 'HOPLENS_CONNECT_TIMEOUT' || code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    return makeError('connect-timeout', `Could not connect to ${host} (${code === 'HOPLENS_CONNECT_TIMEOUT' ? err.message : code}).`,
      'Check that the host is reachable from this machine (firewall, VPN, SSH tunnel) and that the port is right.', { code });
  }
  if (TLS_CODES.test(code) || /ssl|tls|certificate/i.test(err.message)) {
    const wrongScheme = /wrong version number|packet length too long/i.test(err.message);
    return makeError('tls', `The TLS handshake with ${host} failed: ${err.message}.`,
      wrongScheme ? 'The server speaks plain HTTP: use http:// in the server URL.'
        : 'Check the certificate (self-signed certificates need NODE_EXTRA_CA_CERTS), or use http:// if the server has no TLS.', { code });
  }
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE') {
    const where = phase === 'stream' ? ` mid-stream after ${framesSoFar} frame(s)` : ' before it answered';
    return makeError('connection-reset', `The server closed the connection${where}.`,
      'Look at the server log around this time: a crash, an OOM kill or a proxy timeout closes connections like this.', { code });
  }
  return makeError('network', `The request to ${host} failed: ${err.message}${code ? ` (${code})` : ''}.`,
    'Check that the server URL is right and the server is up.', code ? { code } : {});
}

function safeHost(url: string): string {
  try { return new URL(url).host; } catch { return url; }
}

/** Pulls the server's message out of an error body: vLLM `{"error":{…}}`, SGLang `{"object":"error",…}`, FastAPI `{"detail":…}`. */
export function serverErrorMessage(bodyText: string): string | undefined {
  try {
    const j = JSON.parse(bodyText) as Record<string, unknown>;
    const e = (typeof j.error === 'object' && j.error !== null ? j.error : j) as Record<string, unknown>;
    if (typeof e.message === 'string') return e.message;
    if (typeof j.error === 'string') return j.error;
    if (typeof j.detail === 'string') return j.detail;
    if (j.detail !== undefined) return JSON.stringify(j.detail);
  } catch { /* not JSON */ }
  const text = bodyText.trim();
  return text ? text.slice(0, 300) : undefined;
}

/** An HTTP error status, with the server's JSON error when it sent one. */
export function httpStatusError(status: number, bodyText: string, model: string, knownModels: string[]): TraceError {
  const serverMessage = serverErrorMessage(bodyText);
  const modelProblem = /model/i.test(serverMessage ?? '') && /(does not exist|not found|unknown|not served|invalid)/i.test(serverMessage ?? '');
  if (status === 404 && (modelProblem || /model/i.test(serverMessage ?? ''))) {
    return makeError('unknown-model', `The server does not serve the model '${model}' (HTTP 404).`,
      knownModels.length ? `Use one of: ${knownModels.join(', ')} — or leave the model empty to use the first one.`
        : 'Leave the model empty to use the first one the server lists at /v1/models.',
      { status, ...(serverMessage ? { serverMessage } : {}) });
  }
  if (modelProblem) {
    return makeError('unknown-model', `The server rejected the model '${model}' (HTTP ${status}).`,
      knownModels.length ? `Use one of: ${knownModels.join(', ')}.` : 'Check the model name against GET /v1/models.',
      { status, ...(serverMessage ? { serverMessage } : {}) });
  }
  const hint = status === 401 || status === 403 ? 'The server wants an API key: set one with "HopLens: Set API Key" (or --api-key-env on the command line).'
    : status === 404 ? `This server has no such route: check the API setting (${requestApis().join(', ')}) and the engine.`
      : status === 400 || status === 422 ? 'The server rejected the request body: check the extra body fields, max tokens and prompt length.'
        : status >= 500 ? 'The server failed: the server log has the traceback (search it for the request id).'
          : 'Check the server URL and the request settings.';
  return makeError('http-status', `The server answered HTTP ${status}${serverMessage ? `: ${serverMessage}` : '.'}`, hint,
    { status, ...(serverMessage ? { serverMessage } : {}) });
}
