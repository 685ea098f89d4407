// Every command id in one place; package.json contributes the same ids.
export const CommandIds = {
  sendTracedRequest: 'hoplens.sendTracedRequest',
  showHopTable: 'hoplens.showHopTable',
  annotateLog: 'hoplens.annotateLog',
  openCallTraceFolder: 'hoplens.openCallTraceFolder',
} as const;

export type CommandId = (typeof CommandIds)[keyof typeof CommandIds];
