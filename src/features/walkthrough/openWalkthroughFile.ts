// The walkthrough's "open this file at this line" button: a workspace file named by a relative
// path (the demo's logs/vllm.log), opened beside the walkthrough with the line revealed, so the
// walkthrough stays visible. Quick Open cannot do it: the walkthrough page takes the keyboard
// focus back as its button is clicked, which closes the Quick Open box. The arguments come from
// a command link (anyone can write one), so they only ever name an existing file inside a
// workspace folder — also once symbolic links are followed (a link in the folder, or a linked
// folder on the way, leading outside it opens nothing); anything else is said to the user, and
// nothing else is done with them.
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import type * as vscode from 'vscode';
import { forWorkbench } from '../../core/text/workbench';

/** A relative path split into its segments, and a 1-based line. */
export interface WalkthroughTarget { readonly segments: readonly string[]; readonly line: number }

const MAX_PATH_CHARS = 1024;
const MAX_LINE = 100_000_000;

/** The arguments as a target inside the workspace, or why they are not one (a sentence for the user). */
export function walkthroughTarget(path: unknown, line: unknown): WalkthroughTarget | { problem: string } {
  const shown = forWorkbench(typeof path === 'string' ? path : JSON.stringify(path) ?? String(path), 120);
  const notRelative = { problem: `HopLens: the walkthrough opens a file of the workspace by its relative path (like logs/vllm.log), not ${shown}.` };
  if (typeof path !== 'string' || path.length === 0 || path.length > MAX_PATH_CHARS) return notRelative;
  // Control characters and backslashes (a Windows separator could hide `..\`) are refused.
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return notRelative;
  // Absolute paths, drive letters and URIs (file:, command:, https:…) are not relative paths.
  if (path.startsWith('/') || /^[a-z][\w+.-]*:/i.test(path)) return notRelative;
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return notRelative;
  if (line === undefined) return { segments, line: 1 };
  if (typeof line !== 'number' || !Number.isInteger(line) || line < 1 || line > MAX_LINE) {
    const given = forWorkbench(JSON.stringify(line) ?? String(line), 40);
    return { problem: `HopLens: the walkthrough's line for ${shown} is ${given}; a line is a whole number from 1.` };
  }
  return { segments, line };
}

/** What the command needs of VS Code (in-memory in the unit tests). */
export interface WalkthroughWorkspace {
  /** The roots of the workspace folders, in order. */
  folders(): readonly vscode.Uri[];
  /** `root` joined with the segments. */
  join(root: vscode.Uri, segments: readonly string[]): vscode.Uri;
  /** Whether `uri` is an existing file (not a folder). */
  isFile(uri: vscode.Uri): Promise<boolean>;
  /** Whether `uri`, its symbolic links followed, is still inside the folder `root` (false when that cannot be told). */
  inside(root: vscode.Uri, uri: vscode.Uri): Promise<boolean>;
  /** Shows the file beside the walkthrough, the 1-based line selected and revealed. */
  show(uri: vscode.Uri, line: number): Promise<void>;
  /** Tells the user why nothing opened. */
  warn(message: string): void;
}

/**
 * Whether the file at `path`, every symbolic link on its way followed, lies inside the folder
 * `root` (itself followed too: a workspace opened through a link is fine). False when either
 * cannot be resolved.
 */
export async function resolvesInside(root: string, path: string, resolve: (p: string) => Promise<string> = realpath): Promise<boolean> {
  try {
    const [realRoot, realPath] = await Promise.all([resolve(root), resolve(path)]);
    const rel = relative(realRoot, realPath);
    return rel !== '' && !isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`);
  } catch {
    return false;
  }
}

/**
 * Opens the workspace file the arguments name at their line, in the first workspace folder that
 * has it; resolves to what was opened, or undefined (the user was told why).
 */
export async function openWalkthroughFile(ws: WalkthroughWorkspace, path: unknown, line: unknown): Promise<vscode.Uri | undefined> {
  const target = walkthroughTarget(path, line);
  if ('problem' in target) { ws.warn(target.problem); return undefined; }
  const name = forWorkbench(target.segments.join('/'), 120);
  const folders = ws.folders();
  if (folders.length === 0) {
    ws.warn(`HopLens: open a folder first: the walkthrough opens ${name} of the workspace (npm run demo makes one with the demo's logs).`);
    return undefined;
  }
  for (const root of folders) {
    const uri = ws.join(root, target.segments);
    if (!(await ws.isFile(uri))) continue;
    if (!(await ws.inside(root, uri))) {
      ws.warn(`HopLens: the walkthrough opens files of the workspace only; ${name} leads outside the folder `
        + `${forWorkbench(root.path.split('/').pop() ?? root.path, 80)} through a symbolic link, so it was not opened.`);
      return undefined;
    }
    await ws.show(uri, target.line);
    return uri;
  }
  ws.warn(`HopLens: this workspace has no file ${name}. The walkthrough's buttons use the demo's files (npm run demo); `
    + 'open a server log of your own to follow the same steps.');
  return undefined;
}
