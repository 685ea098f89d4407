// A multi-tenant VictoriaLogs (the real server, on 127.0.0.1): a request's lines shipped to tenant
// 7:1 (AccountID/ProjectID headers, as a log shipper sends them) are found only when HopLens asks
// in that tenant: the client's credentials, the editor's hoplens.fleet.victoriaLogsTenant, the
// CLI's HOPLENS_VICTORIALOGS_TENANT. The default tenant 0:0 holds another pod's lines. A store
// entry's own tenant (`{ "url", "tenant": "7:3" }` in hoplens.fleet.logs; the CLI's --tenant after
// its URL) wins over those: tenant 7:3 holds a third pod's lines, found only there.
import '../fakes/register';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configValues, messages, secretStorageOver, shownWith } from '../fakes/vscode';
import { fleetBinariesOrSkip, startVictoriaLogs, type VictoriaLogsServer } from '../../harness/fleetServers';
import { VictoriaLogsClient } from '../../../src/core/fleet/victoriaLogs';
import { parseStoreUrl } from '../../../src/core/fleet/model';
import { parseVictoriaLogsTenant } from '../../../src/core/fleet/http';
import { FleetCommands } from '../../../src/features/fleet/fleetCommand';
import { HopLensSettings, type HopLensConfig } from '../../../src/config';
import { runCli } from '../cli/cliProcess';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const NOW_MS = Date.now();
const WINDOW = { startMs: NOW_MS - 6 * 3600_000, endMs: NOW_MS + 60_000 };
const LINE = (pod: string) => `INFO 12-02 10:00:00 [async_llm.py:439] Added request chatcmpl-req-tenant-5-1a2b3c4d. (${pod})`;

/** Ships rows to one tenant of VictoriaLogs, as a log shipper does (JSON lines, the tenant in headers). */
async function ship(vl: VictoriaLogsServer, tenant: { AccountID?: string; ProjectID?: string }, pod: string): Promise<void> {
  const row = { _msg: LINE(pod), _time: new Date(NOW_MS - 3600_000).toISOString(), namespace: 'serving', pod, container: 'vllm' };
  const res = await fetch(`${vl.baseUrl}/insert/jsonline?_stream_fields=namespace,pod,container&_time_field=_time&_msg_field=_msg`, {
    method: 'POST', headers: { 'Content-Type': 'application/stream+json', ...tenant }, body: `${JSON.stringify(row)}\n`,
  });
  assert.ok(res.status === 200 || res.status === 204, `ingest: HTTP ${res.status}`);
  await fetch(`${vl.baseUrl}/internal/force_flush`);
}

test('a VictoriaLogs tenant is ACCOUNT or ACCOUNT:PROJECT, numbers; anything else is named', () => {
  assert.deepEqual(parseVictoriaLogsTenant(' 7:1 ', 's'), { accountId: '7', projectId: '1' });
  assert.deepEqual(parseVictoriaLogsTenant('42', 's'), { accountId: '42' });
  assert.equal(parseVictoriaLogsTenant('', 's'), undefined);
  assert.throws(() => parseVictoriaLogsTenant('team-a', 'hoplens.fleet.victoriaLogsTenant'),
    /hoplens\.fleet\.victoriaLogsTenant "team-a" is not a VictoriaLogs tenant: ACCOUNT or ACCOUNT:PROJECT/);
  assert.throws(() => parseVictoriaLogsTenant('4294967296', 's'), /not a VictoriaLogs tenant/);
});

describe('a multi-tenant VictoriaLogs (real server)', { concurrency: false }, () => {
  let vl: VictoriaLogsServer | undefined;
  before(async () => {
    const bins = fleetBinariesOrSkip({ skip: (why) => process.stderr.write(`${why}\n`) });
    if (!bins) return;
    vl = await startVictoriaLogs(bins.victorialogs);
    await ship(vl, { AccountID: '7', ProjectID: '1' }, 'decode-7');
    await ship(vl, {}, 'decode-0');
    await ship(vl, { AccountID: '7', ProjectID: '3' }, 'decode-73');
  });
  after(async () => { await vl?.stop(); });

  test('the client asks in the tenant it is given, and only there', async (t) => {
    if (!vl) return t.skip('no fleet tools');
    const endpoint = parseStoreUrl(`victorialogs+${vl.baseUrl}`);
    const inTenant = await new VictoriaLogsClient(endpoint, { credentials: { accountId: '7', projectId: '1' } }).requestLines(['req-tenant-5'], WINDOW);
    assert.deepEqual(inTenant.streams.map((s) => [s.labels.pod, s.entries.map((e) => e.text)]), [['decode-7', [LINE('decode-7')]]]);
    const byDefault = await new VictoriaLogsClient(endpoint).requestLines(['req-tenant-5'], WINDOW);
    assert.deepEqual(byDefault.streams.map((s) => s.labels.pod), ['decode-0']);
  });

  test('Find Request in the Fleet… with hoplens.fleet.victoriaLogsTenant; a tenant written wrong is an error before any call', async (t) => {
    if (!vl) return t.skip('no fleet tools');
    let fleet: HopLensConfig['fleet'] = { traces: [], logs: [`victorialogs+${vl.baseUrl}`], selector: '', window: '24h', victoriaLogsTenant: '7:1' };
    const commands = new FleetCommands({
      settings: { get current() { return { fleet } as HopLensConfig; } },
      secrets: { get: async () => undefined, store: async () => undefined, delete: async () => undefined },
      log: quiet, timeoutMs: 3000,
    });
    try {
      messages.length = 0; shownWith.length = 0;
      const opened = await commands.find('chatcmpl-req-tenant-5');
      assert.deepEqual(opened.map((u) => u.path.split('/').pop()), ['decode-7-vllm.log']);
      assert.equal(shownWith[0].doc.getText(), `${LINE('decode-7')}\n`);
      messages.length = 0;
      fleet = { ...fleet, victoriaLogsTenant: 'team-a' };
      assert.deepEqual(await commands.find('chatcmpl-req-tenant-5'), []);
      assert.deepEqual(messages.map((m) => m.kind), ['error']);
      assert.match(messages[0].text, /hoplens\.fleet\.victoriaLogsTenant "team-a" is not a VictoriaLogs tenant/);
    } finally { commands.dispose(); }
  });

  test('annotate --logs with HOPLENS_VICTORIALOGS_TENANT; a bad value is exit 2', async (t) => {
    if (!vl) return t.skip('no fleet tools');
    const env = (tenant: string) => ({ ...process.env, HOPLENS_VICTORIALOGS_TENANT: tenant });
    const args = ['annotate', '--logs', `victorialogs+${vl.baseUrl}`, '--rid', 'req-tenant-5', '--json'];
    const r = await runCli(args, { env: env('7:1') });
    assert.equal(r.code, 0, r.stderr);
    const streams = r.stdout.toString('utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((o) => o.kind === 'stream').map((o) => (o.labels as Record<string, string>).pod);
    assert.deepEqual(streams, ['decode-7']);
    const bad = await runCli(args, { env: env('7:x') });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /HOPLENS_VICTORIALOGS_TENANT "7:x" is not a VictoriaLogs tenant/);
  });

  test('a store entry\'s own tenant ({ "url", "tenant": "7:3" }) over hoplens.fleet.victoriaLogsTenant: that tenant\'s lines only', async (t) => {
    if (!vl) return t.skip('no fleet tools');
    const keys = ['hoplens.fleet.logs', 'hoplens.fleet.victoriaLogsTenant'];
    let settings: HopLensSettings | undefined;
    let commands: FleetCommands | undefined;
    const open = async (logs: unknown[]): Promise<string[]> => {
      commands?.dispose(); settings?.dispose();
      configValues.set('hoplens.fleet.logs', logs);
      settings = new HopLensSettings();
      commands = new FleetCommands({ settings, secrets: secretStorageOver(new Map()), log: quiet, timeoutMs: 3000 });
      messages.length = 0; shownWith.length = 0;
      return (await commands.find('chatcmpl-req-tenant-5')).map((u) => u.path.split('/').pop()!);
    };
    try {
      configValues.set('hoplens.fleet.victoriaLogsTenant', '7:1');
      assert.deepEqual(await open([{ url: `victorialogs+${vl.baseUrl}/`, tenant: '7:3' }]), ['decode-73-vllm.log']);
      assert.equal(shownWith[0].doc.getText(), `${LINE('decode-73')}\n`);
      assert.deepEqual(await open([`victorialogs+${vl.baseUrl}`]), ['decode-7-vllm.log'], 'a plain entry: the setting\'s tenant');
      assert.deepEqual(await open([{ url: `victorialogs+${vl.baseUrl}`, tenant: '7' }]), [], 'tenant 7:0 holds none of them');
      assert.match(messages.at(-1)!.text, /^HopLens: nothing found for chatcmpl-req-tenant-5 over /);
    } finally {
      commands?.dispose(); settings?.dispose();
      for (const k of keys) configValues.delete(k);
    }
  });

  test('annotate --logs victorialogs+… --tenant 7:3: that tenant\'s lines, over HOPLENS_VICTORIALOGS_TENANT', async (t) => {
    if (!vl) return t.skip('no fleet tools');
    const pods = async (tenant: string[]): Promise<string[]> => {
      const r = await runCli(['annotate', '--logs', `victorialogs+${vl!.baseUrl}`, ...tenant, '--rid', 'req-tenant-5', '--json'],
        { env: { ...process.env, HOPLENS_VICTORIALOGS_TENANT: '7:1' } });
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.toString('utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((o) => o.kind === 'stream').map((o) => (o.labels as Record<string, string>).pod);
    };
    assert.deepEqual(await pods(['--tenant', '7:3']), ['decode-73']);
    assert.deepEqual(await pods([]), ['decode-7']);
  });
});
