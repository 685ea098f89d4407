// One webview panel per traced request: the report, and the buttons' actions.
import * as vscode from 'vscode';
import { toJson, toMarkdown, toCurlCommand, type TracedRequest } from '../../core/request/index';
import { renderWebview, webviewOptions } from '../shared/webviewHtml';
import { reportBodyHtml, type ReportLogLine } from './reportHtml';

export interface ReportActions {
  sendAgain(): void;
  openLog(line?: number): void;
  /** The request's timeline across the open logs (HopLens: Show Request Timeline). */
  showTimeline(): void;
  redactExports(): boolean;
  usedApiKey: boolean;
}

export class RequestReportPanel {
  static readonly viewType = 'hoplens.requestReport';
  readonly panel: vscode.WebviewPanel;

  private engineHtml: string | null = null;

  constructor(private readonly extensionUri: vscode.Uri, readonly result: TracedRequest, private readonly logLines: ReportLogLine[] | null,
    private readonly logNote: string, actions: ReportActions) {
    this.panel = vscode.window.createWebviewPanel(
      RequestReportPanel.viewType, `Traced ${result.record.requestId}`, vscode.ViewColumn.Beside, webviewOptions(extensionUri));
    this.panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'hoplens.svg');
    this.render();
    this.panel.webview.onDidReceiveMessage(async (msg: { type: string; line?: number }) => {
      const { record, metrics } = result;
      switch (msg.type) {
        case 'copyMarkdown':
          await vscode.env.clipboard.writeText(toMarkdown(record, metrics, { redactText: actions.redactExports() }));
          void vscode.window.showInformationMessage('HopLens: report copied as Markdown.');
          break;
        case 'copyJson':
          await vscode.env.clipboard.writeText(JSON.stringify(toJson(record, metrics), null, 2));
          void vscode.window.showInformationMessage('HopLens: report copied as JSON.');
          break;
        case 'copyCurl':
          await vscode.env.clipboard.writeText(toCurlCommand(record, { usedApiKey: actions.usedApiKey }));
          void vscode.window.showInformationMessage('HopLens: curl command copied (the API key, if any, is left as $HOPLENS_API_KEY).');
          break;
        case 'openLog': actions.openLog(); break;
        case 'revealLine': actions.openLog(msg.line); break;
        case 'sendAgain': actions.sendAgain(); break;
        case 'timeline': actions.showTimeline(); break;
      }
    });
  }

  /** The engine's own breakdown arrived (an llm_request span): show it beside the socket times. */
  setEngineHtml(html: string): void {
    this.engineHtml = html;
    this.render();
  }

  get hasEngineTiming(): boolean { return this.engineHtml !== null; }

  private render(): void {
    this.panel.webview.html = renderWebview(this.panel.webview, this.extensionUri, {
      title: `Traced request ${this.result.record.requestId}`,
      bodyHtml: reportBodyHtml(this.result, this.logLines, this.logNote, this.engineHtml),
      scripts: ['report.js'],
      styles: ['report.css'],
    });
  }
}
