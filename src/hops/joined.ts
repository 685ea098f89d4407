// Several records on one line. A paste that lost its line breaks (an issue body written outside a
// code block, a chat client, a log viewer's "copy" of a selection) joins the records with a
// space: `… Aborted request cmpl-1. INFO 06-19 11:25:01 async_llm_engine.py:167] Aborted request
// cmpl-2. INFO 06-19 …`. The line is the first record's; its message ends where the next
// record's header begins. Only a whole header counts as a record boundary (level, date and time,
// and vLLM's `file.py:N]` or SGLang's bracketed date), so a message that mentions a level word
// or a date keeps its text.

// vLLM: an optional process prefix, the level, `MM-DD HH:MM:SS`, the fileinfo with or without
// its opening bracket. SGLang: `[YYYY-MM-DD HH:MM:SS(.mmm)( rank tags)] `. uvicorn under a
// process prefix: `(APIServer pid=N) INFO:     `.
const NEXT_HEADER = new RegExp(
  ' (?:\\([A-Za-z_][^()]{0,80}? pid=\\d+(?:, ip=[\\d.]+)?\\) )?'
  + '(?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d(?:[.,]\\d{3})? \\[?[\\w./-]+\\.py:\\d+\\] '
  + '|\\[\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d(?:\\.\\d{3})?(?: [A-Z_]+\\d+)*\\] '
  + '|INFO: +\\S+:\\d+ - ")',
);

/** Where a second record's header starts inside `message` (the space before it), or -1. */
export function nextRecordAt(message: string): number {
  // Every header holds a `:` followed by two digits (the time); most messages are ruled out by
  // the absence of `] ` or `INFO:` after their first character.
  if (message.indexOf('] ', 1) < 0 && message.indexOf('INFO:', 1) < 0) return -1;
  const m = NEXT_HEADER.exec(message);
  return m && m.index > 0 ? m.index : -1;
}

/** The first record's message of a line that may hold several (the message itself when it holds one). */
export function firstRecord(message: string): string {
  const at = nextRecordAt(message);
  return at < 0 ? message : message.slice(0, at);
}
