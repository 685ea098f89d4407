// Webview pages with a strict CSP: no network, scripts only with this page's nonce, styles
// and scripts only from media/. Every byte of log or server text goes through escapeHtml.
// Only VS Code's types are imported, so the page builders run (and are tested) in plain Node.
import type * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

export interface WebviewPage {
  title: string;
  bodyHtml: string;
  /** File names under media/ */
  scripts?: string[];
  styles?: string[];
  /** JSON handed to the page's scripts as a data attribute (escaped). */
  data?: unknown;
}

/** extension/media[/name], as vscode.Uri.joinPath would make it. */
function mediaUri(extensionUri: vscode.Uri, name?: string): vscode.Uri {
  return extensionUri.with({ path: posix.join(extensionUri.path, 'media', ...(name ? [name] : [])) });
}

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return { enableScripts: true, localResourceRoots: [mediaUri(extensionUri)], retainContextWhenHidden: false };
}

export function renderWebview(
  webview: Pick<vscode.Webview, 'cspSource' | 'asWebviewUri'>, extensionUri: vscode.Uri, page: WebviewPage, nonce = randomBytes(16).toString('base64'),
): string {
  const media = (name: string) => webview.asWebviewUri(mediaUri(extensionUri, name)).toString();
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `font-src ${webview.cspSource}`,
  ].join('; ');
  const styles = (page.styles ?? []).map((s) => `<link rel="stylesheet" href="${escapeHtml(media(s))}">`).join('\n');
  const scripts = (page.scripts ?? []).map((s) => `<script nonce="${nonce}" src="${escapeHtml(media(s))}"></script>`).join('\n');
  const data = page.data === undefined ? '' : ` data-hoplens="${escapeHtml(JSON.stringify(page.data))}"`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(page.title)}</title>
${styles}
</head>
<body${data}>
${page.bodyHtml}
${scripts}
</body>
</html>`;
}
