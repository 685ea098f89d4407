// The engines' server log lines as the fake engine writes them, re-exported from their imitations
// (src/engines/<id>/fakeFrames.ts; Python's repr() from src/engines/fake.ts) for the tests that
// build lines by hand (engineLogging.test.ts checks them against the releases' own logging set-up).
export { pyFloat, pyRepr, pyStr } from '../../engines/fake';
export { VllmLog, vllmApiServerLine, vllmTime } from '../../engines/vllm/fakeFrames';
export { SglangLog, sglangLine, sglangTime } from '../../engines/sglang/fakeFrames';
