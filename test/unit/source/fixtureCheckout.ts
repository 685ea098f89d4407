// Builds real engine checkouts for the tests: Python files at the engines' paths with
// logging statements at known lines, committed with the real git binary.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A file whose statements start at the given 1-based lines; other lines are filler code. */
export function pythonFile(placed: Record<number, string>, minLines = 0): string {
  const lines: string[] = ['import logging', '', 'logger = logging.getLogger(__name__)', ''];
  const starts = Object.keys(placed).map(Number).sort((a, b) => a - b);
  for (const start of starts) {
    if (lines.length >= start) throw new Error(`statement for line ${start} would overlap line ${lines.length}`);
    while (lines.length < start - 1) lines.push(lines.length % 7 === 0 ? '' : `    x_${lines.length} = ${lines.length}  # filler`);
    lines.push(...placed[start].split('\n'));
  }
  while (lines.length < minLines) lines.push(`# filler ${lines.length}`);
  return lines.join('\n') + '\n';
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();
}

export class TempDirs {
  private dirs: string[] = [];
  make(prefix = 'hoplens-src-'): string {
    const d = mkdtempSync(join(tmpdir(), prefix));
    this.dirs.push(d);
    return d;
  }
  cleanup(): void {
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
    this.dirs = [];
  }
}

export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

export function initRepo(root: string, files: Record<string, string | Buffer>, message = 'initial'): string {
  writeFiles(root, files);
  git(root, 'init', '-q', '-b', 'main');
  return commitAll(root, message);
}

export function commitAll(root: string, message: string): string {
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', message);
  return git(root, 'rev-parse', 'HEAD');
}

/** Inserts `count` filler lines before 1-based line `before` of a file. */
export function insertLines(root: string, rel: string, before: number, count: number): void {
  const p = join(root, rel);
  const lines = readFileSync(p, 'utf8').split('\n');
  lines.splice(before - 1, 0, ...Array.from({ length: count }, (_, i) => `# inserted ${i}`));
  writeFileSync(p, lines.join('\n'));
}

/** Removes `count` lines starting at 1-based line `from`. */
export function deleteLines(root: string, rel: string, from: number, count: number): void {
  const p = join(root, rel);
  const lines = readFileSync(p, 'utf8').split('\n');
  lines.splice(from - 1, count);
  writeFileSync(p, lines.join('\n'));
}

// ---------------------------------------------------------------------------------------
// vLLM: statements at the lines the spec cites (engine-facts §1, read at cd5035379c4c).

export const VLLM_FILES: Record<string, string> = {
  'pyproject.toml': '[project]\nname = "vllm"\n',
  'vllm/__init__.py': '"""vLLM."""\n',
  'vllm/logger.py': pythonFile({ 40: 'def init_logger(name):\n    return logging.getLogger(name)' }),
  'vllm/entrypoints/serve/utils/request_logger.py': pythonFile({
    22: [
      '        logger.warning(',
      '            "`--enable-log-requests` is set but "',
      '            "the minimum log level is higher than INFO. "',
      '            "No request information will be logged."',
      '        )',
    ].join('\n'),
    28: [
      '        logger.info(',
      '            "`--enable-log-requests` is set but "',
      '            "the minimum log level is higher than DEBUG. "',
      '            "Only limited information will be logged to minimize overhead. "',
      '            "To view more details, set `VLLM_LOGGING_LEVEL=DEBUG`."',
      '        )',
    ].join('\n'),
    53: [
      '        logger.debug(',
      '            "Request %s details: prompt: %r, "',
      '            "prompt_token_ids: %s, "',
      '            "prompt_embeds shape: %s.",',
      '            request_id,',
      '            prompt,',
      '            prompt_token_ids,',
      '            prompt_embeds.shape if prompt_embeds is not None else None,',
      '        )',
    ].join('\n'),
    63: [
      '        logger.info(',
      '            "Received request %s: params: %s, lora_request: %s.",',
      '            request_id,',
      '            params,',
      '            lora_request,',
      '        )',
    ].join('\n'),
    91: '            logger.debug("Generated response %s%s details: output_token_ids: %s", request_id, stream_info, outputs)',
    98: [
      '            logger.info(',
      '                "Generated response %s%s: output: %r, finish_reason: %s",',
      '                request_id,',
      '                stream_info,',
      '                outputs,',
      '                finish_reason,',
      '            )',
    ].join('\n'),
  }),
  // A second request_logger.py that the shrunk path `entrypoints/.../utils/request_logger.py` also fits.
  'vllm/entrypoints/openai/utils/request_logger.py': pythonFile({
    63: '        logger.info("Legacy request log for %s", request_id)',
  }),
  'vllm/v1/engine/async_llm.py': pythonFile({
    439: '            logger.info("Added request %s.", request.request_id)',
    623: '                logger.info("Request %s aborted.", request_id)',
    629: '                logger.info("Request %s failed (engine dead).", request_id)',
    761: '            logger.info("Aborted request(s) %s.", ",".join(request_ids))',
    // The same text in encode() (pooling): the lab's L900 citation.
    900: '                logger.info("Request %s aborted.", request_id)',
  }),
  'vllm/v1/engine/core.py': pythonFile({
    // The methods the demo's traced engine core calls (src/testing/fakeEngine/engineCoreTrace.ts):
    // a call-trace click lands on its `def` line.
    239: '    def add_request(self, request: Request, request_wave: int = 0):',
    344: '    def execute_model_with_error_logging(self, model_fn, scheduler_output):',
    372: '    def step(self) -> tuple[dict[int, EngineCoreOutputs], bool]:',
    880: '    def run_busy_loop(self):',
    899: '    def _process_input_queue(self):',
    924: '    def _process_engine_step(self) -> bool:',
    1429: '                    logger.debug("EngineCore waiting for work.")',
    1441: '                    logger.debug("EngineCore loop active.")',
  }),
  // Another core.py with a logging call at the same line: only the message tells them apart.
  'vllm/distributed/kv_transfer/core.py': pythonFile({
    1429: '        logger.debug("KV transfer connector %s waiting for work.", name)',
  }),
  'vllm/v1/metrics/loggers.py': pythonFile({
    300: '        log_fn = logger.info if not self.idle else logger.debug',
    310: [
      '        log_fn(',
      '            self.log_prefix + ", ".join(log_parts),',
      '            *log_args,',
      '        )',
    ].join('\n'),
  }),
  // Two utils.py with statements at the same line number.
  'vllm/v1/utils.py': pythonFile({
    232: '    logger.info("Waiting for %d local, %d remote core engine proc(s) to start.", n_local, n_remote)',
  }),
  'vllm/model_executor/utils.py': pythonFile({
    232: '    logger.info("Loading weights took %.2f seconds", elapsed)',
  }),
  'vllm/v1/executor/multiproc_executor.py': pythonFile({
    1050: '            logger.exception("WorkerProc hit an exception.")',
  }),
};

// ---------------------------------------------------------------------------------------
// SGLang: the f-strings of engine-facts §2 at the cited lines of the pin 7d893255c359.

export const SGLANG_FILES: Record<string, string> = {
  'python/pyproject.toml': '[project]\nname = "sglang"\n',
  'python/sglang/__init__.py': '',
  'python/sglang/srt/__init__.py': '',
  'python/sglang/srt/utils/request_logger.py': pythonFile({
    108: '            headers_str = _headers_str(headers)',
    109: [
      '            self._log(',
      '                f"Receive: obj={_dataclass_to_string_truncated(obj, max_length, skip_names=skip_names)}{headers_str}"',
      '            )',
    ].join('\n'),
    155: [
      '            self._log(',
      '                f"Receive OpenAI: obj={_dataclass_to_string_truncated(request.model_dump(exclude_none=True), max_length)}{headers_str}"',
      '            )',
    ].join('\n'),
    190: [
      '            self._log(',
      '                f"Finish: obj={_dataclass_to_string_truncated(obj, max_length, skip_names=skip_names)}{headers_str}, "',
      '                f"out={_dataclass_to_string_truncated(out, max_length, skip_names=out_skip_names)}"',
      '            )',
    ].join('\n'),
    236: '    def _log(self, msg: str) -> None:\n        logger.info(msg)',
  }),
  'python/sglang/srt/managers/scheduler_components/metrics_reporter.py': pythonFile({
    600: '    def log_prefill_stats(self, adder, can_run_list, running_bs, pending_tokens):',
    604: [
      '        msg = f"Prefill batch{iter_msg}, #new-seq: {len(can_run_list)}, "',
      '        msg += f"#new-token: {adder.log_input_tokens}, #cached-token: {adder.log_hit_tokens}, "',
      '        msg += f"{token_usage_msg}#running-req: {running_bs}, #queue-req: {len(self.waiting_queue)}, "',
      '        msg += f"#pending-token: {pending_tokens}, "',
      '        if self.disaggregation_mode == DisaggregationMode.PREFILL:',
      '            msg += f"#prealloc-req: {len(self.disagg_prefill_bootstrap_queue.queue)}, "',
      '            msg += f"#inflight-req: {len(self.disagg_prefill_inflight_queue)}, "',
    ].join('\n'),
    640: '        msg += f"{graph_backend} graph: {can_run_cuda_graph}, input throughput (token/s): {self.last_input_throughput:.2f}"',
    641: '        if self.enable_mfu:\n            msg += f", MFU: {mfu:.2f}"',
    653: '        logger.info(msg)',
    800: '    def log_decode_stats(self, running_batch=None):',
    811: [
      '        msg = f"Decode batch{iter_msg}, #running-req: {num_running_reqs}, {token_usage_msg}"',
      '        if self.spec_algorithm.is_none():',
      '            spec_msg = ""',
      '        else:',
      '            msg += f"accept len: {spec_accept_length:.2f}, accept rate: {spec_accept_rate:.2f}, "',
    ].join('\n'),
    900: '        msg += f"{graph_backend} graph: {can_run_cuda_graph}, gen throughput (token/s): {self.last_gen_throughput:.2f}, #queue-req: {len(self.waiting_queue)}"',
    916: '        logger.info(msg)',
  }),
  'python/sglang/srt/managers/schedule_batch.py': pythonFile({
    1800: '    def log_time_stats(self):',
    1803: [
      '        prefix = (',
      '            f"ReqTimeStats(rid={self.rid}{bootstrap_room_str}, input_len={len(self.origin_input_ids)}, "',
      '            f"cached_input_len={self.cached_tokens}, output_len={len(self.output_ids)}, "',
      '            f"attempts={self.attempts}, type={self.time_stats.disagg_mode_str()}): "',
      '        )',
    ].join('\n'),
    1812: '        logger.info(prefix + self.time_stats.format_duration())',
  }),
  'python/sglang/srt/managers/tokenizer_manager.py': pythonFile({
    1619: [
      '                logger.warning(',
      '                    "Streaming backlog: rid=%s, coalescing %d queued chunks into one. "',
      '                    "This may inflate P99 ITL for affected requests.",',
      '                    state.obj.rid,',
      '                    len(pending),',
      '                )',
    ].join('\n'),
    3128: [
      '            logger.info(',
      '                "Abort request for rid=%s not found in rid_to_state; likely already finished/removed.",',
      '                rid,',
      '            )',
    ].join('\n'),
  }),
  'python/sglang/srt/managers/scheduler.py': pythonFile({
    1095: [
      '        logger.info(',
      '            f"max_total_num_tokens={self.max_total_num_tokens}, "',
      '            f"chunked_prefill_size={server_args.chunked_prefill_size}, "',
      '            f"max_prefill_tokens={self.max_prefill_tokens}, "',
      '            f"max_running_requests={self.max_running_requests}, "',
      '            f"context_len={self.model_config.context_len}, "',
      '            f"{\'available_cpu_mem\' if self.device == \'cpu\' else \'available_gpu_mem\'}={avail_mem:.2f} GB"',
      '        )',
    ].join('\n'),
  }),
  // A start-up statement that is no hop (its line here is illustrative, not the pin's).
  'python/sglang/srt/model_executor/model_runner.py': pythonFile({
    880: [
      '        logger.info(',
      '            f"Load weight end. "',
      '            f"type={type(self.model).__name__}, "',
      '            f"dtype={self.dtype}, "',
      '            f"avail mem={after_avail_memory:.2f} GB, "',
      '            f"mem usage={self.weight_load_mem_usage:.2f} GB."',
      '        )',
    ].join('\n'),
  }),
  // Generic statements elsewhere that a naive matcher would pick: short literals only.
  'python/sglang/srt/entrypoints/http_server.py': pythonFile({
    50: '    logger.info(f"Receive: {obj}")',
    60: '    logger.info(f"{name}, {value}")',
    70: '    logger.info("Abort request %s", rid)',
  }),
};

export interface ParsedLine {
  fileinfo: string | null;
  lineno: number | null;
  message: string;
}

// The vLLM prefix of hops.json (common_prefix_regex), also without the opening bracket (≤0.7).
const VLLM_PREFIX = /^(?:\([^()]+? pid=\d+\) )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)? \[?([^\]]*?):(\d+)\] /;
// SGLang's main format and the request logger's (engine-facts §B).
const SGLANG_PREFIX = /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{3})?(?: (?:DP|PP|ATTN_CP|MOE_DP|TP|EP)\d+)*\] /;

/** Just enough of a line parser for these tests (the real one lives in core/logs). */
export function splitLogLine(line: string): ParsedLine | null {
  const text = line.replace(/\r$/, '');
  const v = VLLM_PREFIX.exec(text);
  if (v) return { fileinfo: v[1], lineno: Number(v[2]), message: text.slice(v[0].length) };
  const s = SGLANG_PREFIX.exec(text);
  if (s) return { fileinfo: null, lineno: null, message: text.slice(s[0].length) };
  return null;
}
