// The fleet feature: Find Request in the Fleet… (a request's lines from the log stores, one
// read-only document per pod, which the logs feature annotates), the timeline of what it found
// (one lane per pod, the spans) and the stores' credentials.
import * as vscode from 'vscode';
import { FleetCommands } from './fleetCommand';
import { featureOf, type FeatureServices, type Registered } from '../shared/contracts';

export function register(context: vscode.ExtensionContext, services: FeatureServices): Registered<undefined> {
  const commands = new FleetCommands({
    settings: services.settings, secrets: context.secrets, log: services.log,
    showTimeline: (req) => featureOf(services, 'timeline').showRequest(req),
  });
  // A fleet document is one request's lines: the Requests view lists those that are no hop beside the hops.
  featureOf(services, 'logs').requests.setPlainLinesLookup?.((uri) => commands.documents.plainLines(uri));
  // The walkthrough's fleet step shows only once a store is configured (a `when` clause cannot
  // test an array setting for emptiness, so the feature says it as a context key).
  const sayConfigured = () => {
    const { fleet: { traces, logs }, traces: { queryUrl } } = services.settings.current;
    void vscode.commands.executeCommand('setContext', 'hoplens.fleetConfigured', traces.length + logs.length > 0 || queryUrl.trim() !== '');
  };
  sayConfigured();
  return { api: undefined, disposables: [commands, services.settings.onDidChange(sayConfigured)] };
}
