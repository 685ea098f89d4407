// Every command id in one place; package.json contributes the same ids.
export const CommandIds = {
  sendTracedRequest: 'hoplens.sendTracedRequest',
  repeatTracedRequest: 'hoplens.repeatTracedRequest',
  setApiKey: 'hoplens.setApiKey',
  startTraceReceiver: 'hoplens.startTraceReceiver',
  stopTraceReceiver: 'hoplens.stopTraceReceiver',
  openOtlpFile: 'hoplens.openOtlpFile',
  showEngineTiming: 'hoplens.showEngineTiming',
  showRequestTimeline: 'hoplens.showRequestTimeline',
  showHopTable: 'hoplens.showHopTable',
  annotateLog: 'hoplens.annotateLog',
  exportHopTable: 'hoplens.exportHopTable',
  createLoggingConfig: 'hoplens.createLoggingConfig',
  openLargeLog: 'hoplens.openLargeLog',
  clonePinnedCheckout: 'hoplens.clonePinnedCheckout',
  filterRequests: 'hoplens.filterRequests',
  clearRequestFilter: 'hoplens.clearRequestFilter',
  openCallTraceFolder: 'hoplens.openCallTraceFolder',
  filterCalls: 'hoplens.callTraces.filter',
  findFunction: 'hoplens.callTraces.find',
  exportPerfetto: 'hoplens.callTraces.exportPerfetto',
  exportHopSequence: 'hoplens.callTraces.exportHopSequence',
  refreshCallTraces: 'hoplens.callTraces.refresh',
  openCallSite: 'hoplens.callTraces.openCallSite',
  openCallDefinition: 'hoplens.callTraces.openDefinition',
  loadMoreCalls: 'hoplens.callTraces.loadMore',
  // Internal: invoked by lenses, links and tree items, hidden from the palette.
  openSource: 'hoplens.openSource',
  revealLogLine: 'hoplens.revealLogLine',
  largeLogOptions: 'hoplens.largeLogOptions',
} as const;

export type CommandId = (typeof CommandIds)[keyof typeof CommandIds];
