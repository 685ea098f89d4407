// Every command id in one place; package.json contributes the same ids.
export const CommandIds = {
  sendTracedRequest: 'hoplens.sendTracedRequest',
  repeatTracedRequest: 'hoplens.repeatTracedRequest',
  setApiKey: 'hoplens.setApiKey',
  showHopTable: 'hoplens.showHopTable',
  annotateLog: 'hoplens.annotateLog',
  exportHopTable: 'hoplens.exportHopTable',
  createLoggingConfig: 'hoplens.createLoggingConfig',
  openLargeLog: 'hoplens.openLargeLog',
  clonePinnedCheckout: 'hoplens.clonePinnedCheckout',
  filterRequests: 'hoplens.filterRequests',
  clearRequestFilter: 'hoplens.clearRequestFilter',
  openCallTraceFolder: 'hoplens.openCallTraceFolder',
  // Internal: invoked by lenses, links and tree items, hidden from the palette.
  openSource: 'hoplens.openSource',
  revealLogLine: 'hoplens.revealLogLine',
} as const;

export type CommandId = (typeof CommandIds)[keyof typeof CommandIds];
