// Faint notes on hop lines: at the end, the time since the previous hop of the same request; and
// where VS Code shows no CodeLens (a log over 20 MiB or 300,000 lines with large-file
// optimisations on, see editorLimits.ts), a column before the text that names each line's hop
// (`hop 2`), so hops stand out at a glance and the log text stays aligned. VS Code draws such files
// without injected text (no inlay hints) but keeps decorations; the rest of what a lens says is
// in the hover, with a link to the source, and the `[file:line]` link opens it too. Only the
// visible lines (and a margin) are decorated, so huge logs cost what is on screen.
import * as vscode from 'vscode';
import type { LogSessions } from './logDocuments';
import { hopLabel, hopLabels, hopLabelWidth } from './hopPresentation';
import { ENGINE_IDS } from '../../engines/registry';
import { Disposable } from '../../util/dispose';

const MARGIN_LINES = 200;

export class HopDecorations extends Disposable {
  private readonly delta = this._register(vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('hoplens.hopDelta'), margin: '0 0 0 2em', fontStyle: 'italic' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  }));
  private readonly lensNote = this._register(vscode.window.createTextEditorDecorationType({
    before: { color: new vscode.ThemeColor('hoplens.hopDelta'), margin: '0 1.5em 0 0' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  }));
  private pending: NodeJS.Timeout | undefined;

  constructor(private readonly logs: LogSessions) {
    super();
    this._register(vscode.window.onDidChangeVisibleTextEditors(() => this.schedule()));
    this._register(vscode.window.onDidChangeTextEditorVisibleRanges(() => this.schedule()));
    this._register(logs.onDidChange(() => this.schedule()));
    this._register({ dispose: () => clearTimeout(this.pending) });
    this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.pending);
    this.pending = setTimeout(() => { for (const e of vscode.window.visibleTextEditors) this.update(e); }, 50);
  }

  update(editor: vscode.TextEditor): void {
    const ann = this.logs.get(editor.document);
    const session = ann?.session;
    if (!ann || !session || !session.hasHops) { editor.setDecorations(this.delta, []); editor.setDecorations(this.lensNote, []); return; }
    const tracker = session.tracker;
    const deltas: vscode.DecorationOptions[] = [];
    const notes: vscode.DecorationOptions[] = [];
    const noteWidth = ann.noCodeLens ? hopLabelWidth(session.engine ?? ENGINE_IDS[0]) + 1 : 0;
    const groups = new Map<string, ReturnType<typeof tracker.get>>();
    for (const visible of editor.visibleRanges) {
      const from = Math.max(0, visible.start.line - MARGIN_LINES);
      const to = Math.min(editor.document.lineCount - 1, visible.end.line + MARGIN_LINES);
      for (let line = from; line <= to; line++) {
        // Records pasted onto one line: each hop among them is named.
        const parts = session.hopParts(line);
        if (noteWidth > 0) {
          // Every line gets the column (blank on lines that are no hop), so the text stays aligned.
          const defs = parts.map((p) => session.hop(line, p)).filter((d) => d !== undefined);
          notes.push({ range: new vscode.Range(line, 0, line, 0), renderOptions: { before: { contentText: hopLabels(defs).padEnd(noteWidth, '\u00a0') } } });
        }
        const texts: string[] = [];
        const seen = new Map<string, number>();
        for (const part of parts) {
          const rec = session.record(line, part)!;
          const rid = rec.rid;
          if (rid === null || rec.hop === null) continue;
          if (!groups.has(rid)) groups.set(rid, tracker.get(rid));
          // The request's n-th entry of this hop on this line is the line's n-th record of it.
          const key = `${rid}\n${rec.hop}`;
          const nth = seen.get(key) ?? 0;
          seen.set(key, nth + 1);
          const hop = groups.get(rid)?.hops.filter((h) => h.line === line + 1 && h.hop === rec.hop)[nth];
          if (!hop) continue;
          const text = hop.sincePrevious ? `Δ ${hop.sincePrevious.text} since previous hop` : 'first hop of this request';
          const def = parts.length > 1 ? session.hop(line, part) : undefined;
          texts.push(def ? `${hopLabel(def)}: ${text}` : text);
        }
        if (texts.length === 0) continue;
        const end = editor.document.lineAt(line).range.end;
        deltas.push({ range: new vscode.Range(end, end), renderOptions: { after: { contentText: `  ${texts.join(' · ')}` } } });
      }
    }
    editor.setDecorations(this.delta, deltas);
    editor.setDecorations(this.lensNote, notes);
  }
}
