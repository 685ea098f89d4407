// What a printed `[fileinfo:lineno]` (vLLM) or `%(pathname)s` (our SGLang logging config) says
// about the file, read from the text alone: the path inside the engine's repository when the
// printed form names it unambiguously. A checkout resolves the rest (core/source).

/** Path of a vLLM fileinfo relative to the repo, when it is unambiguous. */
export function vllmPathFromFileinfo(fileinfo: string): string | null {
  const norm = fileinfo.includes('\\') ? fileinfo.replace(/\\/g, '/') : fileinfo;
  const i = norm.lastIndexOf('/vllm/');
  if (i >= 0) return norm.slice(i + 1); // full path from our logging config
  if (norm.startsWith('vllm/')) return norm;
  if (norm.includes('...') || !norm.includes('/')) return null; // shrunk or basename: needs a checkout
  return `vllm/${norm}`;
}

/** Path of an SGLang pathname (our logging config) relative to the repo. */
export function sglangPathFromFileinfo(fileinfo: string): string | null {
  const norm = fileinfo.replace(/\\/g, '/');
  const i = norm.lastIndexOf('/sglang/');
  return i >= 0 ? `python${norm.slice(i)}` : null;
}
