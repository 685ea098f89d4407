// The checkout settings are read per registered engine (`hoplens.checkouts.<id>`), so an engine added
// by its profile alone gets its checkout setting with no change to src/config.ts; the built-in two
// read the settings they always did.
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configValues } from '../fakes/vscode';
import { HopLensSettings } from '../../../src/config';
import { TOYLLM_PROFILE } from './toyllm/profile';
import { whileRegistered } from './toyllmTesting';

test('hoplens.checkouts.<id> is read for every registered engine: vLLM, SGLang and a made-up third', whileRegistered(TOYLLM_PROFILE, () => {
  configValues.set('hoplens.checkouts.vllm', '/src/vllm');
  configValues.set('hoplens.checkouts.sglang', '/src/sglang');
  configValues.set('hoplens.checkouts.toyllm', '/src/toyllm');
  const settings = new HopLensSettings();
  try {
    assert.deepEqual({ ...settings.current.checkouts }, { vllm: '/src/vllm', sglang: '/src/sglang', toyllm: '/src/toyllm' });
  } finally {
    settings.dispose();
    for (const id of ['vllm', 'sglang', 'toyllm']) configValues.delete(`hoplens.checkouts.${id}`);
  }
}));

test('an engine that is not registered has no checkout setting read; the built-in ones default to none', () => {
  configValues.set('hoplens.checkouts.toyllm', '/src/toyllm');
  const settings = new HopLensSettings();
  try {
    assert.deepEqual({ ...settings.current.checkouts }, { vllm: '', sglang: '' });
  } finally {
    settings.dispose();
    configValues.delete('hoplens.checkouts.toyllm');
  }
});
