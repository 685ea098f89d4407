// The sizes at which VS Code stops offering features to extensions, as the pinned VS Code
// (1.139.1) applies them: what a session of a log in the editor can expect. Plain Node.
//
// TextModel (src/vs/editor/common/model/textModel.ts) decides once, when the model is created:
//   LARGE_FILE_SIZE_THRESHOLD = 20 * 1024 * 1024 (characters, line breaks included),
//   LARGE_FILE_LINE_COUNT_THRESHOLD = 300 * 1000 (lines),
//   _isTooLargeForTokenization = largeFileOptimizations && (length > size || lines > count).
// CodeLensContribution._onModelChange returns at once for such a model (microsoft/vscode pull
// request #193055, 2023): no CodeLens at all. Links, hovers, decorations and inlay hints stay on.
// Models over _MODEL_SYNC_LIMIT = 50 * 1024 * 1024 characters are not sent to extensions at all.

export const CODELENS_OFF_ABOVE_CHARS = 20 * 1024 * 1024;
export const CODELENS_OFF_ABOVE_LINES = 300 * 1000;
export const NOT_SYNCED_ABOVE_CHARS = 50 * 1024 * 1024;

/** True when VS Code shows no CodeLens for a model of this size (decided when it was created). */
export function vscodeShowsNoCodeLens(chars: number, lines: number, largeFileOptimizations: boolean): boolean {
  return largeFileOptimizations && (chars > CODELENS_OFF_ABOVE_CHARS || lines > CODELENS_OFF_ABOVE_LINES);
}

/** "21.0 MiB" — VS Code's limits are binary megabytes, so the figures a user compares use them too. */
export function mebibytes(n: number): string {
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}
