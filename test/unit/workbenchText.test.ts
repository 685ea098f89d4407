// Every notification, progress title and status bar text in src puts data through
// forWorkbench(): a notification turns `[x](command:…)` inside its text into a link that runs
// the command, so one forgotten interpolation of a log id or a server message is enough. This
// reads the sources and names each `${…}` in those texts that is neither wrapped nor one of
// HopLens's own values (a count, the engine name, a number it formatted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const repo = join(__dirname, '..', '..', '..');

/** Values HopLens makes itself: counts, sizes, formatted numbers, its own words. */
const OWN_VALUES = new Set([
  'engine', 'n', 'i', 'note', 'frames', 'phase', 'hits.length', 'res.events', 'res.spanCount', 'res.badLineCount', 'res.badLines[0].line',
  'lines', "session.engine ?? 'not a vLLM or SGLang log'", 'large.linesRead', 'large.tracker.requestCount',
  'log.tracker.requestCount', 'this.receiver.port', 'st.spans', 'st.requests', 'st.rejected', "st.spans === 1 ? '' : 's'", 'result.envVar',
  'p.filesDone', 'p.filesTotal', 'record.status ?? \'—\'', 'st.rejectedSpans', 'st.refused', 'this.receiver.retryAfterSeconds',
  'res.rejectedSpanCount', 'firstBad.line', 'result.problems.length', 'all.length', 'windowText(window)', 'this.lineLimit', 'done',
  'releaseSpecWords()',
]);
const FORMATTED_NUMBER = /^\(?[\w.[\]() /*+-]+\)?\.toFixed\(\d\)$/;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : name.endsWith('.ts') ? [p] : [];
  });
}

/** The template literal starting at `start` (a backtick): its interpolated expressions, nested ones included. */
function interpolations(src: string, start: number): { exprs: string[]; end: number } {
  const exprs: string[] = [];
  let i = start + 1;
  while (i < src.length && src[i] !== '`') {
    if (src[i] === '\\') { i += 2; continue; }
    if (src[i] === '$' && src[i + 1] === '{') {
      let depth = 1;
      let j = i + 2;
      let expr = '';
      while (depth > 0) {
        const c = src[j];
        if (c === '`') {
          // A template inside the expression: its own interpolations are checked too.
          const inner = interpolations(src, j);
          exprs.push(...inner.exprs);
          expr += '``';
          j = inner.end + 1;
          continue;
        }
        if (c === "'" || c === '"') {
          const close = src.indexOf(c, j + 1);
          expr += src.slice(j, close + 1);
          j = close + 1;
          continue;
        }
        if (c === '{') depth++;
        if (c === '}') depth--;
        if (depth > 0) expr += c;
        j++;
      }
      exprs.push(expr.trim());
      i = j;
      continue;
    }
    i++;
  }
  return { exprs, end: i };
}

function isSafe(expr: string, src = '', depth = 0): boolean {
  if (expr.startsWith('forWorkbench(')) return true;
  if (OWN_VALUES.has(expr) || FORMATTED_NUMBER.test(expr)) return true;
  // A condition choosing between texts checked on their own (`x ? `…` : ''`, `a || b ? `…` : ''`).
  if (/^[\w.[\]]+(?: \|\| [\w.[\]]+)* \? (?:``|'[^']*') : (?:``|'[^']*')$/.test(expr)) return true;
  // A text built just before (`const counts = `…`;`): safe when what it interpolates is.
  return /^\w+$/.test(expr) && depth < 3 && definitionIsSafe(src, expr, depth + 1);
}

function definitionIsSafe(src: string, name: string, depth: number): boolean {
  const at = src.search(new RegExp(`const ${name} = `));
  if (at < 0) return false;
  const end = src.indexOf(';\n', at);
  const body = src.slice(at, end);
  let checked = false;
  for (let i = body.indexOf('`'); i >= 0 && i < body.length;) {
    const t = interpolations(body, i);
    if (!t.exprs.every((e) => isSafe(e, src, depth))) return false;
    checked = true;
    i = body.indexOf('`', t.end + 1);
  }
  return checked;
}

const SURFACES = [
  /show(?:Information|Warning|Error)Message\(\s*`/g, // notifications
  /withProgress\(\{[^}]*?title: `/g, // progress notifications
  /progress\.report\(\{[^}]*message: `/g,
  /status\.(?:text|tooltip) = `/g,
];

test('every `${…}` in notification, progress and status bar text is forWorkbench(…) or HopLens\'s own value', () => {
  const offenders: string[] = [];
  let checked = 0;
  for (const file of tsFiles(join(repo, 'src')).filter((f) => !/[\\/]src[\\/](core|cli|testing|hops|workers)[\\/]/.test(f))) {
    const src = readFileSync(file, 'utf8');
    for (const surface of SURFACES) {
      for (const m of src.matchAll(surface)) {
        const tick = m.index! + m[0].length - 1;
        for (const expr of interpolations(src, tick).exprs) {
          checked++;
          if (!isSafe(expr, src)) offenders.push(`${relative(repo, file)}:${src.slice(0, tick).split('\n').length}: \${${expr}}`);
        }
      }
    }
  }
  assert.ok(checked > 40, `only ${checked} interpolations found: the scan no longer sees the calls`);
  assert.deepEqual(offenders, [], `wrap data in forWorkbench() (src/core/text/workbench.ts), or add HopLens's own value to OWN_VALUES:\n${offenders.join('\n')}`);
});

test('the scan sees a forgotten interpolation', () => {
  const src = 'void vscode.window.showInformationMessage(`HopLens: hop table of ${rid} copied (${n} rows${x ? `, ${forWorkbench(y)} and ${z}` : \'\'}).`);';
  const { exprs } = interpolations(src, src.indexOf('`'));
  assert.deepEqual(exprs.filter((e) => !isSafe(e)), ['rid', 'z']);
  // Through a text built just before: safe only when its own parts are.
  const built = 'const note = `${n} of ${forWorkbench(path)}`;\nconst leak = `${n} of ${path}`;\nshowInformationMessage(`${note} ${leak}`);\n';
  const shown = interpolations(built, built.indexOf('`', built.indexOf('showInformationMessage'))).exprs;
  assert.deepEqual(shown.filter((e) => !isSafe(e, built)), ['leak']);
});
