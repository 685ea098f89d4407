// Debian's Chromium driven by playwright-core (never a downloaded browser).
import { chromium, Browser } from 'playwright-core';
import type { TestTools } from './tools';

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

export async function launchBrowser(tools: TestTools): Promise<Browser> {
  try {
    return await chromium.launch({ executablePath: tools.chromium, args: CHROMIUM_ARGS, timeout: 60_000 });
  } catch (e) {
    throw new Error(`Chromium at ${tools.chromium} did not start (${(e as Error).message.split('\n')[0]}). Install it with \`apt-get install -y chromium\`.`, { cause: e });
  }
}
