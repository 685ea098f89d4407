// The byte-level fast path of `annotate --json` run over lines as the CLI runs it: each line the
// fast path declines goes to the string parser, and both write into one byte buffer in order.
import { createParseState, parseLine } from '../../../src/core/logs/parseLine';
import { RequestTracker } from '../../../src/core/logs/requests';
import { RecordJsonWriter } from '../../../src/core/session/recordJson';
import { citedSource } from '../../../src/core/source/locate';
import { ByteOut } from '../../../src/core/logs/byteOut';
import { vllmFastPath } from '../../../src/engines/vllm/fastPath';

export function fastJson(lines: string[], referenceTime: number): { json: string[]; counts: Record<string, number>; handled: number } {
  const st = createParseState({ referenceTime });
  const tr = new RequestTracker();
  const chunks: Buffer[] = [];
  const out = new ByteOut((b) => { chunks.push(Buffer.from(b)); }, 1 << 16);
  const counters = { handled: 0, unmatched: 0 };
  const fast = vllmFastPath(st, tr, out, counters);
  const json = new RecordJsonWriter();
  const buf = Buffer.from(lines.join('\n') + '\n');
  let pos = 0;
  lines.forEach((l, i) => {
    const end = buf.indexOf(10, pos);
    if (!fast(buf, pos, end, i + 1, pos)) {
      const r = parseLine(l, i + 1, pos, st);
      tr.add(r);
      const s = json.line(r, citedSource(r)) + '\n';
      out.room(s.length * 3); out.text(s);
    }
    pos = end + 1;
  });
  out.flush();
  return { json: Buffer.concat(chunks).toString('utf8').replace(/\n$/, '').split('\n'), counts: Object.fromEntries(tr.counts), handled: counters.handled };
}
