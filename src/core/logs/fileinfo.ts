// What a printed `[fileinfo:lineno]` (vLLM) or `%(pathname)s` (our SGLang logging config) says
// about the file, read from the text alone: each engine's profile knows its own printed forms
// (pathFromFileinfo); vLLM's stays here for the byte fast path. A checkout resolves the rest (core/source).
export { vllmPathFromFileinfo } from '../../engines/vllm/source';
