// What every engine's log line shares (both log through Python's logging): the level names and
// the rank tags both print. Data only; the engines' own shapes are in <id>/lines.ts.
export const LEVELS = 'DEBUG|INFO|WARNING|ERROR|CRITICAL';
// Every rank tag SGLang and vLLM print (TP0, DP0, EP0, PP0, ATTN_CP0, ATTN_DP0, MOE_DP0, …), in any combination.
export const RANK_TOKEN = /(?:^|[_ ])([A-Z][A-Z_]*?)(\d+)(?=$|[_ ,\]])/g;
