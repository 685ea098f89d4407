// The record model every log-line parser produces (src/engines/record.ts, where the engines'
// grammars fill it): one record per physical input line; a line HopLens does not recognise is
// kept as kind "other", never dropped.
export type { Engine } from '../../engines/types';
export type { LogRecord, TimeResolution } from '../../engines/record';
