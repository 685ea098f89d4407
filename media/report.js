// Report page: buttons post a message to the extension; nothing else runs here.
(function () {
  const vscode = acquireVsCodeApi();
  document.addEventListener('click', (e) => {
    const target = e.target instanceof Element ? e.target.closest('[data-action],[data-line]') : null;
    if (!target) return;
    e.preventDefault();
    if (target.hasAttribute('data-action')) vscode.postMessage({ type: target.getAttribute('data-action') });
    else vscode.postMessage({ type: 'revealLine', line: Number(target.getAttribute('data-line')) });
  });
})();
