// Which request a command that shows one request means, when none is given: the one at the
// cursor; else, when nothing else is known, the last traced request; else the user picks among
// the last traced request (first, marked) and the known ones, each once.

export interface RequestChoice { rid: string; lastTraced: boolean }

export type RequestToShow = { rid: string } | { choices: RequestChoice[] } | undefined;

export function requestToShow(atCursor: string | null | undefined, lastTraced: string | null | undefined, known: readonly string[]): RequestToShow {
  if (atCursor) return { rid: atCursor };
  if (known.length === 0) return lastTraced ? { rid: lastTraced } : undefined;
  const rids = [...new Set([...(lastTraced ? [lastTraced] : []), ...known])];
  return { choices: rids.map((rid) => ({ rid, lastTraced: rid === lastTraced })) };
}
