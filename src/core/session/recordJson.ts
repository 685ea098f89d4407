// `hoplens annotate --json`: one `{"kind":"line",…}` object per record, built by hand (this
// runs a million times per big log). Consecutive lines mostly share their stamp, process,
// fileinfo and source: one-entry memos of each, owned by the writer (one per run).
import type { LogRecord, TimeResolution } from '../logs/model';
import { formatTime, jsonInt, jsonString } from '../logs/jsonText';
import type { SourceLocation } from '../source/types';

export class RecordJsonWriter {
  private timeKey = NaN;
  private timeRes: TimeResolution | null = null;
  private timeUtc = false;
  private timeJson = 'null';
  private process: string | null = null;
  private processJson = 'null';
  private fileinfo: string | null = null;
  private fileinfoJson = 'null';
  private source: SourceLocation | null = null;
  private sourceJsonText = 'null';

  private sourceJson(source: SourceLocation | null): string {
    if (source === null) return 'null';
    const m = this.source;
    if (m === source || (m !== null && source.path === m.path && source.line === m.line && source.verified === m.verified && source.drift === m.drift
      && source.note === m.note && source.movedFrom === m.movedFrom && source.similar === m.similar && source.changed === m.changed
      && source.candidates === m.candidates)) {
      return this.sourceJsonText;
    }
    this.source = source;
    // Why a location is not verified, when the resolver knows: moved from another file, a similar
    // statement of another code path, a statement changed since, or several candidates.
    const more = `${source.movedFrom ? `,"movedFrom":${jsonString(source.movedFrom)}` : ''}${source.similar ? ',"similar":true' : ''}`
      + `${source.changed ? ',"changed":true' : ''}`
      + `${source.candidates ? `,"candidates":[${source.candidates.map((c) => `{"path":${jsonString(c.path)},"line":${jsonInt(c.line)}}`).join(',')}]` : ''}`
      + `${source.note ? `,"note":${jsonString(source.note)}` : ''}`;
    return (this.sourceJsonText = `{"path":${jsonString(source.path)},"line":${jsonInt(source.line)},`
      + `"verified":${source.verified},"drift":${jsonInt(source.drift)}${more}}`);
  }

  line(rec: LogRecord, source: SourceLocation | null): string {
    let time = 'null';
    if (rec.time !== null && rec.timeResolution !== null) {
      const utc = rec.timeIsUtc === true;
      if (rec.time !== this.timeKey || rec.timeResolution !== this.timeRes || utc !== this.timeUtc) {
        this.timeKey = rec.time; this.timeRes = rec.timeResolution; this.timeUtc = utc;
        this.timeJson = `"${formatTime(rec.time, rec.timeResolution, utc)}"`;
      }
      time = this.timeJson;
    }
    if (rec.process !== this.process) { this.process = rec.process; this.processJson = jsonString(rec.process); }
    if (rec.fileinfo !== this.fileinfo) { this.fileinfo = rec.fileinfo; this.fileinfoJson = jsonString(rec.fileinfo); }
    const src = this.sourceJson(source);
    return `{"kind":"line","line":${rec.line}${rec.part ? `,"part":${rec.part}` : ''}`
      + `,"engine":"${rec.engine}","format":"${rec.format}","process":${this.processJson}`
      + `,"pid":${jsonInt(rec.pid)},"role":${rec.role === null ? 'null' : `"${rec.role}"`}`
      + `,"level":${rec.level === null ? 'null' : `"${rec.level}"`},"time":${time}`
      + `,"timeResolution":${rec.timeResolution ? `"${rec.timeResolution}"` : 'null'}${rec.timeUnknown ? `,"timeUnknown":${jsonString(rec.timeUnknown)}` : ''}`
      + `,"fileinfo":${this.fileinfoJson}`
      + `,"lineno":${jsonInt(rec.lineno)},"hop":${rec.hop === null ? 'null' : `"${rec.hop}"`},"rid":${jsonString(rec.rid)}`
      + `${rec.rids ? `,"rids":${JSON.stringify(rec.rids)}` : ''}${rec.continuation ? ',"continuation":true' : ''}`
      + `${rec.repeated ? `,"repeated":${jsonInt(rec.repeated)}` : ''}${rec.truncated ? ',"truncated":true' : ''}`
      + `${rec.prefix !== undefined ? `,"prefix":${jsonString(rec.prefix)}` : ''}`
      + `${rec.logger !== undefined ? `,"logger":${jsonString(rec.logger)}` : ''}`
      + `${rec.func !== undefined ? `,"func":${jsonString(rec.func)}` : ''},"source":${src}}`;
  }
}
