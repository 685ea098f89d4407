// Composition root: builds the services, registers providers and commands, and pushes every
// Disposable into context.subscriptions. No feature logic lives here.
import * as vscode from 'vscode';
import { CommandIds } from './commandIds';
import { createLogger } from './logging';
import { registerPlaceholderCommand } from './commands/placeholderCommands';
import { EmptyTreeProvider } from './providers/emptyTree';
import { createLogFeature, type LogFeature } from './providers/logs/logFeature';
import { TracedRequestCommands } from './commands/sendTracedRequestCommand';

export interface HopLensApi {
  readonly version: string;
  /** For tests and other extensions: the log feature's services. */
  readonly logs: LogFeature;
  readonly tracedRequests: TracedRequestCommands;
}

export function activate(context: vscode.ExtensionContext): HopLensApi {
  const log = createLogger();
  const logs = createLogFeature(context, log);
  const tracedRequests = new TracedRequestCommands({ context, logs, log });
  context.subscriptions.push(
    log,
    logs.disposable,
    vscode.window.registerTreeDataProvider('hoplens.callTraces', new EmptyTreeProvider()),
    tracedRequests.register(),
    registerPlaceholderCommand(CommandIds.openCallTraceFolder, 'Open Call Trace Folder'),
  );
  log.info(`HopLens ${context.extension.packageJSON.version} activated`);
  return { version: String(context.extension.packageJSON.version), logs, tracedRequests };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
