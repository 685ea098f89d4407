// The send feature: Send Traced Request (a socket-timed streaming request), its repeats, the
// API key, and the report page of a traced request.
import type * as vscode from 'vscode';
import { TracedRequestCommands } from './sendTracedRequestCommand';
import { featureOf, type FeatureServices, type Registered } from '../shared/contracts';

export function register(context: vscode.ExtensionContext, services: FeatureServices): Registered<TracedRequestCommands> {
  const { log, settings } = services;
  const commands = new TracedRequestCommands({ context, logs: featureOf(services, 'logs'), engineTiming: featureOf(services, 'engineTiming'), settings, log });
  services.features.traced = commands;
  return { api: commands, disposables: [commands.register()] };
}
