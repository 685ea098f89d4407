// Text from data (log lines, file names, server and OTLP text) printed by the command line in
// its readable (non-JSON) output. A terminal acts on control characters: ESC starts sequences
// that recolour, retitle or rewrite the screen, CR and LF forge lines, BEL rings. Every text
// that came from outside HopLens goes through here before it reaches a terminal, so it shows
// as visible escapes (`\x1b`, `\n`) instead of acting. JSON output needs none of this:
// JSON.stringify already escapes every control character.

// C0 controls except TAB, DEL, the C1 controls (U+0080–U+009F: CSI U+009B acts like ESC [ on
// many terminals), and the bidi overrides/isolates that reorder what the eye reads.
const UNSAFE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

function visible(ch: string): string {
  switch (ch) {
    case '\n': return '\\n';
    case '\r': return '\\r';
    case '\x1b': return '\\x1b';
    default: {
      const code = ch.charCodeAt(0);
      return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
    }
  }
}

/** The text with every control character made visible; text without one is returned as is. */
export function forTerminal(text: string): string {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(text) ? text.replace(UNSAFE, visible) : text;
}
