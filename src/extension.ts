// Composition root: builds the services, registers providers and commands, and pushes every
// Disposable into context.subscriptions. No feature logic lives here.
import * as vscode from 'vscode';
import { CommandIds } from './commandIds';
import { createLogger } from './logging';
import { registerPlaceholderCommand } from './commands/placeholderCommands';
import { EmptyTreeProvider } from './providers/emptyTree';

export interface HopLensApi {
  readonly version: string;
}

export function activate(context: vscode.ExtensionContext): HopLensApi {
  const log = createLogger();
  context.subscriptions.push(
    log,
    vscode.window.registerTreeDataProvider('hoplens.requests', new EmptyTreeProvider()),
    vscode.window.registerTreeDataProvider('hoplens.callTraces', new EmptyTreeProvider()),
    registerPlaceholderCommand(CommandIds.sendTracedRequest, 'Send Traced Request'),
    registerPlaceholderCommand(CommandIds.showHopTable, 'Show Hop Table'),
    registerPlaceholderCommand(CommandIds.annotateLog, 'Annotate This Log'),
    registerPlaceholderCommand(CommandIds.openCallTraceFolder, 'Open Call Trace Folder'),
  );
  log.info(`HopLens ${context.extension.packageJSON.version} activated`);
  return { version: String(context.extension.packageJSON.version) };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
