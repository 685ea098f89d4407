// `HopLens: Clone Pinned Checkout`: fetch exactly the pinned commit of an engine with git.
import { promises as fsp } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Engine } from '../logs/model';
import { inspectCheckout, type CheckoutInfo } from './checkout';
import { runGit, type GitResult } from './git';
import { PINS, publicCloneUrl } from './pins';

export type CloneFailure = 'git-missing' | 'target-not-empty' | 'network' | 'sha-not-found' | 'not-a-checkout' | 'cancelled' | 'git-error';

export class CloneError extends Error {
  constructor(readonly kind: CloneFailure, message: string) {
    super(message);
  }
}

export interface CloneOptions {
  /** Remote URL or path; default the engine's public repository. */
  url?: string;
  /** Commit to check out; default the hop table's pin. */
  sha?: string;
  onProgress?: (stage: string) => void;
  signal?: AbortSignal;
  /** Per git command (a big fetch needs long); default 30 minutes. */
  timeoutMs?: number;
}

function describe(r: GitResult): string {
  const lines = r.stderr.split('\n').map((l) => l.trim()).filter((l) => l && !/^(?:hint|remote: (?:Enumerating|Counting|Compressing|Total))/.test(l));
  return lines.slice(-3).join(' ') || 'git failed without a message';
}

/** What git prints when the remote cannot be reached (as opposed to a refused or unknown ref). */
const NETWORK_FAILURE = new RegExp([
  'could not resolve host', 'unable to access', 'failed to connect', 'connection (?:refused|timed out)', 'network is unreachable',
  'could not read from remote', 'does not appear to be a git repository', 'repository .* not found',
].join('|'), 'i');

function isNetwork(r: GitResult): boolean {
  return NETWORK_FAILURE.test(r.stderr);
}

/**
 * Clones `sha` of the engine into `targetDir` (which must not exist or be empty), then
 * checks that the result is a checkout of that engine. Returns the inspected checkout.
 */
export async function clonePinnedCheckout(engine: Engine, targetDir: string, opts: CloneOptions = {}): Promise<CheckoutInfo> {
  const url = opts.url ?? publicCloneUrl(engine);
  const sha = (opts.sha ?? PINS[engine].sha).trim();
  const target = resolve(targetDir);
  const step = (s: string) => opts.onProgress?.(s);
  const git = async (args: string[], cwd = target) => {
    if (opts.signal?.aborted) throw new CloneError('cancelled', 'clone cancelled');
    const r = await runGit(cwd, args, { signal: opts.signal, timeoutMs: opts.timeoutMs ?? 30 * 60_000 });
    if (opts.signal?.aborted) throw new CloneError('cancelled', 'clone cancelled');
    if (r.failure === 'git-missing') throw new CloneError('git-missing', 'git was not found on PATH: install git, then run the command again');
    return r;
  };
  if (!/^[0-9a-fA-F]{7,40}$/.test(sha)) throw new CloneError('sha-not-found', `"${sha}" is not a commit id (7–40 hex digits)`);

  let created = false;
  try {
    const entries = await fsp.readdir(target);
    if (entries.length > 0) throw new CloneError('target-not-empty', `${target} is not empty: pick an empty or new folder`);
  } catch (e) {
    if (e instanceof CloneError) throw e;
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new CloneError('target-not-empty', `${target} cannot be used: ${(e as Error).message}`);
    await fsp.mkdir(dirname(target), { recursive: true });
    created = true;
  }
  await fsp.mkdir(target, { recursive: true });
  try {
    step('init');
    const init = await git(['init', '-q', target], dirname(target));
    if (!init.ok) throw new CloneError('git-error', `git init failed: ${describe(init)}`);
    await git(['remote', 'add', 'origin', url]);
    step(`fetching ${sha.slice(0, 12)} from ${url}`);
    // Ask for just the one commit; servers that refuse unadvertised commits get a full
    // (blob-less where supported) fetch instead.
    let fetched = sha.length === 40 ? await git(['fetch', '-q', '--depth', '1', 'origin', sha]) : null;
    if (!fetched || !fetched.ok) {
      if (fetched && isNetwork(fetched)) throw new CloneError('network', `cannot reach ${url}: ${describe(fetched)}`);
      step('fetching the whole history (the server does not serve single commits)');
      fetched = await git(['fetch', '-q', '--filter=blob:none', 'origin', '+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*']);
      if (!fetched.ok) throw new CloneError(isNetwork(fetched) ? 'network' : 'git-error', `fetching ${url} failed: ${describe(fetched)}`);
    }
    step(`checking out ${sha.slice(0, 12)}`);
    const co = await git(['-c', 'advice.detachedHead=false', 'checkout', '-q', '--detach', sha]);
    if (!co.ok) throw new CloneError('sha-not-found', `commit ${sha} is not in ${url}: ${describe(co)}`);
    const info = await inspectCheckout(target, engine);
    if ('error' in info) throw new CloneError('not-a-checkout', `cloned ${url} at ${sha.slice(0, 12)}, but ${info.error}`);
    step('done');
    return info;
  } catch (e) {
    // Leave nothing half-made behind: the folder was empty or ours.
    if (created) await fsp.rm(target, { recursive: true, force: true }).catch(() => undefined);
    else {
      for (const n of await fsp.readdir(target).catch(() => [] as string[])) {
        await fsp.rm(`${target}/${n}`, { recursive: true, force: true }).catch(() => undefined);
      }
    }
    if (e instanceof CloneError) throw e;
    if ((e as Error).name === 'AbortError') throw new CloneError('cancelled', 'clone cancelled');
    throw new CloneError('git-error', (e as Error).message);
  }
}
