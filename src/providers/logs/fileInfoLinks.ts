// vLLM's own `[file.py:123]` becomes a link, even on lines that are not hops.
import * as vscode from 'vscode';
import type { LogDocumentService } from './logDocuments';
import type { SourceService } from './sourceService';
import { isWindowed, lineWindows } from './visibleWindow';
import { Disposable } from '../../util/dispose';

/**
 * Registers the link provider, and for big logs registers it again when the user scrolls far:
 * VS Code has no "links changed" event, and re-registering is what makes it ask again.
 */
export class FileInfoLinks extends Disposable {
  private registration: vscode.Disposable | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly selector: vscode.DocumentSelector, private readonly provider: FileInfoLinkProvider) {
    super();
    this.register();
    this._register(vscode.window.onDidChangeTextEditorVisibleRanges((e) => {
      if (!isWindowed(e.textEditor.document.lineCount)) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.register(), 300);
    }));
    this._register({ dispose: () => { clearTimeout(this.timer); this.registration?.dispose(); } });
  }

  private register(): void {
    this.registration?.dispose();
    this.registration = vscode.languages.registerDocumentLinkProvider(this.selector, this.provider);
  }
}

class FileInfoLink extends vscode.DocumentLink {
  constructor(range: vscode.Range, readonly uri: vscode.Uri, readonly line: number) { super(range); }
}

export class FileInfoLinkProvider implements vscode.DocumentLinkProvider<FileInfoLink> {
  constructor(private readonly logs: LogDocumentService, private readonly sources: SourceService) {}

  provideDocumentLinks(doc: vscode.TextDocument): FileInfoLink[] {
    const ann = this.logs.get(doc);
    if (!ann) return [];
    const links: FileInfoLink[] = [];
    const records = ann.annotator.records;
    const windows = lineWindows(doc, isWindowed(records.length) ? records.length : 0);
    for (const [from, to] of windows) for (let i = from; i <= to && i < records.length; i++) {
      const rec = records[i];
      if (rec.fileinfo === null || rec.lineno === null || rec.engine === 'other') continue;
      const text = doc.lineAt(i).text;
      const needle = `${rec.fileinfo}:${rec.lineno}`;
      const at = text.indexOf(needle);
      if (at < 0) continue;
      links.push(new FileInfoLink(new vscode.Range(i, at, i, at + needle.length), doc.uri, i));
    }
    return links;
  }

  resolveDocumentLink(link: FileInfoLink): FileInfoLink {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === link.uri.toString());
    const rec = doc ? this.logs.get(doc)?.record(link.line) : undefined;
    const src = rec ? this.sources.locate(rec) : null;
    if (src) {
      link.target = src.target;
      link.tooltip = src.local ? `${src.location.path}:${src.location.line}${src.location.verified ? '' : ' (not verified)'}` : 'Open at the pinned commit (no local checkout)';
    }
    return link;
  }
}
