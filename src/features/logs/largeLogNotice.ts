// Says in the status bar, while such a log is the active editor, why a big log has no lenses and
// what the user can do about it — never silently:
//  - 20–50 MiB (or over 300,000 lines): VS Code shows no CodeLens (editorLimits.ts); HopLens puts
//    each hop at the start of its line instead. Choices: the streamed view, or large-file
//    optimisations off for this kind of file, then the log reopened with lenses.
//  - over 50 MiB: VS Code gives extensions no text at all; the streamed view is the way.
import * as vscode from 'vscode';
import type { LogDocumentAnnotation, LogSessions } from './logDocuments';
import { isLogFileName } from './logDocuments';
import { mebibytes, NOT_SYNCED_ABOVE_CHARS } from '../../core/session/editorLimits';
import { fileSize } from '../../core/session/logStream';
import { CommandIds } from '../../commandIds';
import { Disposable } from '../../util/dispose';

export type LargeLogState =
  | { kind: 'noCodeLens'; uri: vscode.Uri; chars: number; lines: number }
  | { kind: 'notHandedOver'; uri: vscode.Uri; bytes: number };

export class LargeLogNotice extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('hoplens.largeLog', vscode.StatusBarAlignment.Left, 100));
  private current: LargeLogState | undefined;
  private checking = 0;

  constructor(private readonly logs: LogSessions) {
    super();
    this.item.name = 'HopLens: large log';
    this._register(vscode.window.onDidChangeActiveTextEditor(() => void this.update()));
    this._register(vscode.window.tabGroups.onDidChangeTabs(() => void this.update()));
    this._register(logs.onDidChange((uri) => { if (uri.toString() === this.activeUri()?.toString()) void this.update(); }));
    void this.update();
  }

  /** What the active editor's log is up against, if anything. */
  get state(): LargeLogState | undefined { return this.current; }

  private activeUri(): vscode.Uri | undefined {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    return input instanceof vscode.TabInputText ? input.uri : vscode.window.activeTextEditor?.document.uri;
  }

  private async update(): Promise<void> {
    const run = ++this.checking;
    const uri = this.activeUri();
    let next: LargeLogState | undefined;
    const ann: LogDocumentAnnotation | undefined = uri && this.logs.find(uri);
    if (uri && ann?.noCodeLens) {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      next = { kind: 'noCodeLens', uri, chars: ann.chars, lines: doc?.lineCount ?? ann.session.records.length };
    } else if (uri && !ann && uri.scheme === 'file' && isLogFileName(uri.path)) {
      // A log tab whose text never reached extensions: over VS Code's 50 MiB limit.
      const bytes = await fileSize(uri.fsPath);
      if (bytes > NOT_SYNCED_ABOVE_CHARS && !this.logs.find(uri)) next = { kind: 'notHandedOver', uri, bytes };
    }
    if (run !== this.checking) return; // a newer update is under way
    const same = next && this.current && next.kind === this.current.kind && next.uri.toString() === this.current.uri.toString();
    this.current = next;
    if (!same) this.render(); // unchanged: leave the item be (re-rendering it can swallow a click)
  }

  private render(): void {
    const s = this.current;
    // Offers "HopLens: Lenses for a Large Log…" in the palette while such a log is active.
    void vscode.commands.executeCommand('setContext', 'hoplens.largeLogActive', s !== undefined);
    if (!s) { this.item.hide(); return; }
    const args = encodeURIComponent(JSON.stringify([s.uri.toString()]));
    const streamed = `[Open it in the streamed view](command:${CommandIds.openLargeLog}?${args}) (HopLens: Open Large Server Log…)`;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: [CommandIds.openLargeLog, CommandIds.largeLogOptions] };
    if (s.kind === 'noCodeLens') {
      this.item.text = `$(info) HopLens: ${mebibytes(s.chars)}, no CodeLens`;
      md.appendMarkdown(`**VS Code shows no CodeLens on this log.** It is ${mebibytes(s.chars)} and ${s.lines.toLocaleString('en-US')} lines; `
        + 'with `editor.largeFileOptimizations` on, VS Code turns CodeLens off above 20 MiB or 300,000 lines.\n\n');
      md.appendMarkdown('HopLens writes what the lens would say at the start of each hop line instead; hover the line for the hop and a link to its source. '
        + 'The `[file:line]` links and the Requests view work as usual.\n\n');
      md.appendMarkdown(`- ${streamed}\n`);
      md.appendMarkdown(`- [Show CodeLens here](command:${CommandIds.largeLogOptions}?${args}): `
        + 'turn large-file optimisations off for such files and reopen this one (VS Code then tokenizes, folds and wraps all of it: more memory, slower)\n');
    } else {
      this.item.text = `$(warning) HopLens: ${mebibytes(s.bytes)}, not annotated`;
      md.appendMarkdown(`**HopLens cannot annotate this editor.** VS Code gives extensions no text over 50 MiB, and this log is ${mebibytes(s.bytes)}.\n\n`);
      md.appendMarkdown(`- ${streamed}: the requests and their hops, streamed from disk, with slices around each hop\n`);
    }
    this.item.tooltip = md;
    this.item.command = { title: 'What to do', command: CommandIds.largeLogOptions, arguments: [s.uri] };
    this.item.show();
  }
}
