// A request's hop table as Markdown (observed line │ file:line │ process │ Δ), with prompts and
// generated text redacted unless the user opts in: request logging prints both.
import type { LogRecord } from '../logs/model';
import type { RequestGroup } from '../logs/requests';
import type { SourceLocation } from '../source/types';
import { markdownCell, markdownCode } from '../text/markdown';

const REDACTIONS: [RegExp, string][] = [
  // vLLM request logger: prompt (DEBUG details) and outputs.
  [/(prompt: ).*?(, prompt_token_ids: )/, '$1‹redacted›$2'],
  [/(prompt_token_ids: )\[.*?\](, prompt_embeds)/, '$1‹redacted›$2'],
  [/(output: ).*?(, finish_reason: )/, '$1‹redacted›$2'],
  [/(prompt: ).*?(, params: )/, '$1‹redacted›$2'],
  // SGLang request logger: text / input_ids / messages / out.
  [/(text=)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")/g, '$1‹redacted›'],
  [/(input_ids=)\[[^\]]*\]/g, '$1‹redacted›'],
  [/('messages': )\[.*?\](, '\w+':)/, '$1‹redacted›$2'],
  [/('content': )('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")/g, '$1‹redacted›'],
  [/(out=\{'text': )('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")/, '$1‹redacted›'],
  [/('output_ids': )\[[^\]]*\]/g, '$1‹redacted›'],
];

/** Removes prompts and generated text from a log message, keeping ids, counts and timings. */
export function redactMessage(message: string): string {
  let out = message;
  for (const [re, rep] of REDACTIONS) out = out.replace(re, rep);
  return out;
}

export interface HopExportRow {
  record: LogRecord;
  source: SourceLocation | null;
}

// Log text, ids and paths go into code spans: shown as printed, never a link, HTML or a new column.
const cell = (s: string, maxChars = 160): string => markdownCell(s, { maxChars });

export function requestHopTableMarkdown(group: RequestGroup, rows: HopExportRow[], opts: { includeText: boolean; logName: string }): string {
  const out: string[] = [];
  out.push(`### Request ${markdownCode(group.rid)} (${group.engine}) in ${markdownCode(opts.logName)}`);
  out.push('');
  out.push('| observed line | file:line | process | Δ |');
  out.push('|---|---|---|---|');
  const deltas = new Map(group.hops.map((h) => [h.line, h]));
  for (const { record, source } of rows) {
    const msg = opts.includeText ? record.message : redactMessage(record.message);
    const where = source ? `${source.path}:${source.line}${source.drift ? ` (drift ${source.drift > 0 ? '+' : ''}${source.drift})` : ''}` : '—';
    const h = deltas.get(record.line);
    const delta = h?.sincePrevious ? `+${h.sincePrevious.text}` : 'first';
    out.push(`| L${record.line}: ${cell(msg)} | ${source ? cell(where) : '—'} | ${cell(record.process ?? record.role ?? '')} | ${delta} |`);
  }
  if (group.missing.length) {
    out.push('');
    out.push('Hops this request did not print:');
    out.push('');
    for (const m of group.missing) out.push(`- ${m.hop}: ${m.reason}`);
  }
  if (!opts.includeText) {
    out.push('');
    out.push('_Prompts and outputs redacted (setting `hoplens.export.includePromptsAndOutputs`)._');
  }
  return out.join('\n') + '\n';
}
