// The workspace a test opens in VS Code: the constructed engine logs, small engine checkouts
// whose logging statements sit at the cited lines, and settings pointing HopLens at them.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './tools';
import { makeTempDir } from './tempDirs';

export interface FixtureWorkspace {
  root: string;
  vllmCheckout: string;
  sglangCheckout: string;
  vllmLog: string;
  sglangLog: string;
  vllmDebugLog: string;
  /** Removes the folder (also done when the process exits). */
  dispose(): void;
}

export function prepareWorkspace(extraSettings: Record<string, unknown> = {}): FixtureWorkspace {
  const dir = makeTempDir('hoplens-ws-');
  const root = dir.path;
  const fixtures = join(REPO_ROOT, 'test', 'fixtures');
  cpSync(join(fixtures, 'workspace'), root, { recursive: true });
  const ws: FixtureWorkspace = { ...workspaceAt(root), dispose: dir.remove };
  cpSync(join(fixtures, 'source', 'vllm-checkout'), ws.vllmCheckout, { recursive: true });
  cpSync(join(fixtures, 'source', 'sglang-checkout'), ws.sglangCheckout, { recursive: true });
  mkdirSync(join(root, 'logs'), { recursive: true });
  cpSync(join(fixtures, 'logs', 'vllm_info_chat_and_abort.log'), ws.vllmLog);
  cpSync(join(fixtures, 'logs', 'sglang_tp2_request.log'), ws.sglangLog);
  cpSync(join(fixtures, 'logs', 'vllm_debug_tp2_multiline.log'), ws.vllmDebugLog);
  mkdirSync(join(root, '.vscode'), { recursive: true });
  writeFileSync(join(root, '.vscode', 'settings.json'), JSON.stringify({
    'hoplens.checkouts.vllm': ws.vllmCheckout,
    'hoplens.checkouts.sglang': ws.sglangCheckout,
    ...extraSettings,
  }, null, 2));
  return ws;
}

/** The layout of a workspace prepareWorkspace() made (e.g. the demo's); dispose() leaves it be. */
export function workspaceAt(root: string): FixtureWorkspace {
  return {
    root,
    vllmCheckout: join(root, 'checkouts', 'vllm'),
    sglangCheckout: join(root, 'checkouts', 'sglang'),
    vllmLog: join(root, 'logs', 'vllm.log'),
    sglangLog: join(root, 'logs', 'sgl.log'),
    vllmDebugLog: join(root, 'logs', 'vllm-debug-tp2.log'),
    dispose: () => undefined,
  };
}
