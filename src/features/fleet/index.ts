// The fleet feature: Find Request in the Fleet… (a request's lines from the log stores, one
// read-only document per pod, which the logs feature annotates) and the stores' credentials.
import type * as vscode from 'vscode';
import { FleetCommands } from './fleetCommand';
import type { FeatureServices, Registered } from '../shared/contracts';

export function register(context: vscode.ExtensionContext, services: FeatureServices): Registered<undefined> {
  const commands = new FleetCommands({ settings: services.settings, secrets: context.secrets, log: services.log });
  return { api: undefined, disposables: [commands] };
}
