// The request-path functions the lab's `--mode calltrace` shows by default (lab12_run.py DEFAULT_FILTER).
export const DEFAULT_FILTER: readonly string[] = [
  'create_chat_completion', 'render_chat', 'render_chat_async',
  'tokenize_prompts_async', '_create_chat_completion', 'generate',
  'add_request', '_add_request', 'add_request_async', '_send_input',
  'run_busy_loop', '_process_input_queue', '_handle_client_request',
  'schedule', 'execute_model', 'sample_tokens', 'update_from_output',
  'check_stop', 'process_outputs', 'make_request_output',
  'chat_completion_stream_generator', 'abort', 'finish_requests',
  '_free_request', '_free_blocks',
];

/** "a,b, c" → ["a","b","c"]; empty string → [] (= everything). */
export function parseFilterList(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}
