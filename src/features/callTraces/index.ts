// The call-traces feature: the Call Traces view over VLLM_TRACE_FUNCTION folders and its commands.
import * as vscode from 'vscode';
import { CallTracesViewProvider } from './callTracesView';
import { registerCallTraceCommands, openAt } from './callTraceCommands';
import { featureOf, type FeatureServices, type Registered } from '../shared/contracts';

export function register(context: vscode.ExtensionContext, services: FeatureServices): Registered<CallTracesViewProvider> {
  const { log, settings } = services;
  const provider = new CallTracesViewProvider(context.extensionUri, log, settings);
  const view = vscode.window.createTreeView('hoplens.callTraces', { treeDataProvider: provider, showCollapseAll: true });
  provider.attach(view);
  services.features.callTraces = {
    traceFolders: () => provider.traceFolders(),
    openCode: (file, line) => openAt(settings.current, file, line),
  };
  const releaseOfProcess = (pid: number) => featureOf(services, 'logs').releaseOfProcess?.(pid) ?? null;
  return { api: provider, disposables: [provider, view, registerCallTraceCommands(provider, settings, releaseOfProcess)] };
}
