// SGLang's line shapes: configure_logger's header (dated, 2024's time-only, HopLens's logging
// config), its router's, the request logger's JSON events and the forms a paste or a log platform
// leaves of them. Data only: the grammar that reads them is ./grammar.ts.

// What SGLang prints after its time (configure_logger's prefix): rank tags, upper-case letters and
// a number (TP0, DP0 TP1, PP0 TP3, TP2 EP2, ATTN_CP0, MOE_DP0, …; a PP fork joined them with `, `),
// and the encoder's process names (` encode_server`, ` encode_dp_worker[N]`). A word without a number
// (`INFO`, `WARNING`, `MainThread`, `UTC`) is another program's layout, never a rank tag.
export const SGLANG_TAGS = String.raw`((?:,? (?:[A-Z][A-Z_]*\d+|encode_[a-z_]+)(?:\[\d+\])?)*)`;
export const SGLANG_MAIN = new RegExp(String.raw`^\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{3}))?${SGLANG_TAGS}\] ?`);
// SGLang's router before tracing (env_logger, 2024 to mid 2025) and its Python launcher: `[Router (Rust)] date - LEVEL - …`.
export const SGLANG_ROUTER = new RegExp(String.raw`^\[Router \((Rust|Python)\)\] (\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?`
  + String.raw` - (TRACE|DEBUG|INFO|WARN|WARNING|ERROR|CRITICAL) - `);
// Its dated stamp on a line read alone (the profile's stampShape): `[date time` and milliseconds when
// SGLANG_LOG_MS is set, then the rank tags or the bracket's end.
export const SGLANG_STAMP = /^\[(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2}) (?<hour>\d{2}):(?<minute>\d{2}):(?<second>\d{2})(?:\.(?<fraction>\d{3}))?[\] ]/;
export const SGLANG_2024 = new RegExp(String.raw`^\[(\d\d):(\d\d):(\d\d)${SGLANG_TAGS}\] ?`);
export const SGLANG_HOPLENS = /^\[(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)[.,](\d{3,6}) pid=(\d+) (DEBUG|INFO|WARNING|ERROR|CRITICAL) (.+?):(\d+)\] ?/;
// SGLang's header whose `[` a paste lost (the selection began at the date): date, rank tags, `] `.
export const SGLANG_LOST_BRACKET = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{3})?(?: [A-Z][A-Z_]*\d+)*\] /;
// `file.py:N - ` right after a bracketed date: a layout that copied SGLang's `[%(asctime)s]` and adds
// %(filename)s:%(lineno)d (slime's configure_logger, `[date] train.py:123 - msg`). SGLang's own header
// prints no file; the custom-layout reader decides whose line it is.
export const FILE_AFTER_DATE = /^[\w.-]+\.py:\d+ - /;
// `[date][file.py:N][LEVEL]: msg` and its kin (`[date] [LEVEL] [module:N]`): a custom layout's bracketed
// fields after the date, not SGLang's header (whose rank tags stand inside the date's bracket).
export const BRACKETED_FIELDS_AFTER_DATE = new RegExp(String.raw`^(?:\[(?:[\w./\\-]+\.py(?::\w+)?:\d+(?::\w+)?|(?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*(?::\d+)?`
  + String.raw`|DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\] ?){1,3}:? `);
// SGLang's request logger with --log-requests-format json: one event object per line.
export const SGLANG_JSON_EVENTS: Record<string, string> = { 'request.received': 'S2', 'request.received.openai': 'S1', 'request.finished': 'S6' };
// SGLang's rank tags and `] ` with the date before them gone: a log platform took `[date` for its
// own stamp (`2026-09-27T00:15:24.123Z 5ylyr21v-rhkt6 INFO TP0] Prefill batch, …`).
export const RANKS_ONLY = /(?:^|\s)((?:[A-Z][A-Z_]*\d+ )*[A-Z][A-Z_]*\d+)\] /;
// SGLang's request logger, in releases whose log_utils gave its handler the formatter `%(message)s`
// (0.5.x, sgl-project/sglang#25887), prints its three messages with no stamp at all:
// `Finish: obj=GenerateReqInput(rid='…', …), out={…}` alone, or behind an aggregator's columns.
export const BARE_REQUEST = /(?:^|[\s|>`*])(?:Receive(?: OpenAI)?|Finish): obj=(?:\w*ReqInput\(|\{['}])/;
