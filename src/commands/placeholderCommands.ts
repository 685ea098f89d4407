// Commands whose feature has not landed yet say so plainly instead of failing.
import * as vscode from 'vscode';

export function registerPlaceholderCommand(id: string, feature: string): vscode.Disposable {
  return vscode.commands.registerCommand(id, () =>
    vscode.window.showInformationMessage(`HopLens: ${feature} is not available yet in this version.`));
}
