// Where a store's credentials are kept and how they are read back: a bearer token, or a user and
// password, per store (`kind+baseUrl`), in a secret storage the caller passes as a lookup (the
// editor's SecretStorage; the core imports no vscode). Find Request in the Fleet… and Show Engine
// Timing's lookup (hoplens.traces.queryUrl) read the same secrets, so HopLens: Set Fleet Store
// Credentials… is where both are set. A tenant is not a secret: it comes from the settings.
import type { FleetCredentials } from './http';
import { parseStoreUrl, type StoreEndpoint, type TraceStoreKind } from './model';

/** Reads one secret (VS Code's SecretStorage.get). */
export type SecretLookup = (key: string) => PromiseLike<string | undefined>;

/** The secret a store's bearer token is kept under. */
export function fleetTokenKey(e: StoreEndpoint): string {
  return `hoplens.fleet.token:${e.kind}+${e.baseUrl}`;
}

/** The secret a store's user and password are kept under (JSON `{"username","password"}`). */
export function fleetLoginKey(e: StoreEndpoint): string {
  return `hoplens.fleet.login:${e.kind}+${e.baseUrl}`;
}

/** A stored user and password, or undefined when the secret is missing or not ours. */
export function parseLogin(text: string | undefined): { username: string; password: string } | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as { username?: unknown; password?: unknown };
    if (typeof v.username !== 'string' || v.username === '') return undefined;
    return { username: v.username, password: typeof v.password === 'string' ? v.password : '' };
  } catch {
    return undefined;
  }
}

/** The token, else the user and password, kept for this store; undefined when neither is. */
export async function storedCredentials(get: SecretLookup, e: StoreEndpoint): Promise<FleetCredentials | undefined> {
  const token = (await get(fleetTokenKey(e))) || undefined;
  if (token) return { bearerToken: token };
  return parseLogin(await get(fleetLoginKey(e)));
}

/**
 * hoplens.traces.queryUrl as the store it is: the address as a store URL normalises it (so the
 * secrets match those Set Fleet Store Credentials… keeps for `kind+address`), or undefined when it
 * is not an http(s) address.
 */
export function queryUrlEndpoint(queryUrl: string, kind: TraceStoreKind): StoreEndpoint | undefined {
  const url = queryUrl.trim();
  if (!/^https?:\/\//i.test(url)) return undefined;
  try { return parseStoreUrl(`${kind}+${url}`); } catch { return undefined; }
}

/**
 * The credentials kept for hoplens.traces.queryUrl: which kind of store the address is may not be
 * known yet (the check that tells Tempo from Jaeger needs them itself), so those kept under either
 * kind, the `known` kind's first.
 */
export async function queryUrlCredentials(get: SecretLookup, queryUrl: string, known?: TraceStoreKind): Promise<FleetCredentials | undefined> {
  const kinds: TraceStoreKind[] = known === 'jaeger' ? ['jaeger', 'tempo'] : ['tempo', 'jaeger'];
  for (const kind of kinds) {
    const e = queryUrlEndpoint(queryUrl, kind);
    const c = e ? await storedCredentials(get, e) : undefined;
    if (c) return c;
  }
  return undefined;
}

/**
 * A Tempo's tenant (X-Scope-OrgID) for this address: the store entry's own (`{ "url", "tenant" }`
 * naming `tempo+address`), else the shared one (hoplens.fleet.tenant); undefined when neither.
 */
export function tempoTenantOf(
  address: StoreEndpoint, entries: ReadonlyArray<{ url: string; tenant: string }>, shared: string | undefined,
): string | undefined {
  for (const t of entries) {
    let e: StoreEndpoint;
    try { e = parseStoreUrl(t.url); } catch { continue; }
    if (e.kind === 'tempo' && e.baseUrl === address.baseUrl && t.tenant.trim()) return t.tenant.trim();
  }
  return shared?.trim() || undefined;
}
