// Several records on one line. A paste that lost its line breaks (an issue body written outside a
// code block, a chat client, a log viewer's "copy" of a selection) joins the records with a
// space: `… Aborted request cmpl-1. INFO 06-19 11:25:01 async_llm_engine.py:167] Aborted request
// cmpl-2. INFO 06-19 …`. The line is the first record's; its message ends where the next
// record's header begins. Only a header counts as a record boundary (level, date and time, and
// vLLM's `file.py:N]` or SGLang's bracketed date; or a level and a date cut short where the text
// ends), so a message that mentions a level word or a date elsewhere keeps its text.

// vLLM: an optional process prefix, the level, `MM-DD HH:MM:SS`, the fileinfo with or without
// its opening bracket. SGLang: `[YYYY-MM-DD HH:MM:SS(.mmm)( rank tags)] `. uvicorn under a
// process prefix: `(APIServer pid=N) INFO:     `.
const NEXT_HEADER = new RegExp(
  ' (?:\\([A-Za-z_][^()]{0,80}? pid=\\d+(?:, ip=[\\d.]+)?\\) )?'
  + '(?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d(?:[.,]\\d{3})? \\[?[\\w./-]+\\.py:\\d+\\] '
  + '|\\[\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d(?:\\.\\d{3})?(?: [A-Z_]+\\d+)*\\] '
  + '|INFO: +\\S+:\\d+ - "'
  // The last header of a paste cut short (`… Aborted request cmpl-2. INFO 06-19 11:`,
  // `… ERROR 07-07 18:10:2...`): a level and the start of the date, then the end of the text.
  + '|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \\d\\d?(?:[-: .]\\d*)*(?:\\.\\.\\.|…)?$)',
);

/** Where a second record's header starts inside `message` (the space before it), or -1. */
export function nextRecordAt(message: string): number {
  // Most messages are ruled out cheaply: a whole header holds `] ` or `INFO:`, a cut one ends in a digit or `...`.
  const last = message.charCodeAt(message.length - 1);
  if (message.indexOf('] ', 1) < 0 && message.indexOf('INFO:', 1) < 0 && !(last >= 48 && last <= 58) && last !== 46 && last !== 0x2026) return -1;
  const m = NEXT_HEADER.exec(message);
  return m && m.index > 0 ? m.index : -1;
}

/** The first record's message of a line that may hold several (the message itself when it holds one). */
export function firstRecord(message: string): string {
  const at = nextRecordAt(message);
  return at < 0 ? message : message.slice(0, at);
}
