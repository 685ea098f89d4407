// What the trace receiver's texts say about pointing an engine at it (the port-in-use error,
// `hoplens otlp --help`, the traced-request report before spans arrive) comes from the profiles
// of the engines that export spans (`otlp`): today vLLM's --otlp-traces-endpoint; a registered
// engine that exports spans is named beside it, with its own flag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startOtlpReceiver } from '../../../src/core/otlp/receiver';
import { runOtlp } from '../../../src/cli/otlp';
import { bufferIO } from '../../../src/cli/io';
import { reportBodyHtml } from '../../../src/features/send/reportHtml';
import type { TracedRequest } from '../../../src/core/request/index';
import { hostileTracedRequest } from '../webview/hostileEngine';
import { TOYLLM_PROFILE } from './toyllm/profile';
import { whileRegistered } from './toyllmTesting';

const EXPORTING = {
  ...TOYLLM_PROFILE,
  otlp: { endpointFlag: '--traces-to', launchLine: (u: string) => `TOY_SPANS=1 toyllm serve --traces-to ${u}`, launchWith: (u: string) => `--traces-to ${u}` },
};

/** The port-in-use error's advice, from a receiver started on a port that is taken. */
async function portInUseAdvice(): Promise<string> {
  const blocker = net.createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
  const port = (blocker.address() as net.AddressInfo).port;
  try {
    const e = await startOtlpReceiver({ port, onSpans: () => {} }).then(async (rx) => { await rx.close(); return null; }, (err: Error) => err);
    assert.ok(e !== null, 'the port was free');
    return e.message.slice(e.message.indexOf('Stop it')).replace(String(port + 1), 'NEXT');
  } finally {
    blocker.close();
  }
}

async function usage(): Promise<string> {
  const io = bufferIO();
  assert.equal(await runOtlp(['--help'], io), 0);
  const text = io.stdout;
  return text.slice(text.indexOf('per finished request'), text.indexOf('--out FILE'));
}

/** The report's engine-timing section before any span arrived. */
const engineSection = (r: TracedRequest) => /<h2>Engine timing \(OpenTelemetry\)<\/h2>(.*?)<\/section>/s.exec(reportBodyHtml(r, null, '', null))?.[1];

test('the receiver\'s texts name the flag of each engine that exports spans: vLLM\'s, then a registered one\'s', async () => {
  const r = await hostileTracedRequest('stream');
  assert.equal(await portInUseAdvice(), 'Stop it, or pick another port, e.g. 127.0.0.1:NEXT, and point vLLM\'s --otlp-traces-endpoint there.');
  assert.equal(await usage(), 'per finished request (vLLM\'s llm_request span). Start vLLM with\n'
    + '             OTEL_SERVICE_NAME=vllm OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf \\\n'
    + '             vllm serve <model> --otlp-traces-endpoint http://127.0.0.1:4318/v1/traces\n           ');
  assert.equal(engineSection(r), '<p class="muted">Start <em>HopLens: Start Trace Receiver</em> and launch vLLM with <code>--otlp-traces-endpoint</code> '
    + 'to see the engine\'s own breakdown (queue, prefill, decode) here, next to these socket times.</p>');

  await whileRegistered(EXPORTING, async () => {
    assert.match(await portInUseAdvice(), /and point vLLM's --otlp-traces-endpoint or ToyLLM's --traces-to there\.$/);
    assert.match(await usage(), /\n {11}or start ToyLLM with\n {13}TOY_SPANS=1 \\\n {13}toyllm serve --traces-to http:\/\/127\.0\.0\.1:4318\/v1\/traces\n/);
    assert.match(engineSection(r) ?? '', /launch vLLM with <code>--otlp-traces-endpoint<\/code> or ToyLLM with <code>--traces-to<\/code> to see/);
  })();
  // A registered engine that exports no spans is not named.
  await whileRegistered(TOYLLM_PROFILE, async () => assert.doesNotMatch(await portInUseAdvice(), /ToyLLM/))();
});
