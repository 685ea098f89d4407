// The extension's logger: a LogOutputChannel, never console.
import * as vscode from 'vscode';

export type Logger = Pick<vscode.LogOutputChannel, 'trace' | 'debug' | 'info' | 'warn' | 'error'>;

export function createLogger(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('HopLens', { log: true });
}
